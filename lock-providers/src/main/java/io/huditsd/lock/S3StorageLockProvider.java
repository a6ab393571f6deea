package io.huditsd.lock;

import org.apache.hadoop.conf.Configuration;
import org.apache.hudi.client.transaction.lock.metrics.HoodieLockMetrics;
import org.apache.hudi.common.config.LockConfiguration;
import org.apache.hudi.storage.StorageConfiguration;

/**
 * Hudi's storage-based table lock ({@code StorageBasedLockProvider}) on {@code s3} and {@code s3a} tables through
 * {@link S3StorageLockClient}: the same lock object, JSON and conditional writes as Hudi's {@code hudi-aws} S3
 * client, so the daemon and writers that use Hudi's provider with {@code hudi-aws} (or this class) exclude each
 * other. The S3 client is built from the S3A settings of the table's Hadoop configuration. Same keys as Hudi's:
 * {@code hoodie.write.lock.storage.validity.timeout.secs} (300), {@code hoodie.write.lock.storage.renew.interval.secs}
 * (30).
 *
 * <p>Needs hadoop-aws 3.3.x and its AWS SDK v1 on the class path (the daemon has them; Spark 3.5 writers get them
 * with hadoop-aws 3.3.4). Fencing as {@link FencedStorageLockProvider}.
 */
public final class S3StorageLockProvider extends FencedStorageLockProvider {
  public S3StorageLockProvider(LockConfiguration lockConfiguration, StorageConfiguration<?> storage) {
    this(lockConfiguration, storage, null);
  }

  public S3StorageLockProvider(LockConfiguration lockConfiguration, StorageConfiguration<?> storage,
                               HoodieLockMetrics metrics) {
    this(lockConfiguration, HadoopStorageLockProvider.hadoopConfiguration(storage), metrics);
  }

  private S3StorageLockProvider(LockConfiguration lockConfiguration, Configuration hadoop,
                                HoodieLockMetrics metrics) {
    super(lockConfiguration, metrics,
        (owner, lockFilePath, properties) -> new S3StorageLockClient(owner, lockFilePath, properties, hadoop));
  }

  @Override
  public String location() {
    S3StorageLockClient current = (S3StorageLockClient) client();
    return current == null ? "(no lock file)" : "s3://" + current.object();
  }
}
