package io.huditsd.lock;

import java.util.HashMap;
import java.util.Map;

/** Puts {@link MeteredLockProvider} in front of whatever lock provider a table's keys name. */
public final class MeteredLocks {
  private MeteredLocks() {
  }

  /**
   * The same keys with {@code hoodie.write.lock.provider} replaced by the metered provider, which delegates to the
   * original. Keys without a provider are returned unchanged (the daemon's default applies later).
   */
  public static Map<String, String> wrap(String tableId, Map<String, String> keys, String defaultProvider) {
    Map<String, String> wrapped = new HashMap<>(keys);
    String provider = keys.getOrDefault(LockProviderCheck.LOCK_PROVIDER_KEY, defaultProvider);
    if (provider.equals(MeteredLockProvider.class.getName())) {
      return wrapped;
    }
    wrapped.put(MeteredLockProvider.DELEGATE_KEY, provider);
    wrapped.put(MeteredLockProvider.TABLE_KEY, tableId);
    wrapped.put(LockProviderCheck.LOCK_PROVIDER_KEY, MeteredLockProvider.class.getName());
    return wrapped;
  }
}
