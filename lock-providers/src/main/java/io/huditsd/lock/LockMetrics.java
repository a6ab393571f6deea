package io.huditsd.lock;

import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.core.metrics.Histogram;
import io.prometheus.metrics.model.registry.PrometheusRegistry;

/**
 * Lock waits, hold times and failures of the daemon's table locks, labelled by table id. Hudi instantiates lock
 * providers by reflection, so the metrics live here, process-wide, and the application registers them once.
 */
public final class LockMetrics {
  static final Histogram WAIT = Histogram.builder().name("tsd_lock_wait_seconds")
      .help("Time spent waiting for a table lock (acquired or not)")
      .labelNames("table").classicOnly().classicUpperBounds(0.001, 0.01, 0.1, 0.5, 1, 5, 15, 60, 300).build();
  static final Histogram HELD = Histogram.builder().name("tsd_lock_held_seconds").help("Time a table lock was held")
      .labelNames("table").classicOnly().classicUpperBounds(0.01, 0.1, 0.5, 1, 5, 15, 60, 300).build();
  static final Counter FAILURES = Counter.builder().name("tsd_lock_failures")
      .help("Lock attempts that timed out or failed (Hudi retries them up to hoodie.write.lock.client.num_retries)")
      .labelNames("table").build();
  static final Counter STORAGE_REQUESTS = Counter.builder().name("tsd_lock_storage_requests")
      .help("Requests the storage locks sent to the object store (each HTTP attempt, the SDK's retries included)")
      .labelNames("op").build();
  static final Counter STORAGE_THROTTLED = Counter.builder().name("tsd_lock_storage_throttled")
      .help("Storage lock requests the object store answered with throttling (503 SlowDown, 429); the SDK retries"
          + " them with back-off and jitter")
      .labelNames("op").build();
  static final GaugeWithCallback S3_CONDITIONAL_WRITES = GaugeWithCallback.builder()
      .name("tsd_s3_conditional_writes")
      .help("Whether an S3 store (endpoint and bucket) honours the conditional writes (If-None-Match, If-Match) the S3"
          + " storage lock relies on, as probed once per store before its first lock: 1 on the verdict of the last"
          + " probe, 0 on the others. ignored: the store's tables are refused (configure a ZooKeeper lock); unknown:"
          + " the probe failed and runs again at the next use")
      .labelNames("endpoint", "bucket", "verdict")
      .callback(callback -> ConditionalWriteProbe.results().forEach((store, result) -> {
        for (ConditionalWriteProbe.Verdict verdict : ConditionalWriteProbe.Verdict.values()) {
          callback.call(verdict == result.verdict() ? 1 : 0, store.endpoint(), store.bucket(), verdict.label());
        }
      }))
      .build();

  private LockMetrics() {
  }

  /** Registers the lock metrics in {@code registry} and makes the storage locks of this process count into them. */
  public static void register(PrometheusRegistry registry) {
    registry.register(WAIT);
    registry.register(HELD);
    registry.register(FAILURES);
    registry.register(STORAGE_REQUESTS);
    registry.register(STORAGE_THROTTLED);
    registry.register(S3_CONDITIONAL_WRITES);
    LockStorageRequests.install(new LockStorageRequests.Sink() {
      @Override
      public void requested(String operation) {
        STORAGE_REQUESTS.labelValues(operation).inc();
      }

      @Override
      public void throttled(String operation) {
        STORAGE_THROTTLED.labelValues(operation).inc();
      }
    });
  }
}
