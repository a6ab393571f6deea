package io.huditsd.config;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;

import java.util.Optional;

/**
 * The bounded history of finished runs shown by {@code GET /runs}.
 *
 * @param file a JSON-lines file the history is kept in so it survives a restart; in memory only when absent
 * @param size how many finished runs are kept
 */
public record HistoryConfig(Optional<String> file, int size) {
  public static final int SIZE_DEFAULT = 1000;

  @JsonCreator
  public static HistoryConfig create(@JsonProperty("file") String file, @JsonProperty("size") Integer size) {
    return new HistoryConfig(Optional.ofNullable(file), size == null ? SIZE_DEFAULT : size);
  }

  public HistoryConfig {
    if (size < 1 || size > 1_000_000) {
      throw new IllegalArgumentException("size must be between 1 and 1000000, got " + size);
    }
  }

  public static HistoryConfig defaults() {
    return create(null, null);
  }
}
