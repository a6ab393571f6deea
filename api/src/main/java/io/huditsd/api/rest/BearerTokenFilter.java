package io.huditsd.api.rest;

import io.dropwizard.jersey.errors.ErrorMessage;
import jakarta.annotation.Priority;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

import java.util.Set;

import static java.util.Objects.requireNonNull;

/**
 * Requires {@code Authorization: Bearer <token>} on mutating requests, and on reads when so configured: 401 without
 * a token, 403 with a wrong one ({@link BearerToken} compares them). The table service manager endpoints are
 * exempt: Hudi writers call them without credentials, and they only queue plans already on the timeline.
 */
@Priority(Priorities.AUTHENTICATION)
public final class BearerTokenFilter implements ContainerRequestFilter {
  private static final Set<String> READ_METHODS = Set.of("GET", "HEAD", "OPTIONS");

  private final BearerToken token;
  private final boolean protectReads;

  public BearerTokenFilter(BearerToken token, boolean protectReads) {
    this.token = requireNonNull(token, "token is null");
    this.protectReads = protectReads;
  }

  @Override
  public void filter(ContainerRequestContext request) {
    String path = request.getUriInfo().getPath();
    if (path.startsWith("v1/hoodie/") || path.startsWith("/v1/hoodie/")) {
      return;
    }
    if (READ_METHODS.contains(request.getMethod()) && !protectReads) {
      return;
    }
    BearerToken.Verdict verdict = token.check(request.getHeaderString(HttpHeaders.AUTHORIZATION));
    if (verdict == BearerToken.Verdict.MISSING) {
      request.abortWith(error(verdict).header(HttpHeaders.WWW_AUTHENTICATE, BearerToken.CHALLENGE).build());
    } else if (verdict != BearerToken.Verdict.VALID) {
      request.abortWith(error(verdict).build());
    }
  }

  private static Response.ResponseBuilder error(BearerToken.Verdict verdict) {
    return Response.status(verdict.status()).type(MediaType.APPLICATION_JSON_TYPE)
        .entity(new ErrorMessage(verdict.status(), verdict.message()));
  }
}
