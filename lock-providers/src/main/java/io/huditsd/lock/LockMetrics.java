package io.huditsd.lock;

import io.prometheus.client.CollectorRegistry;
import io.prometheus.client.Counter;
import io.prometheus.client.Histogram;

/**
 * Lock waits, hold times and failures of the daemon's table locks, labelled by table id. Hudi instantiates lock
 * providers by reflection, so the metrics live here, process-wide, and the application registers them once.
 */
public final class LockMetrics {
  static final Histogram WAIT = Histogram.build("tsd_lock_wait_seconds",
          "Time spent waiting for a table lock (acquired or not)")
      .labelNames("table").buckets(0.001, 0.01, 0.1, 0.5, 1, 5, 15, 60, 300).create();
  static final Histogram HELD = Histogram.build("tsd_lock_held_seconds", "Time a table lock was held")
      .labelNames("table").buckets(0.01, 0.1, 0.5, 1, 5, 15, 60, 300).create();
  static final Counter FAILURES = Counter.build("tsd_lock_failures_total",
          "Lock attempts that timed out or failed (Hudi retries them up to hoodie.write.lock.client.num_retries)")
      .labelNames("table").create();
  static final Counter STORAGE_REQUESTS = Counter.build("tsd_lock_storage_requests_total",
          "Requests the storage locks sent to the object store (each HTTP attempt, the SDK's retries included)")
      .labelNames("op").create();
  static final Counter STORAGE_THROTTLED = Counter.build("tsd_lock_storage_throttled_total",
          "Storage lock requests the object store answered with throttling (503 SlowDown, 429); the SDK retries"
              + " them with back-off and jitter")
      .labelNames("op").create();

  private LockMetrics() {
  }

  /** Registers the lock metrics in {@code registry} and makes the storage locks of this process count into them. */
  public static void register(CollectorRegistry registry) {
    registry.register(WAIT);
    registry.register(HELD);
    registry.register(FAILURES);
    registry.register(STORAGE_REQUESTS);
    registry.register(STORAGE_THROTTLED);
    LockStorageRequests.install(new LockStorageRequests.Sink() {
      @Override
      public void requested(String operation) {
        STORAGE_REQUESTS.labels(operation).inc();
      }

      @Override
      public void throttled(String operation) {
        STORAGE_THROTTLED.labels(operation).inc();
      }
    });
  }
}
