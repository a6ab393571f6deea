package io.huditsd.config;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;
import io.dropwizard.util.Duration;

import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Discovery roots: every directory under a root that holds {@code .hoodie/hoodie.properties} is serviced.
 *
 * @param roots directories (local paths or Hadoop URIs) to scan
 * @param interval how often the roots are re-scanned; new tables are added, and a table that two complete
 *     scans in a row no longer find is dropped
 * @param maxDepth how many directory levels below a root are searched for tables (a table's own subtree is never
 *     descended into)
 * @param hoodie {@code hoodie.*} keys applied to every discovered table, over the global ones
 * @param indexes metadata indexes wanted on every discovered table; the global {@code indexes} when absent
 */
public record DiscoveryConfig(List<String> roots, Duration interval, int maxDepth, Map<String, String> hoodie,
                              Optional<Map<String, IndexOptions>> indexes) {
  public static final Duration INTERVAL_DEFAULT = Duration.minutes(5);
  public static final int MAX_DEPTH_DEFAULT = 3;

  @JsonCreator
  public static DiscoveryConfig create(@JsonProperty("roots") List<String> roots,
                                       @JsonProperty("interval") Duration interval,
                                       @JsonProperty("maxDepth") Integer maxDepth,
                                       @JsonProperty("hoodie") Map<String, String> hoodie,
                                       @JsonProperty("indexes") Map<String, IndexOptions> indexes) {
    return new DiscoveryConfig(roots == null ? List.of() : roots,
        interval == null ? INTERVAL_DEFAULT : interval,
        maxDepth == null ? MAX_DEPTH_DEFAULT : maxDepth,
        hoodie == null ? Map.of() : hoodie,
        Optional.ofNullable(indexes));
  }

  public DiscoveryConfig(List<String> roots, Duration interval, int maxDepth, Map<String, String> hoodie) {
    this(roots, interval, maxDepth, hoodie, Optional.empty());
  }

  public DiscoveryConfig {
    roots = List.copyOf(roots);
    for (String root : roots) {
      if (root == null || root.isBlank()) {
        throw new IllegalArgumentException("roots must not contain empty entries");
      }
    }
    if (interval.toMilliseconds() <= 0) {
      throw new IllegalArgumentException("interval must be positive, got " + interval);
    }
    if (maxDepth < 1 || maxDepth > 10) {
      throw new IllegalArgumentException("maxDepth must be between 1 and 10, got " + maxDepth);
    }
    hoodie = HoodieKeys.sortedCopy(hoodie);
    indexes = indexes.map(MetadataIndexes::copy);
  }

  public static DiscoveryConfig none() {
    return create(null, null, null, null, null);
  }
}
