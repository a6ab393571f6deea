package io.huditsd.config;

import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * The metadata indexes wanted on a table. The daemon builds those the table lacks with Hudi's asynchronous indexer
 * ({@code scheduleIndexing}, then {@code index}); it never drops one.
 *
 * @param kinds the wanted indexes
 * @param columnStatsColumns the columns of the column stats index; empty for Hudi's default
 */
public record MetadataIndexes(Set<MetadataIndexKind> kinds, List<String> columnStatsColumns) {
  public MetadataIndexes {
    kinds = kinds.isEmpty() ? Set.of() : Set.copyOf(EnumSet.copyOf(kinds));
    columnStatsColumns = List.copyOf(columnStatsColumns);
  }

  public static MetadataIndexes none() {
    return new MetadataIndexes(Set.of(), List.of());
  }

  public boolean isEmpty() {
    return kinds.isEmpty();
  }

  /** The metadata partitions of the wanted indexes. */
  public Set<String> partitionPaths() {
    return kinds.stream().map(MetadataIndexKind::partitionPath)
        .collect(Collectors.toCollection(LinkedHashSet::new));
  }

  /** Problems with an {@code indexes} section, each naming {@code where} and the index. Empty when all is well. */
  public static List<String> check(String where, Map<String, IndexOptions> indexes) {
    List<String> errors = new ArrayList<>();
    Set<MetadataIndexKind> kinds = EnumSet.noneOf(MetadataIndexKind.class);
    for (Map.Entry<String, IndexOptions> entry : indexes.entrySet()) {
      String name = entry.getKey();
      String reason = MetadataIndexKind.UNSUPPORTED.get(name.trim().toLowerCase(Locale.ROOT));
      if (reason != null) {
        errors.add(where + "." + name + ": cannot be built by hudi-tsd: " + reason);
        continue;
      }
      Optional<MetadataIndexKind> kind = MetadataIndexKind.fromConfigName(name);
      if (kind.isEmpty()) {
        errors.add(where + ": '" + name + "' is not a metadata index; expected one of "
            + MetadataIndexKind.allNames());
        continue;
      }
      kinds.add(kind.get());
      IndexOptions options = entry.getValue() == null ? IndexOptions.none() : entry.getValue();
      if (kind.get() != MetadataIndexKind.COLUMN_STATS && !options.columns().isEmpty()) {
        errors.add(where + "." + name + ".columns: only column_stats takes columns");
      }
      for (String column : options.columns()) {
        if (column == null || column.isBlank() || column.contains(",")) {
          errors.add(where + "." + name + ".columns: '" + column + "' is not a column name");
        }
      }
    }
    if (kinds.contains(MetadataIndexKind.PARTITION_STATS) && !kinds.contains(MetadataIndexKind.COLUMN_STATS)) {
      errors.add(where + ".partition_stats: needs column_stats as well (Hudi 1.2.0 builds and maintains partition "
          + "stats only with column stats on)");
    }
    return errors;
  }

  /** The indexes of a section {@link #check} accepted. */
  public static MetadataIndexes of(Map<String, IndexOptions> indexes) {
    List<String> errors = check("indexes", indexes);
    if (!errors.isEmpty()) {
      throw new IllegalArgumentException(String.join("; ", errors));
    }
    Set<MetadataIndexKind> kinds = EnumSet.noneOf(MetadataIndexKind.class);
    List<String> columns = List.of();
    for (Map.Entry<String, IndexOptions> entry : indexes.entrySet()) {
      MetadataIndexKind kind = MetadataIndexKind.fromConfigName(entry.getKey()).orElseThrow();
      kinds.add(kind);
      if (kind == MetadataIndexKind.COLUMN_STATS && entry.getValue() != null) {
        columns = entry.getValue().columns();
      }
    }
    return new MetadataIndexes(kinds, columns);
  }

  static Map<String, IndexOptions> copy(Map<String, IndexOptions> indexes) {
    Objects.requireNonNull(indexes, "indexes is null");
    Map<String, IndexOptions> copy = new TreeMap<>();
    indexes.forEach((name, options) -> copy.put(name, options == null ? IndexOptions.none() : options));
    return Collections.unmodifiableMap(copy);
  }
}
