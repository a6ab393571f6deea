package io.huditsd.config;

import java.util.Collections;
import java.util.Map;
import java.util.TreeMap;

/** How the configuration holds a {@code hoodie} map. */
final class HoodieKeys {
  private HoodieKeys() {
  }

  /**
   * An unmodifiable copy sorted by key, so that errors and effective keys are listed in a stable order. A key
   * without a value (YAML {@code hoodie.x:}) is kept as {@code null} so that {@link HoodieKeyRules} can name it;
   * {@link Map#copyOf} would fail with a bare NullPointerException instead.
   */
  static Map<String, String> sortedCopy(Map<String, String> hoodie) {
    return hoodie == null ? Map.of() : Collections.unmodifiableMap(new TreeMap<>(hoodie));
  }
}
