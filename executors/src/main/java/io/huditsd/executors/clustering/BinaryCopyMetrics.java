package io.huditsd.executors.clustering;

import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.model.registry.PrometheusRegistry;

/**
 * Counts of the binary-copy clustering strategy. Hudi instantiates the strategy by reflection, so the counters live
 * here, process-wide, and the application registers them once.
 */
public final class BinaryCopyMetrics {
  static final Counter FALLBACKS = Counter.builder().name("tsd_clustering_binary_copy_fallbacks")
      .help("Clustering groups that the binary-copy strategy could not copy and rewrote record by record, by reason")
      .labelNames("reason").build();
  static final Counter COPIED_GROUPS = Counter.builder().name("tsd_clustering_binary_copy_groups")
      .help("Clustering groups written by copying Parquet row groups without decoding them").build();
  static final Counter COPIED_BYTES = Counter.builder().name("tsd_clustering_binary_copy_bytes")
      .help("Bytes of base files written by copying Parquet row groups").build();

  static {
    // Every reason is exported from the start, at zero, so that a rate over it is defined before the first fallback.
    for (FallbackReason reason : FallbackReason.values()) {
      FALLBACKS.initLabelValues(reason.label());
    }
  }

  private BinaryCopyMetrics() {
  }

  public static void register(PrometheusRegistry registry) {
    registry.register(FALLBACKS);
    registry.register(COPIED_GROUPS);
    registry.register(COPIED_BYTES);
  }

  /** Fallbacks counted so far for {@code reason} (tests and the benchmark read it). */
  public static double fallbacks(FallbackReason reason) {
    return FALLBACKS.labelValues(reason.label()).get();
  }

  /** Groups copied so far. */
  public static double copiedGroups() {
    return COPIED_GROUPS.get();
  }

  static void fallback(FallbackReason reason) {
    FALLBACKS.labelValues(reason.label()).inc();
  }

}
