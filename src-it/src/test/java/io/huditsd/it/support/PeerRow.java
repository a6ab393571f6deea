package io.huditsd.it.support;

import io.huditsd.api.demo.SampleRow;

import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * A row of a table the Spark peer wrote, as Spark reads it back: the sample table's columns plus {@code note}, the
 * column a test adds midway (null in rows written before it existed). {@code deleted} is
 * {@code _hoodie_is_deleted}; a reader should never return a row with it set.
 */
public record PeerRow(String id, String partition, long ts, String name, long amount, boolean deleted, String note) {
  public PeerRow {
    Objects.requireNonNull(id, "id is null");
    Objects.requireNonNull(partition, "partition is null");
    Objects.requireNonNull(name, "name is null");
  }

  public static PeerRow of(SampleRow row, String note) {
    return new PeerRow(row.id(), row.partition(), row.ts(), row.name(), row.amount(), row.deleted(), note);
  }

  /**
   * Rows as Spark returned them (JSON objects), by record key. A key returned twice is a failure in itself (a
   * duplicate), reported with both rows; so is a row whose {@code _hoodie_record_key} is not its {@code id}.
   */
  public static Map<String, PeerRow> byKey(String what, List<Map<String, Object>> rows) {
    Map<String, PeerRow> byKey = new TreeMap<>();
    Map<String, Map<String, Object>> raw = new TreeMap<>();
    for (Map<String, Object> json : rows) {
      String key = (String) json.get("_hoodie_record_key");
      PeerRow row = new PeerRow((String) json.get("id"), (String) json.get("partition"), number(json, "ts"),
          (String) json.get("name"), number(json, "amount"), Boolean.TRUE.equals(json.get("_hoodie_is_deleted")),
          (String) json.get("note"));
      if (!row.id().equals(key)) {
        throw new AssertionError(what + ": record key " + key + " holds a row with id " + row.id() + ": " + json);
      }
      Map<String, Object> earlier = raw.putIfAbsent(key, json);
      if (earlier != null) {
        throw new AssertionError(what + ": record key " + key + " is read twice:\n  " + earlier + "\n  " + json);
      }
      byKey.put(key, row);
    }
    return byKey;
  }

  private static long number(Map<String, Object> json, String field) {
    Object value = json.get(field);
    if (!(value instanceof Number number)) {
      throw new AssertionError("field " + field + " is not a number in a row read: " + json);
    }
    return number.longValue();
  }
}
