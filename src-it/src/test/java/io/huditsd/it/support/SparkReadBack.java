package io.huditsd.it.support;

import io.huditsd.api.demo.SampleRow;

import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;

/** What Spark (the official Hudi bundle on the peer) reads back from a table the daemon serviced, against a model. */
public final class SparkReadBack {
  private SparkReadBack() {
  }

  /**
   * Spark's snapshot and read-optimized queries of {@code basePath} each return exactly {@code expected}: no key
   * missing, none twice, no value different. Read-optimized equals the model only where every file slice is
   * compacted (a copy-on-write table, or a MOR table right after a compaction of every file group).
   */
  public static void assertEqualsModel(SparkPeer spark, String basePath, Map<String, SampleRow> expected,
                                       String when) {
    Map<String, PeerRow> model = expected.entrySet().stream()
        .collect(Collectors.toMap(Map.Entry::getKey, entry -> PeerRow.of(entry.getValue(), null), (a, b) -> a,
            TreeMap::new));
    for (String queryType : new String[] {"snapshot", "read_optimized"}) {
      RowDiff.assertSameRows("Spark " + queryType + " " + when, model, PeerRow.byKey(queryType,
          spark.read(basePath, Map.of("hoodie.datasource.query.type", queryType))));
    }
  }
}
