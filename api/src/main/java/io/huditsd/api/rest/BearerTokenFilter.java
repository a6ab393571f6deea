package io.huditsd.api.rest;

import io.dropwizard.jersey.errors.ErrorMessage;
import jakarta.annotation.Priority;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Set;

/**
 * Requires {@code Authorization: Bearer <token>} on mutating requests, and on reads when so configured: 401 without
 * a token, 403 with a wrong one. Tokens are compared in constant time. The table service manager endpoints are
 * exempt: Hudi writers call them without credentials, and they only queue plans already on the timeline.
 */
@Priority(Priorities.AUTHENTICATION)
public final class BearerTokenFilter implements ContainerRequestFilter {
  private static final Set<String> READ_METHODS = Set.of("GET", "HEAD", "OPTIONS");
  private static final String PREFIX = "Bearer ";

  private final byte[] token;
  private final boolean protectReads;

  public BearerTokenFilter(String token, boolean protectReads) {
    if (token == null || token.isEmpty()) {
      throw new IllegalArgumentException("token must not be empty");
    }
    this.token = token.getBytes(StandardCharsets.UTF_8);
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
    String header = request.getHeaderString(HttpHeaders.AUTHORIZATION);
    if (header == null || !header.startsWith(PREFIX)) {
      request.abortWith(error(401, "A bearer token is required (Authorization: Bearer <token>)")
          .header(HttpHeaders.WWW_AUTHENTICATE, "Bearer realm=\"hudi-tsd\"").build());
      return;
    }
    byte[] presented = header.substring(PREFIX.length()).trim().getBytes(StandardCharsets.UTF_8);
    if (!MessageDigest.isEqual(presented, token)) {
      request.abortWith(error(403, "The bearer token is not valid").build());
    }
  }

  private static Response.ResponseBuilder error(int status, String message) {
    return Response.status(status).type(MediaType.APPLICATION_JSON_TYPE).entity(new ErrorMessage(status, message));
  }
}
