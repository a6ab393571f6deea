package io.huditsd.lock;

import org.apache.hadoop.conf.Configuration;
import org.apache.hudi.client.transaction.lock.StorageBasedLockProvider;
import org.apache.hudi.client.transaction.lock.StorageLockClient;
import org.apache.hudi.client.transaction.lock.metrics.HoodieLockMetrics;
import org.apache.hudi.common.config.LockConfiguration;
import org.apache.hudi.storage.StorageConfiguration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Map;
import java.util.Objects;
import java.util.Properties;

/**
 * Hudi's storage-based table lock ({@code StorageBasedLockProvider}) on {@code s3} and {@code s3a} tables through
 * {@link S3StorageLockClient}: the same lock object, JSON and conditional writes as Hudi's {@code hudi-aws} S3
 * client, so the daemon and writers that use Hudi's provider with {@code hudi-aws} (or this class) exclude each
 * other. The S3 client is built from the S3A settings of the table's Hadoop configuration. Same keys as Hudi's:
 * {@code hoodie.write.lock.storage.validity.timeout.secs} (300), {@code hoodie.write.lock.storage.renew.interval.secs}
 * (30).
 *
 * <p>The lock excludes other processes only where the store honours conditional writes, which S3-compatible stores do
 * not all do: before its first acquisition the provider asks {@link ConditionalWriteProbe} (once per endpoint and
 * bucket and process), and on a store that ignores them it refuses, naming the ZooKeeper lock to configure instead.
 *
 * <p>Needs hadoop-aws 3.3.x and its AWS SDK v1 on the class path (the daemon has them; Spark 3.5 writers get them
 * with hadoop-aws 3.3.4). Fencing as {@link FencedStorageLockProvider}.
 */
public final class S3StorageLockProvider extends FencedStorageLockProvider {
  private static final Logger LOG = LoggerFactory.getLogger(S3StorageLockProvider.class);

  /** Set once the store is known to honour conditional writes; until then every acquisition asks. */
  private volatile boolean conditionalWritesHonoured;

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

  /**
   * Refuses, before the first acquisition, a store that ignores conditional writes; a store whose verdict is not
   * known yet (its probe failed) leaves the lock not acquired this time, as an unreadable lock file does.
   *
   * @throws DefaultTableLock.NoTableLockException when the store ignores conditional writes
   */
  @Override
  public synchronized boolean tryLock() {
    if (!conditionalWritesHonoured) {
      S3StorageLockClient current = (S3StorageLockClient) client();
      ConditionalWriteProbe.Result result = current.conditionalWrites();
      switch (result.verdict()) {
        case HONOURED -> conditionalWritesHonoured = true;
        case IGNORED -> throw new DefaultTableLock.NoTableLockException(
            ignored(current.store(), result, "the S3 storage lock " + location()));
        case UNKNOWN -> {
          LOG.warn("Not taking the S3 storage lock {}: {}", location(), unknown(current.store(), result));
          return false;
        }
      }
    }
    return super.tryLock();
  }

  /**
   * Refuses a table at {@code basePath} whose lock is this provider when its store ignores conditional writes, before
   * anything is planned with it: the verdict known in this process, else a probe in the table's lock folder with the
   * S3A settings of {@code hadoop}.
   *
   * @param keys the table's lock keys (the lease sets the probe's request timeout)
   * @throws DefaultTableLock.NoTableLockException when the store ignores conditional writes
   * @throws IllegalStateException when the probe failed; it runs again at the next call
   */
  public static void requireConditionalWrites(String basePath, Map<String, String> keys, Configuration hadoop) {
    Objects.requireNonNull(basePath, "basePath is null");
    Objects.requireNonNull(keys, "keys is null");
    Objects.requireNonNull(hadoop, "hadoop is null");
    String lockFile = StorageLockClient.getLockFolderPath(basePath) + "/"
        + StorageBasedLockProvider.DEFAULT_TABLE_LOCK_FILE_NAME;
    String bucket = StorageLockClient.parseBucketAndPath(lockFile).getLeft();
    ConditionalWriteProbe.Store store = new ConditionalWriteProbe.Store(S3Connection.endpoint(bucket, hadoop), bucket);
    ConditionalWriteProbe.Result result = ConditionalWriteProbe.known(store);
    if (result == null) {
      Properties properties = new Properties();
      properties.putAll(keys);
      S3StorageLockClient client = new S3StorageLockClient("conditional-write-probe", lockFile, properties, hadoop);
      try {
        result = client.conditionalWrites();
      } finally {
        client.close();
      }
    }
    switch (result.verdict()) {
      case HONOURED -> {
      }
      case IGNORED -> throw new DefaultTableLock.NoTableLockException(
          ignored(store, result, "the S3 storage lock of " + basePath));
      case UNKNOWN -> throw new IllegalStateException("Not taking the S3 storage lock of " + basePath + ": "
          + unknown(store, result));
    }
  }

  private static String ignored(ConditionalWriteProbe.Store store, ConditionalWriteProbe.Result result, String lock) {
    return store + " ignores If-None-Match/If-Match conditional writes (" + result.detail() + "), so " + lock
        + " cannot exclude other writers: two processes that both find it free both take it. Configure a ZooKeeper"
        + " lock for this table, the one its writers use: " + LockProviderCheck.LOCK_PROVIDER_KEY + "="
        + LockProviderCheck.ZOOKEEPER_PROVIDER + " with hoodie.write.lock.zookeeper.url and"
        + " hoodie.write.lock.zookeeper.base_path";
  }

  private static String unknown(ConditionalWriteProbe.Store store, ConditionalWriteProbe.Result result) {
    return "cannot tell whether " + store + " honours the conditional writes (If-None-Match, If-Match) the lock"
        + " relies on (" + result.detail() + "); probing again at the next use";
  }

  @Override
  public String location() {
    S3StorageLockClient current = (S3StorageLockClient) client();
    return current == null ? "(no lock file)" : "s3://" + current.object();
  }
}
