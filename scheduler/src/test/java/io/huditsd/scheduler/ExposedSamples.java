package io.huditsd.scheduler;

import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.model.registry.PrometheusRegistry;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The samples a scrape of a registry shows, read from the text format 0.0.4 a scraper gets: by series as exposed
 * ({@code name{a="x",b="y"}}, labels in the exposition's order, by name), so that tests assert what Prometheus sees.
 */
final class ExposedSamples {
  private ExposedSamples() {
  }

  static Map<String, Double> of(PrometheusRegistry registry) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try {
      PrometheusTextFormatWriter.create().write(out, registry.scrape());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    Map<String, Double> samples = new LinkedHashMap<>();
    for (String line : out.toString(StandardCharsets.UTF_8).split("\n")) {
      if (!line.isEmpty() && !line.startsWith("#")) {
        int space = line.lastIndexOf(' ');
        samples.put(line.substring(0, space), Double.parseDouble(line.substring(space + 1)));
      }
    }
    return samples;
  }
}
