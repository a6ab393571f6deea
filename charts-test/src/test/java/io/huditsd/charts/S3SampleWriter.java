package io.huditsd.charts;

import io.huditsd.api.demo.SampleRow;
import io.huditsd.api.demo.SampleTable;
import org.apache.hudi.common.model.HoodieTableType;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A writer in a JVM of its own, as an ingestion job beside the daemon: {@code S3SampleWriter BASE_PATH ZK_CONNECT
 * ZK_BASE_PATH} writes a MOR table (an insert and two upserts) with Hudi's Java writer under the ZooKeeper lock the
 * chart gives the daemon. The S3A keys come from the core-site.xml first on its class path, as HADOOP_CONF_DIR gives
 * them to bin/tsd.
 */
public final class S3SampleWriter {
  private S3SampleWriter() {
  }

  public static void main(String[] args) throws Exception {
    Map<String, String> lock = Map.of(
        "hoodie.write.lock.provider", "org.apache.hudi.client.transaction.lock.ZookeeperBasedLockProvider",
        "hoodie.write.lock.zookeeper.url", args[1],
        "hoodie.write.lock.zookeeper.base_path", args[2]);
    try (SampleTable table = SampleTable.open(args[0], "orders", HoodieTableType.MERGE_ON_READ, 9, lock)) {
      List<SampleRow> rows = new ArrayList<>();
      for (int i = 0; i < 40; i++) {
        rows.add(SampleRow.of("k" + i, "p" + (i % 2), 1, "first", i));
      }
      table.insert(rows);
      table.upsert(rows.subList(0, 10).stream().map(row -> SampleRow.of(row.id(), row.partition(), 2, "second", 7))
          .toList());
      table.upsert(rows.subList(10, 20).stream().map(row -> SampleRow.of(row.id(), row.partition(), 3, "third", 8))
          .toList());
    }
    // Hudi's clients can leave non-daemon threads behind.
    System.exit(0);
  }
}
