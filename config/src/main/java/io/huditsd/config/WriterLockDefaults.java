package io.huditsd.config;

import org.apache.hudi.common.config.DFSPropertiesConfiguration;

import java.util.Map;
import java.util.TreeMap;

/**
 * The table lock the writers use when the daemon's configuration names none: the {@code hoodie.write.lock.*} keys of
 * Hudi's {@code hudi-defaults.conf} (in {@code $HUDI_CONF_DIR}, else {@code /etc/hudi/conf}), the file Hudi's Spark,
 * Flink and streamer writers read their defaults from. Keys in the daemon's configuration win over them.
 */
public final class WriterLockDefaults {
  private static final String LOCK_PREFIX = "hoodie.write.lock.";

  private WriterLockDefaults() {
  }

  /** The lock keys of {@code hudi-defaults.conf}; empty when there is no such file or it names no lock. */
  public static Map<String, String> keys() {
    Map<String, String> keys = new TreeMap<>();
    try {
      DFSPropertiesConfiguration.getGlobalProps().forEach((key, value) -> {
        if (key.toString().startsWith(LOCK_PREFIX)) {
          keys.put(key.toString(), value.toString());
        }
      });
    } catch (RuntimeException e) {
      // An unreadable defaults file is Hudi's writers' problem too; the daemon's own keys still apply.
      return Map.of();
    }
    return keys;
  }
}
