package io.huditsd.lock;

import org.apache.hadoop.conf.Configuration;
import org.apache.hudi.client.transaction.lock.metrics.HoodieLockMetrics;
import org.apache.hudi.common.config.LockConfiguration;
import org.apache.hudi.storage.StorageConfiguration;

/**
 * Hudi's storage-based table lock ({@code StorageBasedLockProvider}: a lease in {@code .hoodie/.locks}, renewed by a
 * heartbeat, taken over by another process only once it expired) on {@code file} and {@code hdfs} tables, through
 * {@link HadoopStorageLockClient}. Same keys as Hudi's: {@code hoodie.write.lock.storage.validity.timeout.secs}
 * (300), {@code hoodie.write.lock.storage.renew.interval.secs} (30). Writers use this class too (Hudi's own
 * provider has no client for these schemes and refuses them).
 *
 * <p>Fencing as {@link FencedStorageLockProvider}: a write under a lock that another owner holds now, or whose
 * renewals have been failing for half the lease, is refused.
 */
public final class HadoopStorageLockProvider extends FencedStorageLockProvider {
  public HadoopStorageLockProvider(LockConfiguration lockConfiguration, StorageConfiguration<?> storage) {
    this(lockConfiguration, storage, null);
  }

  public HadoopStorageLockProvider(LockConfiguration lockConfiguration, StorageConfiguration<?> storage,
                                   HoodieLockMetrics metrics) {
    this(lockConfiguration, hadoopConfiguration(storage), metrics);
  }

  private HadoopStorageLockProvider(LockConfiguration lockConfiguration, Configuration hadoop,
                                    HoodieLockMetrics metrics) {
    super(lockConfiguration, metrics,
        (owner, lockFilePath, properties) -> new HadoopStorageLockClient(owner, lockFilePath, hadoop));
  }

  static Configuration hadoopConfiguration(StorageConfiguration<?> storage) {
    return storage == null ? new Configuration() : storage.unwrapCopyAs(Configuration.class);
  }

  @Override
  public String location() {
    HadoopStorageLockClient current = (HadoopStorageLockClient) client();
    return current == null ? "(no lock file)" : current.generationFile(0).getParent().toString();
  }
}
