package io.huditsd.it.support;

import io.huditsd.api.demo.SampleRow;

import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The rows a sample table must hold after a sequence of writes, computed without Hudi. The table merges with
 * EVENT_TIME_ORDERING on {@code ts}: of two versions of a key the higher {@code ts} wins whatever order they arrive
 * in, and a delete with a higher {@code ts} removes the key.
 *
 * <p>Inputs whose outcome Hudi does not define are refused rather than guessed, so a test cannot pass by accident of
 * the model: two versions of a key with the same {@code ts}, a key moving to another partition (the index is not
 * global), and a write older than a delete of its key (it loses while the delete sits in a log file, and wins once
 * compaction dropped the delete).
 */
public final class ExpectedRows {
  /** The winning version of every key written, deletes included. */
  private final Map<String, SampleRow> winners = new TreeMap<>();

  /** Applies one commit's rows; a key may appear once per commit. */
  public ExpectedRows apply(List<SampleRow> batch) {
    Set<String> keys = new HashSet<>();
    for (SampleRow row : batch) {
      if (!keys.add(row.id())) {
        throw new IllegalArgumentException("key " + row.id() + " appears twice in one batch");
      }
    }
    for (SampleRow row : batch) {
      SampleRow current = winners.get(row.id());
      if (current == null) {
        winners.put(row.id(), row);
        continue;
      }
      if (!current.partition().equals(row.partition())) {
        throw new IllegalArgumentException("key " + row.id() + " moves from partition " + current.partition()
            + " to " + row.partition() + "; the table's index is not global");
      }
      if (current.ts() == row.ts()) {
        throw new IllegalArgumentException("key " + row.id() + " written twice with ts " + row.ts()
            + "; which one wins is not defined by event-time ordering");
      }
      if (current.deleted() && row.ts() < current.ts()) {
        throw new IllegalArgumentException("key " + row.id() + " written with ts " + row.ts()
            + " after a delete with ts " + current.ts() + "; the outcome depends on whether compaction ran");
      }
      if (row.ts() > current.ts()) {
        winners.put(row.id(), row);
      }
    }
    return this;
  }

  /** The live rows by record key: every key whose winning version is not a delete. */
  public Map<String, SampleRow> rows() {
    Map<String, SampleRow> rows = new TreeMap<>();
    winners.forEach((key, row) -> {
      if (!row.deleted()) {
        rows.put(key, row);
      }
    });
    return rows;
  }
}
