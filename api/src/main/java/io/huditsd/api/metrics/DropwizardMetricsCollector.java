package io.huditsd.api.metrics;

import com.codahale.metrics.Gauge;
import com.codahale.metrics.Metric;
import com.codahale.metrics.MetricRegistry;
import com.codahale.metrics.Snapshot;
import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import io.prometheus.metrics.model.snapshots.Quantile;
import io.prometheus.metrics.model.snapshots.Quantiles;
import io.prometheus.metrics.model.snapshots.SummarySnapshot;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

import static io.huditsd.api.metrics.LabelledFamily.Type.COUNTER;
import static io.huditsd.api.metrics.LabelledFamily.Type.GAUGE;

/**
 * Dropwizard's own metrics (Jetty, Jersey, Logback, health checks) as Prometheus series, read from its registry at
 * scrape time, named and typed as simpleclient_dropwizard 0.16 exposed them before: the Prometheus Java client 1.x
 * has no Dropwizard Metrics 4 bridge on the registries this project builds from, and these series (requests and
 * 5xx responses by the admin and application connectors, log events by level, thread-pool use) are what an operator
 * reads when the daemon's HTTP side misbehaves.
 *
 * <p>The mapping is 0.16's: a gauge with a number or boolean value and a counter become gauges, a meter a counter of
 * its events, a timer (in seconds) or histogram a summary with the 0.5, 0.75, 0.95, 0.98, 0.99 and 0.999 quantiles
 * and a count (no sum: Dropwizard keeps none). Names are Dropwizard's with other characters than letters, digits,
 * {@code _} and {@code :} replaced by {@code _} and then in snake_case: they carry Java class names
 * ({@code io_dropwizard_jetty_MutableServletContextHandler_requests}), which Prometheus' naming conventions and
 * {@code promtool check metrics} reject; the series is
 * {@code io_dropwizard_jetty_mutable_servlet_context_handler_requests}.
 */
public final class DropwizardMetricsCollector implements MultiCollector {
  private static final Logger LOG = LoggerFactory.getLogger(DropwizardMetricsCollector.class);
  private static final Pattern INVALID = Pattern.compile("[^a-zA-Z0-9:_]");
  private static final Pattern WORD_BOUNDARY = Pattern.compile("(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])");
  private static final double[] QUANTILES = {0.5, 0.75, 0.95, 0.98, 0.99, 0.999};
  private static final double SECONDS_PER_NANO = 1.0 / TimeUnit.SECONDS.toNanos(1);

  private final MetricRegistry registry;

  public DropwizardMetricsCollector(MetricRegistry registry) {
    this.registry = Objects.requireNonNull(registry, "registry is null");
  }

  @Override
  public MetricSnapshots collect() {
    Families families = new Families();
    registry.getGauges().forEach((name, gauge) -> gaugeValue(name, gauge).ifPresent(value ->
        families.add(name, LabelledFamily.single(GAUGE, prometheusName(name), help(name, gauge), value))));
    registry.getCounters().forEach((name, counter) ->
        families.add(name, LabelledFamily.single(GAUGE, prometheusName(name), help(name, counter),
            counter.getCount())));
    registry.getMeters().forEach((name, meter) ->
        families.add(name, LabelledFamily.single(COUNTER, prometheusName(name), help(name, meter),
            meter.getCount())));
    registry.getTimers().forEach((name, timer) ->
        families.add(name, summary(name, timer, timer.getSnapshot(), timer.getCount(), SECONDS_PER_NANO)));
    registry.getHistograms().forEach((name, histogram) ->
        families.add(name, summary(name, histogram, histogram.getSnapshot(), histogram.getCount(), 1)));
    return new MetricSnapshots(families.snapshots);
  }

  /** The Prometheus name of a Dropwizard metric: invalid characters replaced, then snake_case. */
  static String prometheusName(String dropwizardName) {
    String sanitized = INVALID.matcher(dropwizardName).replaceAll("_");
    if (!sanitized.isEmpty() && Character.isDigit(sanitized.charAt(0))) {
      sanitized = "_" + sanitized;
    }
    return snakeCase(sanitized);
  }

  static String snakeCase(String name) {
    return WORD_BOUNDARY.matcher(name).replaceAll("_").toLowerCase(Locale.ROOT);
  }

  private static Optional<Double> gaugeValue(String name, Gauge<?> gauge) {
    Object value = gauge.getValue();
    if (value instanceof Number number) {
      return Optional.of(number.doubleValue());
    }
    if (value instanceof Boolean bool) {
      return Optional.of(bool ? 1.0 : 0.0);
    }
    LOG.debug("Dropwizard gauge {} has a {} value, not a number: not exported", name,
        value == null ? "null" : value.getClass().getName());
    return Optional.empty();
  }

  private static MetricSnapshot summary(String name, Metric metric, Snapshot snapshot, long count, double factor) {
    Quantiles.Builder quantiles = Quantiles.builder();
    for (double quantile : QUANTILES) {
      quantiles.quantile(new Quantile(quantile, snapshot.getValue(quantile) * factor));
    }
    return SummarySnapshot.builder().name(prometheusName(name)).help(help(name, metric))
        .dataPoint(SummarySnapshot.SummaryDataPointSnapshot.builder().quantiles(quantiles.build()).count(count)
            .build())
        .build();
  }

  private static String help(String name, Metric metric) {
    return "Generated from Dropwizard metric import (metric=" + name + ", type=" + metric.getClass().getName() + ")";
  }

  /** The scrape's snapshots, one per Prometheus name: a second Dropwizard name mapping to it would fail the scrape. */
  private static final class Families {
    private final List<MetricSnapshot> snapshots = new ArrayList<>();
    private final Set<String> names = new HashSet<>();

    void add(String dropwizardName, MetricSnapshot snapshot) {
      if (names.add(snapshot.getMetadata().getPrometheusName())) {
        snapshots.add(snapshot);
      } else {
        LOG.debug("Dropwizard metric {} maps to {}, which another metric has: not exported", dropwizardName,
            snapshot.getMetadata().getPrometheusName());
      }
    }
  }
}
