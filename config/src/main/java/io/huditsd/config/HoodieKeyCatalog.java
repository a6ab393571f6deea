package io.huditsd.config;

import org.apache.hudi.common.config.ConfigProperty;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * Every {@code hoodie.*} key that Hudi's own config classes declare, so that a misspelt key is an error at start
 * rather than a silently ignored setting, with the values each declared key takes where its declaration tells
 * ({@link HoodieValueRule}).
 */
public final class HoodieKeyCatalog {
  /** Hudi's config classes whose {@link ConfigProperty} constants a write config can read. */
  private static final List<String> CONFIG_CLASSES = List.of(
      "org.apache.hudi.common.config.HoodieCommonConfig",
      "org.apache.hudi.common.config.HoodieIndexingConfig",
      "org.apache.hudi.common.config.HoodieMemoryConfig",
      "org.apache.hudi.common.config.HoodieMetadataConfig",
      "org.apache.hudi.common.config.HoodieReaderConfig",
      "org.apache.hudi.common.config.HoodieStorageConfig",
      "org.apache.hudi.common.config.HoodieTableServiceManagerConfig",
      "org.apache.hudi.common.config.HoodieTimeGeneratorConfig",
      "org.apache.hudi.common.config.TimestampKeyGeneratorConfig",
      "org.apache.hudi.common.fs.ConsistencyGuardConfig",
      "org.apache.hudi.common.fs.FileSystemRetryConfig",
      "org.apache.hudi.common.table.HoodieTableConfig",
      "org.apache.hudi.common.table.view.FileSystemViewStorageConfig",
      "org.apache.hudi.config.HoodieArchivalConfig",
      "org.apache.hudi.config.HoodieCleanConfig",
      "org.apache.hudi.config.HoodieClusteringConfig",
      "org.apache.hudi.config.HoodieCompactionConfig",
      "org.apache.hudi.config.HoodieIndexConfig",
      "org.apache.hudi.config.HoodieLayoutConfig",
      "org.apache.hudi.config.HoodieLockConfig",
      "org.apache.hudi.config.HoodiePayloadConfig",
      "org.apache.hudi.config.HoodiePreCommitValidatorConfig",
      "org.apache.hudi.config.HoodieTTLConfig",
      "org.apache.hudi.config.HoodieWriteCommitCallbackConfig",
      "org.apache.hudi.config.HoodieWriteConfig",
      "org.apache.hudi.config.StorageBasedLockConfig",
      "org.apache.hudi.config.metrics.HoodieMetricsConfig",
      "org.apache.hudi.config.metrics.HoodieMetricsPrometheusConfig",
      "org.apache.hudi.keygen.constant.KeyGeneratorOptions");

  /**
   * Namespaces whose keys are read by pluggable classes (lock providers, plan strategies, payloads) rather than
   * declared as constants, so any key under them is accepted.
   */
  private static final List<String> OPEN_PREFIXES = List.of(
      "hoodie.write.lock.",
      "hoodie.clustering.plan.strategy.",
      "hoodie.compaction.strategy.",
      "hoodie.payload.",
      "hoodie.datasource.write.");

  private static final HoodieKeyCatalog INSTANCE = load();

  private final Set<String> keys;
  private final Map<String, HoodieValueRule> valueRules;

  private HoodieKeyCatalog(Set<String> keys, Map<String, HoodieValueRule> valueRules) {
    this.keys = Set.copyOf(keys);
    this.valueRules = Map.copyOf(valueRules);
  }

  public static HoodieKeyCatalog instance() {
    return INSTANCE;
  }

  public boolean isKnown(String key) {
    return keys.contains(key) || OPEN_PREFIXES.stream().anyMatch(key::startsWith);
  }

  /** The values Hudi can read for {@code key}; empty for keys whose declaration does not tell (free-form strings). */
  public Optional<HoodieValueRule> valueRule(String key) {
    return Optional.ofNullable(valueRules.get(key));
  }

  /** The declared key closest to {@code key} by edit distance, if one is close enough to be a likely typo. */
  public Optional<String> closest(String key) {
    int budget = Math.max(2, key.length() / 6);
    return keys.stream()
        .map(candidate -> new Scored(candidate, editDistance(key, candidate, budget + 1)))
        .filter(scored -> scored.distance() <= budget)
        .min(Comparator.comparingInt(Scored::distance).thenComparing(Scored::key))
        .map(Scored::key);
  }

  public int size() {
    return keys.size();
  }

  private record Scored(String key, int distance) {
  }

  private static HoodieKeyCatalog load() {
    Set<String> keys = new TreeSet<>();
    Map<String, HoodieValueRule> valueRules = new HashMap<>();
    for (String className : CONFIG_CLASSES) {
      Class<?> type;
      try {
        type = Class.forName(className, false, HoodieKeyCatalog.class.getClassLoader());
      } catch (ClassNotFoundException | LinkageError e) {
        // A config class missing from this Hudi build declares no keys we could pass on anyway.
        continue;
      }
      for (Field field : type.getFields()) {
        if (Modifier.isStatic(field.getModifiers()) && ConfigProperty.class.isAssignableFrom(field.getType())) {
          try {
            ConfigProperty<?> property = (ConfigProperty<?>) field.get(null);
            keys.add(property.key());
            keys.addAll(property.getAlternatives());
            HoodieValueRule.of(property).ifPresent(rule -> {
              valueRules.putIfAbsent(property.key(), rule);
              property.getAlternatives().forEach(alternative -> valueRules.putIfAbsent(alternative, rule));
            });
          } catch (IllegalAccessException | LinkageError e) {
            // not readable: not a key a user can set through us
          }
        }
      }
    }
    return new HoodieKeyCatalog(keys, valueRules);
  }

  /** Levenshtein distance, giving up early once it exceeds {@code limit}. */
  static int editDistance(String a, String b, int limit) {
    if (Math.abs(a.length() - b.length()) > limit) {
      return limit + 1;
    }
    int[] previous = new int[b.length() + 1];
    int[] current = new int[b.length() + 1];
    for (int j = 0; j <= b.length(); j++) {
      previous[j] = j;
    }
    for (int i = 1; i <= a.length(); i++) {
      current[0] = i;
      int rowMinimum = current[0];
      for (int j = 1; j <= b.length(); j++) {
        int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
        current[j] = Math.min(Math.min(current[j - 1] + 1, previous[j] + 1), previous[j - 1] + cost);
        rowMinimum = Math.min(rowMinimum, current[j]);
      }
      if (rowMinimum > limit) {
        return limit + 1;
      }
      int[] swap = previous;
      previous = current;
      current = swap;
    }
    return previous[b.length()];
  }
}
