package io.huditsd.api;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.dropwizard.jersey.errors.ErrorMessage;
import io.huditsd.api.rest.BearerToken;
import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import java.io.IOException;
import java.util.Optional;
import java.util.Set;

import static java.util.Objects.requireNonNull;

/**
 * Guards the admin port. Its probes stay open, since Kubernetes and Prometheus call them without credentials and
 * they reveal only health. Everything else there changes or dumps the process (Dropwizard's {@code /tasks/log-level}
 * and {@code /tasks/gc}, {@code /threads}, {@code /metrics}, {@code /pprof}, ...): with a token it needs the same
 * bearer token as the REST API (401 without, 403 with a wrong one); without a token it answers 403 unless the
 * operator opened it with {@code auth.openAdmin}.
 */
final class AdminAccessFilter implements Filter {
  /** The probe paths, matched exactly against the path the servlet container dispatches on. */
  static final Set<String> PROBE_PATHS = Set.of("/live", "/ready", "/healthcheck", "/prometheus");

  static final String CLOSED_MESSAGE = "The admin port serves only /live, /ready, /healthcheck and /prometheus: set "
      + "auth.tokenFile or auth.tokenEnv to reach the rest with Authorization: Bearer <token>, or auth.openAdmin: "
      + "true to open it to anyone";

  private final Optional<BearerToken> token;
  private final boolean openWithoutToken;
  private final ObjectMapper json;

  AdminAccessFilter(Optional<BearerToken> token, boolean openWithoutToken, ObjectMapper json) {
    this.token = requireNonNull(token, "token is null");
    this.openWithoutToken = openWithoutToken;
    this.json = requireNonNull(json, "json is null");
  }

  @Override
  public void doFilter(ServletRequest request, ServletResponse response, FilterChain chain)
      throws IOException, ServletException {
    HttpServletRequest http = (HttpServletRequest) request;
    if (PROBE_PATHS.contains(dispatchedPath(http))) {
      chain.doFilter(request, response);
      return;
    }
    if (token.isEmpty()) {
      if (openWithoutToken) {
        chain.doFilter(request, response);
      } else {
        refuse((HttpServletResponse) response, 403, CLOSED_MESSAGE);
      }
      return;
    }
    BearerToken.Verdict verdict = token.get().check(http.getHeader("Authorization"));
    if (verdict == BearerToken.Verdict.VALID) {
      chain.doFilter(request, response);
      return;
    }
    HttpServletResponse refused = (HttpServletResponse) response;
    if (verdict == BearerToken.Verdict.MISSING) {
      refused.setHeader("WWW-Authenticate", BearerToken.CHALLENGE);
    }
    refuse(refused, verdict.status(), verdict.message());
  }

  /**
   * The decoded, normalized path within the admin context that chose the servlet, so that {@code /live/../tasks/gc}
   * or {@code /live;x} is judged by where it is dispatched rather than by how it was spelled.
   */
  private static String dispatchedPath(HttpServletRequest request) {
    String servletPath = request.getServletPath();
    String pathInfo = request.getPathInfo();
    return (servletPath == null ? "" : servletPath) + (pathInfo == null ? "" : pathInfo);
  }

  private void refuse(HttpServletResponse response, int status, String message) throws IOException {
    response.setStatus(status);
    response.setContentType("application/json");
    json.writeValue(response.getOutputStream(), new ErrorMessage(status, message));
  }
}
