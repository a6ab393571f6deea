package io.huditsd.scheduler;

import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.Histogram;
import io.prometheus.metrics.model.registry.PrometheusRegistry;

import java.time.Duration;
import java.util.Objects;

/**
 * Writers' commit callbacks: how many came and what became of them, the polls they caused after debouncing, and
 * how long after the commit a plan was scheduled. Label {@code table}: the daemon's table id, {@code ""} for a
 * request that names no serviced table (so a forged base path cannot grow the series).
 */
public final class CommitCallbackMetrics {
  /** What became of a callback. */
  public enum Result {
    ACCEPTED("accepted"),
    FORWARDED("forwarded"),
    UNAUTHORIZED("unauthorized"),
    INVALID("invalid"),
    UNKNOWN_TABLE("unknown_table");

    private final String label;

    Result(String label) {
      this.label = label;
    }

    public String label() {
      return label;
    }
  }

  private final Counter callbacks;
  private final Counter polls;
  private final Histogram scheduleDelay;

  public CommitCallbackMetrics(PrometheusRegistry registry) {
    Objects.requireNonNull(registry, "registry is null");
    callbacks = Counter.builder().name("tsd_commit_callbacks")
        .help("Writers' commit callbacks received, by what became of them")
        .labelNames("table", "result").register(registry);
    polls = Counter.builder().name("tsd_commit_callback_polls")
        .help("Polls that writers' commit callbacks caused, after debouncing")
        .labelNames("table").register(registry);
    scheduleDelay = Histogram.builder().name("tsd_commit_callback_schedule_delay_seconds")
        .help("From the commit time in a writer's callback to a plan of its table being scheduled by the poll that"
            + " followed")
        .classicOnly().classicUpperBounds(0.5, 1, 2, 5, 10, 20, 30, 60, 120, 300, 600, 1800)
        .register(registry);
  }

  public void received(String table, Result result) {
    callbacks.labelValues(table, result.label()).inc();
  }

  void polled(String table) {
    polls.labelValues(table).inc();
  }

  void scheduledAfter(Duration delay) {
    scheduleDelay.observe(delay.toNanos() / 1e9);
  }
}
