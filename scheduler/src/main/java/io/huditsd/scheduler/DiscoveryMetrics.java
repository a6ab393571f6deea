package io.huditsd.scheduler;

import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.model.registry.PrometheusRegistry;

import java.util.Objects;

/**
 * Discovery scans of a root that did not complete (a listing failed or was throttled), after which the root's known
 * tables were kept as they were. Label {@code root}: bounded by the configured roots.
 */
public final class DiscoveryMetrics {
  private final Counter scanFailures;

  public DiscoveryMetrics(PrometheusRegistry registry) {
    Objects.requireNonNull(registry, "registry is null");
    scanFailures = Counter.builder().name("tsd_discovery_scan_failures")
        .help("Discovery scans of a root that failed part way (a listing failed, was refused or throttled); the "
            + "tables known under the root were kept")
        .labelNames("root").register(registry);
  }

  /** Exports the root's series at zero, so that an increase() over it sees the first failure. */
  void scanned(String root) {
    scanFailures.initLabelValues(root);
  }

  void scanFailed(String root) {
    scanFailures.labelValues(root).inc();
  }

  /** Failed scans of {@code root} so far. */
  public double scanFailures(String root) {
    return scanFailures.labelValues(root).get();
  }
}
