package io.huditsd.lock;

import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The table lock the daemon takes when neither its configuration nor the writers' {@code hudi-defaults.conf} names
 * one. A table-services process is by definition a second process on the table, so the default must exclude other
 * processes: Hudi's {@code InProcessLockProvider} excludes only threads of one JVM, and two daemon processes (two
 * overlapping {@code once} runs, a {@code server} and a {@code once}) with it both schedule a compaction over the same
 * file groups. The default is the storage lock the table's store supports ({@link HadoopStorageLockProvider} on
 * {@code file} and {@code hdfs}, {@link S3StorageLockProvider} on {@code s3} and {@code s3a}); where there is none,
 * the daemon refuses the table and names the keys to set.
 */
public final class DefaultTableLock {
  public static final String IN_PROCESS_PROVIDER = "org.apache.hudi.client.transaction.lock.InProcessLockProvider";

  private DefaultTableLock() {
  }

  /** The provider a table at {@code basePath} gets by default; empty where the daemon has no cross-process lock. */
  public static Optional<String> forBasePath(String basePath) {
    return MeteredLocks.storageLockProvider(basePath);
  }

  /**
   * {@code keys} with {@code hoodie.write.lock.provider} set to {@link #forBasePath} when they name none.
   *
   * @throws NoTableLockException when they name none and the table's store has no default lock
   */
  public static Map<String, String> apply(String basePath, Map<String, String> keys) {
    if (configured(keys)) {
      return keys;
    }
    String provider = forBasePath(basePath).orElseThrow(() -> new NoTableLockException(missing(basePath)));
    Map<String, String> withDefault = new HashMap<>(keys);
    withDefault.put(LockProviderCheck.LOCK_PROVIDER_KEY, provider);
    return withDefault;
  }

  /** Whether {@code keys} name a lock provider. */
  public static boolean configured(Map<String, String> keys) {
    String provider = keys.get(LockProviderCheck.LOCK_PROVIDER_KEY);
    return provider != null && !provider.isBlank();
  }

  /** Why a table at {@code basePath} with no lock configured cannot be serviced, and which keys to set. */
  public static String missing(String basePath) {
    return "no table lock is configured for " + basePath + ", and the daemon has no cross-process lock of its own"
        + " for this store (its storage locks support file, hdfs, s3 and s3a tables): set "
        + LockProviderCheck.LOCK_PROVIDER_KEY + " to the lock your writers use, e.g. " + LockProviderCheck.ZOOKEEPER_PROVIDER
        + " with hoodie.write.lock.zookeeper.url and hoodie.write.lock.zookeeper.base_path";
  }

  /**
   * A table the daemon has no lock for that excludes other processes: none configured on a store the daemon has no
   * default lock for, or the S3 storage lock on a store that ignores conditional writes.
   */
  public static final class NoTableLockException extends IllegalStateException {
    public NoTableLockException(String message) {
      super(message);
    }
  }
}
