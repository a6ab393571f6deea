package io.huditsd.it.support;

import io.huditsd.api.demo.SampleRow;
import io.huditsd.api.demo.SampleTable;
import org.apache.hudi.common.model.HoodieTableType;

import java.util.List;
import java.util.Map;

/**
 * An ingestion job in its own JVM, as a Spark writer would share a table with the daemon: Hudi's Java writer with
 * Hudi's own {@code ZookeeperBasedLockProvider} upserts {@link #batch} after batch. Each outcome is printed as
 * {@code >> COMMITTED n} or {@code >> FAILED n ...}, then {@code >> DONE}. Arguments: base path, ZooKeeper connect
 * string, lock base path, number of batches.
 */
public final class ZookeeperWriter {
  public static final int KEYS = 9_000;
  private static final int ROWS_PER_BATCH = 600;

  private ZookeeperWriter() {
  }

  /** Writer keys for Hudi's ZooKeeper lock, shared with the daemon's configuration. */
  public static Map<String, String> lockKeys(String connectString, String lockBasePath) {
    return Map.of(
        "hoodie.write.lock.provider", "org.apache.hudi.client.transaction.lock.ZookeeperBasedLockProvider",
        "hoodie.write.lock.zookeeper.url", connectString,
        "hoodie.write.lock.zookeeper.base_path", lockBasePath,
        "hoodie.write.lock.zookeeper.session_timeout_ms", "10000",
        "hoodie.write.lock.zookeeper.connection_timeout_ms", "5000");
  }

  /** Batch {@code n}: 600 keys spread over the table, ts increasing with {@code n}, so every batch wins. */
  public static List<SampleRow> batch(int n) {
    int first = (n * 1_337) % KEYS;
    return java.util.stream.IntStream.range(0, ROWS_PER_BATCH)
        .map(i -> (first + i * 15) % KEYS)
        .distinct()
        .mapToObj(key -> TrackedTable.row(key, 10_000L + n, "batch-" + n))
        .toList();
  }

  public static void main(String[] arguments) throws Exception {
    String basePath = arguments[0];
    int batches = Integer.parseInt(arguments[3]);
    try (SampleTable table = SampleTable.open(basePath, java.nio.file.Path.of(basePath).getFileName().toString(),
        HoodieTableType.MERGE_ON_READ, 9, lockKeys(arguments[1], arguments[2]))) {
      for (int n = 0; n < batches; n++) {
        try {
          table.upsert(batch(n));
          answer("COMMITTED " + n);
        } catch (RuntimeException e) {
          answer("FAILED " + n + " " + e);
        }
      }
    }
    answer("DONE");
    System.exit(0);
  }

  private static void answer(String line) {
    System.out.println(">> " + line);
    System.out.flush();
  }
}
