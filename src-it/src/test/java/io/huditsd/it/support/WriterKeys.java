package io.huditsd.it.support;

import java.util.LinkedHashMap;
import java.util.Map;

/** The keys the README asks of a Spark writer that shares its tables with the daemon. */
public final class WriterKeys {
  private WriterKeys() {
  }

  /**
   * Multi-writer mode (OCC, LAZY failed writes) under {@code lockKeys}, the ingestion-first conflict resolution of the
   * lock-providers jar and Spark's allow-update strategy; a mutable map the caller may add to.
   */
  public static Map<String, String> ingestionFirst(Map<String, String> lockKeys) {
    Map<String, String> keys = new LinkedHashMap<>(lockKeys);
    keys.put("hoodie.write.concurrency.mode", "OPTIMISTIC_CONCURRENCY_CONTROL");
    keys.put("hoodie.cleaner.policy.failed.writes", "LAZY");
    keys.put("hoodie.write.lock.conflict.resolution.strategy",
        "io.huditsd.lock.IngestionFirstConflictResolutionStrategy");
    keys.put("hoodie.clustering.updates.strategy",
        "org.apache.hudi.client.clustering.update.strategy.SparkAllowUpdateStrategy");
    return keys;
  }
}
