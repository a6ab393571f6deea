package io.huditsd.api.metrics;

import io.prometheus.client.Collector;
import io.prometheus.client.dropwizard.samplebuilder.DefaultSampleBuilder;
import io.prometheus.client.dropwizard.samplebuilder.SampleBuilder;

import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * Dropwizard's own metrics (Jetty, Jersey, health checks) as Prometheus series in snake_case: their names carry Java
 * class names ({@code io_dropwizard_jetty_MutableServletContextHandler_requests}), which Prometheus' naming
 * conventions and {@code promtool check metrics} reject. The series become
 * {@code io_dropwizard_jetty_mutable_servlet_context_handler_requests}; labels and values are Prometheus' default
 * mapping's.
 */
public final class SnakeCaseSampleBuilder implements SampleBuilder {
  private static final Pattern WORD_BOUNDARY = Pattern.compile("(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])");

  private final SampleBuilder names = new DefaultSampleBuilder();

  @Override
  public Collector.MetricFamilySamples.Sample createSample(String dropwizardName, String nameSuffix,
                                                           List<String> additionalLabelNames,
                                                           List<String> additionalLabelValues, double value) {
    Collector.MetricFamilySamples.Sample sample = names.createSample(dropwizardName, nameSuffix,
        additionalLabelNames, additionalLabelValues, value);
    return new Collector.MetricFamilySamples.Sample(snakeCase(sample.name), sample.labelNames, sample.labelValues,
        sample.value);
  }

  static String snakeCase(String name) {
    return WORD_BOUNDARY.matcher(name).replaceAll("_").toLowerCase(Locale.ROOT);
  }
}
