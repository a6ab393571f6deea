package io.huditsd.lock;

import org.apache.hadoop.conf.Configuration;

import java.net.URI;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * Puts {@link MeteredLockProvider} in front of the lock provider a table's keys name, after replacing Hudi's
 * providers that the daemon has a fenced equivalent of (same lock, see {@link #daemonProvider}).
 */
public final class MeteredLocks {
  private MeteredLocks() {
  }

  /**
   * The same keys with {@code hoodie.write.lock.provider} replaced by the metered provider, which delegates to
   * {@link #daemonProvider} of the configured one ({@link DefaultTableLock} when none is configured).
   *
   * @throws DefaultTableLock.NoTableLockException when no lock is configured and the table's store has no default
   */
  public static Map<String, String> wrap(String tableId, String basePath, Map<String, String> keys) {
    Map<String, String> withLock = DefaultTableLock.apply(basePath, keys);
    Map<String, String> wrapped = new HashMap<>(withLock);
    String provider = withLock.get(LockProviderCheck.LOCK_PROVIDER_KEY).trim();
    if (provider.equals(MeteredLockProvider.class.getName())) {
      return wrapped;
    }
    wrapped.put(MeteredLockProvider.DELEGATE_KEY, daemonProvider(provider, basePath));
    wrapped.put(MeteredLockProvider.TABLE_KEY, tableId);
    wrapped.put(LockProviderCheck.LOCK_PROVIDER_KEY, MeteredLockProvider.class.getName());
    return wrapped;
  }

  /**
   * As {@link #wrap(String, String, Map)}, and refuses the table when its lock is {@link S3StorageLockProvider} on a
   * store that ignores conditional writes ({@link S3StorageLockProvider#requireConditionalWrites}, with the S3A
   * settings of {@code hadoop}; the verdict is kept per store, so this probes once per endpoint and bucket).
   *
   * @throws DefaultTableLock.NoTableLockException when no lock is configured and the table's store has no default,
   *     or when the table's S3 storage lock cannot exclude other processes
   * @throws IllegalStateException when whether the store honours conditional writes could not be found out
   */
  public static Map<String, String> wrap(String tableId, String basePath, Map<String, String> keys,
                                         Configuration hadoop) {
    Map<String, String> wrapped = wrap(tableId, basePath, keys);
    if (S3StorageLockProvider.class.getName().equals(wrapped.get(MeteredLockProvider.DELEGATE_KEY))) {
      S3StorageLockProvider.requireConditionalWrites(basePath, wrapped, hadoop);
    }
    return wrapped;
  }

  /**
   * The provider the daemon uses for a table whose writers use {@code configured}: Hudi's ZooKeeper provider becomes
   * {@link ZookeeperFencedLockProvider} (same znode), Hudi's storage-based provider becomes the daemon's fenced one
   * for the table's store ({@link #storageLockProvider}): {@link HadoopStorageLockProvider} on {@code file} and
   * {@code hdfs} (same lock file format; Hudi's has no client for these schemes), {@link S3StorageLockProvider} on
   * {@code s3} and {@code s3a} (same lock object as Hudi's {@code hudi-aws} client). Any other provider is used as
   * configured.
   */
  public static String daemonProvider(String configured, String basePath) {
    if (configured.equals(LockProviderCheck.ZOOKEEPER_PROVIDER)) {
      return ZookeeperFencedLockProvider.class.getName();
    }
    if (configured.equals(LockProviderCheck.STORAGE_PROVIDER)) {
      return storageLockProvider(basePath).orElse(configured);
    }
    return configured;
  }

  /**
   * The daemon's storage lock provider for a table at {@code basePath}: {@link HadoopStorageLockProvider} on
   * {@code file} and {@code hdfs} (no scheme: local), {@link S3StorageLockProvider} on {@code s3} and {@code s3a};
   * empty on other stores.
   */
  static Optional<String> storageLockProvider(String basePath) {
    String scheme = scheme(basePath);
    if (scheme == null || scheme.equals("file") || scheme.equals("hdfs")) {
      return Optional.of(HadoopStorageLockProvider.class.getName());
    }
    if (scheme.equals("s3") || scheme.equals("s3a")) {
      return Optional.of(S3StorageLockProvider.class.getName());
    }
    return Optional.empty();
  }

  static String scheme(String basePath) {
    return URI.create(basePath.replace(" ", "%20")).getScheme();
  }
}
