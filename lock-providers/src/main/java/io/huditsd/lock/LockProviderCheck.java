package io.huditsd.lock;

import org.apache.hudi.common.lock.LockProvider;
import org.apache.hudi.storage.StorageSchemes;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Checks, before any table is touched, that the lock provider a table is configured with can be loaded: a
 * misspelt class name would otherwise surface only when the first plan is scheduled, as a Hudi stack trace. Also
 * refuses a table that names no lock on a store without a default one ({@link DefaultTableLock}) and
 * {@code SINGLE_WRITER} mode, and warns of an explicit {@code InProcessLockProvider}.
 */
public final class LockProviderCheck {
  public static final String LOCK_PROVIDER_KEY = "hoodie.write.lock.provider";
  public static final String ZOOKEEPER_PROVIDER = "org.apache.hudi.client.transaction.lock.ZookeeperBasedLockProvider";
  public static final String STORAGE_PROVIDER = "org.apache.hudi.client.transaction.lock.StorageBasedLockProvider";
  public static final String CONCURRENCY_MODE_KEY = "hoodie.write.concurrency.mode";
  private static final List<String> ZOOKEEPER_REQUIRED = List.of("hoodie.write.lock.zookeeper.url",
      "hoodie.write.lock.zookeeper.base_path");

  private LockProviderCheck() {
  }

  /**
   * As {@link #check(String, Map)}, and whether the storage-based lock can serve a table at {@code basePath}: the
   * daemon has clients for {@code file}, {@code hdfs}, {@code s3} and {@code s3a}; other schemes need Hudi's client
   * for that store on the class path (hudi-gcp and hudi-azure are not published for Hudi 1.2.x).
   */
  public static List<String> check(String where, Map<String, String> keys, String basePath) {
    List<String> errors = check(where, keys);
    String provider = keys.getOrDefault(LOCK_PROVIDER_KEY, "").trim();
    Optional<String> daemonStorageLock = MeteredLocks.storageLockProvider(basePath);
    if (provider.isEmpty() && daemonStorageLock.isEmpty()) {
      errors.add(where + ": " + DefaultTableLock.missing(basePath));
    } else if (provider.equals(STORAGE_PROVIDER) && daemonStorageLock.isEmpty()) {
      String scheme = MeteredLocks.scheme(basePath);
      Optional<StorageSchemes> storage = Arrays.stream(StorageSchemes.values())
          .filter(candidate -> candidate.getScheme().equals(scheme) && candidate.implementsStorageLock())
          .findFirst();
      String client = storage.map(StorageSchemes::getStorageLockClass).orElse(null);
      if (client == null) {
        errors.add(where + ": " + STORAGE_PROVIDER + " has no lock client for scheme '" + scheme + "' of "
            + basePath);
      } else {
        try {
          Class.forName(client, false, LockProviderCheck.class.getClassLoader());
        } catch (ClassNotFoundException | LinkageError e) {
          errors.add(where + ": " + STORAGE_PROVIDER + " needs " + client + " for " + basePath
              + ", which is not on the class path");
        }
      }
    } else if (provider.equals(HadoopStorageLockProvider.class.getName())
        && !daemonStorageLock.equals(Optional.of(provider))) {
      errors.add(where + ": " + provider + " supports file and hdfs tables only, not " + basePath);
    } else if (provider.equals(S3StorageLockProvider.class.getName())
        && !daemonStorageLock.equals(Optional.of(provider))) {
      errors.add(where + ": " + provider + " supports s3 and s3a tables only, not " + basePath);
    }
    return errors;
  }

  /** Problems with the lock settings in {@code keys}, each naming {@code where}; empty when all is well. */
  public static List<String> check(String where, Map<String, String> keys) {
    List<String> errors = new ArrayList<>();
    String mode = keys.getOrDefault(CONCURRENCY_MODE_KEY, "").trim();
    if (mode.equalsIgnoreCase("SINGLE_WRITER")) {
      // Hudi then takes no table lock around scheduling and commits (and swaps any configured provider for
      // InProcessLockProvider), so a daemon and its writers or a second daemon would plan the same file groups.
      errors.add(where + ": " + CONCURRENCY_MODE_KEY + "=" + mode + " takes no table lock, but the daemon is always"
          + " a second process on the table; leave the key unset (the daemon uses OPTIMISTIC_CONCURRENCY_CONTROL)"
          + " or set OPTIMISTIC_CONCURRENCY_CONTROL or NON_BLOCKING_CONCURRENCY_CONTROL");
    }
    Optional<String> provider = Optional.ofNullable(keys.get(LOCK_PROVIDER_KEY)).map(String::trim);
    if (provider.isEmpty()) {
      return errors;
    }
    String className = provider.get();
    try {
      Class<?> type = Class.forName(className, false, LockProviderCheck.class.getClassLoader());
      if (!LockProvider.class.isAssignableFrom(type)) {
        errors.add(where + ": " + LOCK_PROVIDER_KEY + " '" + className + "' does not implement "
            + LockProvider.class.getName());
      }
    } catch (ClassNotFoundException | LinkageError e) {
      errors.add(where + ": " + LOCK_PROVIDER_KEY + " '" + className + "' cannot be loaded ("
          + e.getClass().getSimpleName() + ")");
    }
    if (ZOOKEEPER_PROVIDER.equals(className) || ZookeeperFencedLockProvider.class.getName().equals(className)) {
      for (String required : ZOOKEEPER_REQUIRED) {
        if (!keys.containsKey(required)) {
          errors.add(where + ": " + required + " is required with " + className);
        }
      }
    }
    return errors;
  }

  /**
   * Lock settings that are allowed but unsafe, each naming {@code where}: an explicit {@code InProcessLockProvider}
   * excludes only threads of this JVM (tests, or the demo's writer inside the daemon), not a writer or a second
   * daemon process on the same table.
   */
  public static List<String> warnings(String where, Map<String, String> keys) {
    String provider = keys.getOrDefault(LOCK_PROVIDER_KEY, "").trim();
    if (!provider.equals(DefaultTableLock.IN_PROCESS_PROVIDER)) {
      return List.of();
    }
    return List.of(where + ": " + LOCK_PROVIDER_KEY + "=" + provider + " excludes only threads of this process:"
        + " a writer or another daemon process (an overlapping once, a server beside a once) on the same table is"
        + " not excluded, and both may plan the same file groups. Use it only for tests and single-process setups;"
        + " leave " + LOCK_PROVIDER_KEY + " unset on file, hdfs, s3 and s3a tables for the daemon's storage lock");
  }
}
