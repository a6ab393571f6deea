import io.huditsd.api.demo.SampleRow;
import io.huditsd.api.demo.SampleTable;
import org.apache.hudi.common.model.HoodieTableType;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * The writer of the Spark engine benchmark's small table, run with Java's single-file launcher against the built
 * daemon's class path: {@code java -cp 'api/target/hudi-tsd.jar:api/target/lib/*' bench/LoopWriter.java PATH
 * INTERVAL_MS}. Creates a small partitioned MOR table (table version 9) if there is none and upserts 200 rows into
 * it (all its keys first, then updates of 200) every INTERVAL_MS until killed, printing {@code committed INSTANT at EPOCH_MS} after each delta commit, so that
 * the daemon always has compactions to plan while the large table's clustering runs on Spark.
 */
public final class LoopWriter {
  private static final String[] PARTITIONS = {"2026-11-01", "2026-11-02", "2026-11-03"};
  private static final int KEYS = 3_000;

  public static void main(String[] args) throws Exception {
    if (args.length != 2) {
      System.err.println("usage: LoopWriter PATH INTERVAL_MS");
      System.exit(2);
    }
    long interval = Long.parseLong(args[1]);
    // The heartbeat renews as often as the daemon's workers.heartbeatInterval (5s in the benchmark): the daemon
    // rolls back a writer commit whose heartbeat is older than its own expiry window.
    SampleTable table = SampleTable.open(args[0], "bench_small", HoodieTableType.MERGE_ON_READ, 9,
        Map.of("hoodie.client.heartbeat.interval_in_ms", "5000"));
    Runtime.getRuntime().addShutdownHook(new Thread(table::close, "loop-writer-close"));
    Random random = new Random(42);
    for (long batch = 0; ; batch++) {
      // The first batch inserts every key, the next ones update 200 of them: the table keeps its file groups, so a
      // compaction late in the run has as much to do as an early one.
      int size = batch == 0 ? KEYS : 200;
      List<SampleRow> rows = new ArrayList<>(size);
      for (int i = 0; i < size; i++) {
        int key = batch == 0 ? i : random.nextInt(KEYS);
        rows.add(SampleRow.of("k" + key, PARTITIONS[key % PARTITIONS.length], System.currentTimeMillis(),
            "name-" + batch, key));
      }
      try {
        String instant = batch == 0 ? table.insert(rows) : table.upsert(rows);
        System.out.println("committed " + instant + " at " + System.currentTimeMillis());
      } catch (RuntimeException e) {
        // A conflict with a table service or a transient failure: the next batch goes on, as an ingestion job's.
        System.out.println("failed batch " + batch + " at " + System.currentTimeMillis() + ": " + e);
      }
      Thread.sleep(interval);
    }
  }
}
