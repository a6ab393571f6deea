package io.huditsd.scheduler;

import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.model.registry.PrometheusRegistry;

/**
 * How the daemon's services and the table's writers get along: writer commits that failed, and file groups that
 * clustering left out because writers wrote them recently. Process-wide, like the binary-copy counters; the
 * application registers them once. Label {@code table}: bounded by the number of tables.
 */
public final class IngestionMetrics {
  static final Counter WRITER_FAILURES = Counter.builder().name("tsd_writer_failures")
      .help("Writer instants seen on the timeline that failed (heartbeat expired while pending) or were rolled back,"
          + " each counted once")
      .labelNames("table").build();
  static final Counter SKIPPED_HOT = Counter.builder().name("tsd_clustering_file_groups_skipped_hot")
      .help("File groups that scheduled clustering plans left out because writers wrote them recently")
      .labelNames("table").build();

  private IngestionMetrics() {
  }

  public static void register(PrometheusRegistry registry) {
    registry.register(WRITER_FAILURES);
    registry.register(SKIPPED_HOT);
  }

  /** Exports both series of a table at zero, so that an increase() over them sees the first failure or skip. */
  static void touch(String table) {
    WRITER_FAILURES.initLabelValues(table);
    SKIPPED_HOT.initLabelValues(table);
  }

  public static double writerFailures(String table) {
    return WRITER_FAILURES.labelValues(table).get();
  }

  public static double skippedHot(String table) {
    return SKIPPED_HOT.labelValues(table).get();
  }
}
