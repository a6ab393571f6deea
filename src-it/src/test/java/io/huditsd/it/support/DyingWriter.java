package io.huditsd.it.support;

import io.huditsd.api.demo.SampleTable;
import org.apache.hudi.common.model.HoodieTableType;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

/**
 * An ingestion job in its own JVM that writes the files of one upsert and never commits it, so a test can kill it
 * mid-commit with SIGKILL: Hudi's Java writer with Hudi's ZooKeeper lock and LAZY rollback, its heartbeat renewed
 * every second until the kill. Prints {@code >> WRITTEN <instant>} once the files are written. Arguments: base path,
 * table type, ZooKeeper connect string, lock base path, first key, end key (exclusive), ts.
 */
public final class DyingWriter {
  /** The writer's heartbeat interval; the daemon in the test tolerates a longer silence. */
  public static final String HEARTBEAT_INTERVAL_MS = "1000";

  private DyingWriter() {
  }

  public static void main(String[] arguments) throws Exception {
    String basePath = arguments[0];
    HoodieTableType type = HoodieTableType.valueOf(arguments[1]);
    Map<String, String> keys = new HashMap<>(ZookeeperWriter.lockKeys(arguments[2], arguments[3]));
    keys.put("hoodie.client.heartbeat.interval_in_ms", HEARTBEAT_INTERVAL_MS);
    if (type == HoodieTableType.MERGE_ON_READ) {
      keys.putAll(TrackedTable.MOR_WRITER_KEYS);
    }
    SampleTable table = SampleTable.open(basePath, Path.of(basePath).getFileName().toString(), type, 9, keys);
    String instant = table.upsertWithoutCommit(TrackedTable.rows(Integer.parseInt(arguments[4]),
        Integer.parseInt(arguments[5]), Long.parseLong(arguments[6]), "never-committed"));
    System.out.println(">> WRITTEN " + instant);
    System.out.flush();
    // Waits for the kill; the heartbeat timer keeps renewing meanwhile.
    Thread.sleep(Long.MAX_VALUE);
  }
}
