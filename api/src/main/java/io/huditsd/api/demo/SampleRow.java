package io.huditsd.api.demo;

import java.util.Objects;

/**
 * A row of the sample table. {@code ts} is the ordering field: of two versions of a key, the higher {@code ts}
 * wins, whatever order they arrive in. {@code deleted} marks a delete that obeys the same ordering.
 */
public record SampleRow(String id, String partition, long ts, String name, long amount, boolean deleted) {
  public SampleRow {
    Objects.requireNonNull(id, "id is null");
    Objects.requireNonNull(partition, "partition is null");
    Objects.requireNonNull(name, "name is null");
  }

  public static SampleRow of(String id, String partition, long ts, String name, long amount) {
    return new SampleRow(id, partition, ts, name, amount, false);
  }

  public SampleRow asDelete(long deleteTs) {
    return new SampleRow(id, partition, deleteTs, name, amount, true);
  }
}
