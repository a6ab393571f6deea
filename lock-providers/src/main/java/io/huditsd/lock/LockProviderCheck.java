package io.huditsd.lock;

import org.apache.hudi.common.lock.LockProvider;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Checks, before any table is touched, that the lock provider a table is configured with can be loaded: a
 * misspelt class name would otherwise surface only when the first plan is scheduled, as a Hudi stack trace.
 */
public final class LockProviderCheck {
  public static final String LOCK_PROVIDER_KEY = "hoodie.write.lock.provider";
  public static final String ZOOKEEPER_PROVIDER = "org.apache.hudi.client.transaction.lock.ZookeeperBasedLockProvider";
  private static final List<String> ZOOKEEPER_REQUIRED = List.of("hoodie.write.lock.zookeeper.url",
      "hoodie.write.lock.zookeeper.base_path");

  private LockProviderCheck() {
  }

  /** Problems with the lock settings in {@code keys}, each naming {@code where}; empty when all is well. */
  public static List<String> check(String where, Map<String, String> keys) {
    List<String> errors = new ArrayList<>();
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
    if (ZOOKEEPER_PROVIDER.equals(className)) {
      for (String required : ZOOKEEPER_REQUIRED) {
        if (!keys.containsKey(required)) {
          errors.add(where + ": " + required + " is required with " + className);
        }
      }
    }
    return errors;
  }
}
