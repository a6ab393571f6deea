package io.huditsd.scheduler;

import io.prometheus.client.CollectorRegistry;
import io.prometheus.client.Counter;

/**
 * How the daemon's services and the table's writers get along: writer commits that failed, and file groups that
 * clustering left out because writers wrote them recently. Process-wide, like the binary-copy counters; the
 * application registers them once. Label {@code table}: bounded by the number of tables.
 */
public final class IngestionMetrics {
  static final Counter WRITER_FAILURES = Counter.build("tsd_writer_failures_total",
          "Writer instants seen on the timeline that failed (heartbeat expired while pending) or were rolled back,"
              + " each counted once")
      .labelNames("table").create();
  static final Counter SKIPPED_HOT = Counter.build("tsd_clustering_file_groups_skipped_hot_total",
          "File groups that scheduled clustering plans left out because writers wrote them recently")
      .labelNames("table").create();

  private IngestionMetrics() {
  }

  public static void register(CollectorRegistry registry) {
    registry.register(WRITER_FAILURES);
    registry.register(SKIPPED_HOT);
  }

  /** Exports both series of a table at zero, so that an increase() over them sees the first failure or skip. */
  static void touch(String table) {
    WRITER_FAILURES.labels(table);
    SKIPPED_HOT.labels(table);
  }

  public static double writerFailures(String table) {
    return WRITER_FAILURES.labels(table).get();
  }

  public static double skippedHot(String table) {
    return SKIPPED_HOT.labels(table).get();
  }
}
