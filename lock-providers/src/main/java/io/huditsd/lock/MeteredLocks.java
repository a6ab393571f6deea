package io.huditsd.lock;

import java.net.URI;
import java.util.HashMap;
import java.util.Map;

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
   * The provider the daemon uses for a table whose writers use {@code configured}: Hudi's ZooKeeper provider becomes
   * {@link ZookeeperFencedLockProvider} (same znode), Hudi's storage-based provider on a {@code file} or
   * {@code hdfs} table becomes {@link HadoopStorageLockProvider} (same lock file format; Hudi's has no client for
   * these schemes). Any other provider is used as configured.
   */
  public static String daemonProvider(String configured, String basePath) {
    if (configured.equals(LockProviderCheck.ZOOKEEPER_PROVIDER)) {
      return ZookeeperFencedLockProvider.class.getName();
    }
    if (configured.equals(LockProviderCheck.STORAGE_PROVIDER) && atomicCreateScheme(basePath)) {
      return HadoopStorageLockProvider.class.getName();
    }
    return configured;
  }

  /** Whether the table lives on a file system {@link HadoopStorageLockClient} supports (no scheme: local). */
  static boolean atomicCreateScheme(String basePath) {
    String scheme = URI.create(basePath.replace(" ", "%20")).getScheme();
    return scheme == null || scheme.equals("file") || scheme.equals("hdfs");
  }
}
