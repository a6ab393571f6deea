package io.huditsd.api.metrics;

import io.huditsd.api.PrometheusText;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.registry.PrometheusRegistry;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/** What a scraper reads from a registry or a collector: the text format 0.0.4, parsed strictly. */
final class Scrape {
  private Scrape() {
  }

  static String text(PrometheusRegistry registry) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try {
      PrometheusTextFormatWriter.create().write(out, registry.scrape());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out.toString(StandardCharsets.UTF_8);
  }

  /** Samples by series, labels in the exposition's order (by name). */
  static Map<String, Double> samples(PrometheusRegistry registry) {
    return PrometheusText.parse(text(registry));
  }

  static String text(MultiCollector collector) {
    PrometheusRegistry registry = new PrometheusRegistry();
    registry.register(collector);
    return text(registry);
  }
}
