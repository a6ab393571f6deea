package io.huditsd.api.metrics;

import io.prometheus.client.CollectorRegistry;
import io.prometheus.client.exporter.common.TextFormat;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import java.io.IOException;
import java.io.Writer;

/** Serves a collector registry in the Prometheus text exposition format (0.0.4). */
public final class PrometheusServlet extends HttpServlet {
  private static final long serialVersionUID = 1L;

  private final transient CollectorRegistry registry;

  public PrometheusServlet(CollectorRegistry registry) {
    this.registry = registry;
  }

  @Override
  protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
    response.setStatus(HttpServletResponse.SC_OK);
    response.setContentType(TextFormat.CONTENT_TYPE_004);
    try (Writer writer = response.getWriter()) {
      TextFormat.write004(writer, registry.metricFamilySamples());
    }
  }
}
