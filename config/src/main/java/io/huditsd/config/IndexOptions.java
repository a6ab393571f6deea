package io.huditsd.config;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;

import java.util.List;

/**
 * Options of one wanted metadata index in {@code tsd.yml} ({@code indexes: {column_stats: {columns: [a, b]}}}).
 *
 * @param columns for {@code column_stats}: the columns to index ({@code hoodie.metadata.index.column.stats.column.list});
 *     empty means Hudi's default (every supported column, up to {@code hoodie.metadata.index.column.stats.max.columns.to.index})
 */
public record IndexOptions(List<String> columns) {
  @JsonCreator
  public static IndexOptions create(@JsonProperty("columns") List<String> columns) {
    return new IndexOptions(columns == null ? List.of() : columns);
  }

  public IndexOptions {
    columns = List.copyOf(columns);
  }

  public static IndexOptions none() {
    return new IndexOptions(List.of());
  }
}
