package io.huditsd.it.support;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

import static org.assertj.core.api.Assertions.fail;

/**
 * Compares two row sets key by key. A failure lists the differing keys with what was expected and what was found,
 * because "expected 600 rows but was 598" says nothing about which rows went wrong. Rows are compared with
 * {@code equals} and shown with {@code toString}, so any record type serves.
 */
public final class RowDiff {
  private static final int SHOWN = 25;

  private RowDiff() {
  }

  /** One line per differing key, in key order. */
  public static <R> List<String> differences(Map<String, R> expected, Map<String, R> found) {
    TreeSet<String> keys = new TreeSet<>(expected.keySet());
    keys.addAll(found.keySet());
    List<String> differences = new ArrayList<>();
    for (String key : keys) {
      R want = expected.get(key);
      R got = found.get(key);
      if (want == null) {
        differences.add("key " + key + ": expected <absent>, found " + got);
      } else if (got == null) {
        differences.add("key " + key + ": expected " + want + ", found <absent>");
      } else if (!want.equals(got)) {
        differences.add("key " + key + ": expected " + want + ", found " + got);
      }
    }
    return differences;
  }

  /** Fails naming {@code what} and the first differing keys unless both row sets are equal. */
  public static <R> void assertSameRows(String what, Map<String, R> expected, Map<String, R> found) {
    List<String> differences = differences(expected, found);
    if (differences.isEmpty()) {
      return;
    }
    StringBuilder message = new StringBuilder()
        .append(what).append(": ").append(differences.size()).append(" key(s) differ (expected ")
        .append(expected.size()).append(" rows, found ").append(found.size()).append(")");
    differences.stream().limit(SHOWN).forEach(line -> message.append("\n  ").append(line));
    if (differences.size() > SHOWN) {
      message.append("\n  ... and ").append(differences.size() - SHOWN).append(" more");
    }
    fail(message.toString());
  }
}
