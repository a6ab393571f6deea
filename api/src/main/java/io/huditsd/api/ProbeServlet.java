package io.huditsd.api;

import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import java.io.IOException;
import java.util.function.BooleanSupplier;

/**
 * A Kubernetes probe: 200 "ok" while the condition holds, 503 otherwise. Liveness asks whether the daemon can still
 * work (its workers and poll scheduler are alive); readiness whether it finished starting. Neither depends on the
 * health of individual tables, so one broken table never restarts or unrouts the daemon.
 */
final class ProbeServlet extends HttpServlet {
  private static final long serialVersionUID = 1L;

  private final transient BooleanSupplier condition;

  ProbeServlet(BooleanSupplier condition) {
    this.condition = condition;
  }

  @Override
  protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
    boolean ok = condition.getAsBoolean();
    response.setStatus(ok ? HttpServletResponse.SC_OK : HttpServletResponse.SC_SERVICE_UNAVAILABLE);
    response.setContentType("text/plain");
    response.getWriter().println(ok ? "ok" : "unavailable");
  }
}
