package org.apache.hudi.client.transaction.lock;

import org.apache.hudi.client.transaction.lock.metrics.HoodieLockMetrics;
import org.apache.hudi.client.transaction.lock.models.LockProviderHeartbeatManager;
import org.apache.hudi.common.config.LockConfiguration;
import org.apache.hudi.common.config.TypedProperties;
import org.apache.hudi.common.util.Functions;
import org.slf4j.LoggerFactory;

import java.util.UUID;

/**
 * Hudi's {@link StorageBasedLockProvider} with a storage lock client chosen by the subclass. Hudi 1.2.0 picks the
 * client from a fixed scheme table ({@code StorageSchemes}: s3, s3a, gs, wasb(s), abfs(s)) and has none for
 * {@code file} or {@code hdfs}; its constructor that takes a client loader is package-private, hence this class in
 * Hudi's package. Everything else (lease, renewal heartbeat, takeover only after expiry, audit) is Hudi's code.
 *
 * <p>Requires Hudi's classes and this one in the same class loader (a flat class path; in Spark, both jars passed
 * the same way).
 */
public abstract class StorageBasedLockProviderBridge extends StorageBasedLockProvider {
  protected StorageBasedLockProviderBridge(LockConfiguration lockConfiguration, HoodieLockMetrics metrics,
                                           Functions.Function3<String, String, TypedProperties, StorageLockClient>
                                               clientLoader) {
    super(UUID.randomUUID().toString(), lockConfiguration.getConfig(), LockProviderHeartbeatManager::new,
        clientLoader, LoggerFactory.getLogger(StorageBasedLockProvider.class), metrics);
  }
}
