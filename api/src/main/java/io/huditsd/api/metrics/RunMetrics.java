package io.huditsd.api.metrics;

import io.huditsd.executors.ActionResult;
import io.huditsd.executors.RunListener;
import io.huditsd.executors.RunRecord;
import io.huditsd.executors.RunStatus;
import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.Histogram;
import io.prometheus.metrics.model.registry.PrometheusRegistry;

import java.util.Locale;

/**
 * Per-service run counters, durations and bytes, in Prometheus conventions. Runs and durations carry the engine the
 * plan ran on ({@code java} in the daemon, {@code spark}), so that Spark's submission cost and the daemon's own load
 * can be told apart.
 */
public final class RunMetrics implements RunListener {
  private final Counter runs;
  private final Histogram duration;
  private final Counter bytesRead;
  private final Counter bytesWritten;

  public RunMetrics(PrometheusRegistry registry) {
    // The table label lets an alert on failed runs say which table to look at; its cardinality is bounded by the
    // number of tables, like the per-table gauges. Counters are named without _total: the exposition adds it.
    runs = Counter.builder().name("tsd_runs").help("Finished runs of a table service by table and result "
        + "(succeeded, failed, skipped, cancelled) and engine (java, spark)")
        .labelNames("table", "service", "result", "engine").register(registry);
    duration = Histogram.builder().name("tsd_run_duration_seconds").help("Wall time of successful runs of a table "
        + "service by engine").labelNames("service", "engine")
        .classicOnly().classicUpperBounds(0.5, 1, 5, 15, 30, 60, 180, 600, 1800, 3600).register(registry);
    bytesRead = Counter.builder().name("tsd_run_read_bytes").help("Bytes read by successful runs (log bytes for "
        + "compaction, input file bytes for clustering)").labelNames("service").register(registry);
    bytesWritten = Counter.builder().name("tsd_run_written_bytes").help("Bytes written by successful runs")
        .labelNames("service").register(registry);
  }

  @Override
  public void onChange(RunRecord record) {
    String table = record.item().table().id();
    String service = record.item().service().configName();
    String engine = record.item().placement().engine().configName();
    if (!record.status().isFinal()) {
      // A counter's series appears at its first increment, which Prometheus' increase() cannot see: the failed
      // series exists at 0 from a table's first run of a service, so an alert on failures sees the first one.
      runs.initLabelValues(table, service, RunStatus.FAILED.name().toLowerCase(Locale.ROOT), engine);
      return;
    }
    runs.labelValues(table, service, record.status().name().toLowerCase(Locale.ROOT), engine).inc();
    if (record.result().isPresent()) {
      ActionResult result = record.result().get();
      duration.labelValues(service, engine).observe(result.duration().toNanos() / 1e9);
      bytesRead.labelValues(service).inc(result.bytesIn());
      bytesWritten.labelValues(service).inc(result.bytesOut());
    }
  }
}
