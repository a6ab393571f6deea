package io.huditsd.executors.clustering;

import io.prometheus.client.CollectorRegistry;
import io.prometheus.client.Counter;

/**
 * Counts of the binary-copy clustering strategy. Hudi instantiates the strategy by reflection, so the counters live
 * here, process-wide, and the application registers them once.
 */
public final class BinaryCopyMetrics {
  static final Counter FALLBACKS = Counter.build("tsd_clustering_binary_copy_fallbacks_total",
          "Clustering groups that the binary-copy strategy could not copy and rewrote record by record, by reason")
      .labelNames("reason").create();
  static final Counter COPIED_GROUPS = Counter.build("tsd_clustering_binary_copy_groups_total",
          "Clustering groups written by copying Parquet row groups without decoding them").create();
  static final Counter COPIED_BYTES = Counter.build("tsd_clustering_binary_copy_bytes_total",
          "Bytes of base files written by copying Parquet row groups").create();

  static {
    // Every reason is exported from the start, at zero, so that a rate over it is defined before the first fallback.
    for (FallbackReason reason : FallbackReason.values()) {
      FALLBACKS.labels(reason.label());
    }
  }

  private BinaryCopyMetrics() {
  }

  public static void register(CollectorRegistry registry) {
    registry.register(FALLBACKS);
    registry.register(COPIED_GROUPS);
    registry.register(COPIED_BYTES);
  }

  /** Fallbacks counted so far for {@code reason} (tests and the benchmark read it). */
  public static double fallbacks(FallbackReason reason) {
    return FALLBACKS.labels(reason.label()).get();
  }

  /** Groups copied so far. */
  public static double copiedGroups() {
    return COPIED_GROUPS.get();
  }

  static void fallback(FallbackReason reason) {
    FALLBACKS.labels(reason.label()).inc();
  }

}
