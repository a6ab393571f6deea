package io.huditsd.api.metrics;

import io.huditsd.scheduler.PollObserver;
import io.huditsd.scheduler.TablePoller;
import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.Histogram;
import io.prometheus.metrics.model.registry.PrometheusRegistry;

import java.time.Duration;

/** Poll durations and failures. */
public final class PollMetrics implements PollObserver {
  private final Histogram duration;
  private final Counter failures;

  public PollMetrics(PrometheusRegistry registry) {
    duration = Histogram.builder().name("tsd_poll_duration_seconds")
        .help("Duration of table polls (skipped backoff polls excluded)")
        .classicOnly().classicUpperBounds(0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 30).register(registry);
    failures = Counter.builder().name("tsd_poll_failures").help("Failed table polls").labelNames("table")
        .register(registry);
  }

  @Override
  public void polled(String tableId, TablePoller.Result result, Duration elapsed) {
    if (result == TablePoller.Result.IN_BACKOFF) {
      return;
    }
    duration.observe(elapsed.toNanos() / 1e9);
    if (result == TablePoller.Result.FAILED) {
      failures.labelValues(tableId).inc();
    } else {
      // A table's series exists at 0 from its first poll, so that increase() over it sees the first failure (and
      // the family is on the endpoint: the client shows none without a sample).
      failures.initLabelValues(tableId);
    }
  }
}
