import io.huditsd.api.demo.SampleRow;
import io.huditsd.api.demo.SampleTable;
import org.apache.hadoop.conf.Configuration;
import org.apache.hudi.common.model.HoodieTableType;
import org.apache.hudi.common.table.HoodieTableMetaClient;
import org.apache.hudi.common.table.timeline.HoodieInstant;
import org.apache.hudi.storage.hadoop.HadoopStorageConfiguration;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * The commit-callback benchmark's writer, run with Java's single-file launcher against the built daemon's class path
 * (with a core-site.xml first on it for S3):
 * {@code java -cp 'conf:api/target/hudi-tsd.jar:api/target/lib/*' bench/CallbackBenchWriter.java create PATH...} or
 * {@code ... write PERIOD_MS ROUNDS URL KEY PATH...}.
 *
 * <p>{@code create} makes each table (a small partitioned MOR table, table version 9, metadata table on, as the
 * poll-cost benchmark's) with an insert. {@code write} upserts 20 rows into every table once a round, a round
 * starting every PERIOD_MS; a table whose path is prefixed {@code cb:} has Hudi's HTTP commit callback on, sent to
 * URL with KEY. After each commit returns, a watcher re-reads that table's timeline every 500 ms until a compaction
 * requested after the commit is on it and prints {@code delay callbacks|polling PATH INSTANT MS} (or
 * {@code missed ...} after 120 s): the benchmark's daemons compact after every delta commit.
 */
public final class CallbackBenchWriter {
  private static final String[] PARTITIONS = {"2026-11-01", "2026-11-02", "2026-11-03"};
  private static final String CALLBACK = "cb:";

  public static void main(String[] args) throws Exception {
    try {
      run(args);
    } finally {
      // Hudi's clients can leave non-daemon threads behind.
      System.exit(0);
    }
  }

  private static void run(String[] args) throws Exception {
    if (args.length >= 2 && args[0].equals("create")) {
      for (int i = 1; i < args.length; i++) {
        try (SampleTable table = open(args[i], Map.of())) {
          table.insert(rows(0, 300, 1));
        }
      }
    } else if (args.length >= 6 && args[0].equals("write")) {
      write(Long.parseLong(args[1]), Integer.parseInt(args[2]), args[3], args[4],
          List.of(args).subList(5, args.length));
    } else {
      System.err.println("usage: CallbackBenchWriter create PATH... | write PERIOD_MS ROUNDS URL KEY [cb:]PATH...");
      System.exit(2);
    }
  }

  private static void write(long period, int rounds, String url, String key, List<String> paths) throws Exception {
    Map<String, SampleTable> tables = new LinkedHashMap<>();
    for (String path : paths) {
      Map<String, String> keys = path.startsWith(CALLBACK) ? Map.of(
          "hoodie.write.commit.callback.on", "true",
          "hoodie.write.commit.callback.http.url", url,
          "hoodie.write.commit.callback.http.api.key", key) : Map.of();
      tables.put(path, open(strip(path), keys));
    }
    ExecutorService watchers = Executors.newCachedThreadPool(runnable -> {
      Thread thread = new Thread(runnable, "watcher");
      thread.setDaemon(true);
      return thread;
    });
    long start = System.currentTimeMillis();
    for (int round = 0; round < rounds; round++) {
      for (Map.Entry<String, SampleTable> table : tables.entrySet()) {
        String mode = table.getKey().startsWith(CALLBACK) ? "callbacks" : "polling";
        String path = strip(table.getKey());
        String instant;
        try {
          instant = table.getValue().upsert(rows(0, 20, System.currentTimeMillis()));
        } catch (RuntimeException e) {
          // S3Mock on a loaded machine can time out; the next round goes on, as an ingestion job's would.
          System.out.println("failed " + mode + " " + path + " at " + System.currentTimeMillis() + ": " + e);
          continue;
        }
        long committed = System.currentTimeMillis();
        System.out.println("committed " + mode + " " + path + " " + instant + " at " + committed);
        watchers.submit(() -> watch(mode, path, instant, committed));
      }
      long next = start + (round + 1) * period;
      Thread.sleep(Math.max(0, next - System.currentTimeMillis()));
    }
    watchers.shutdown();
    watchers.awaitTermination(3, TimeUnit.MINUTES);
    for (SampleTable table : tables.values()) {
      table.close();
    }
  }

  /** Waits for a compaction requested after {@code instant} on the table's timeline; prints the delay. */
  private static void watch(String mode, String path, String instant, long committed) {
    HoodieTableMetaClient metaClient = HoodieTableMetaClient.builder()
        .setConf(new HadoopStorageConfiguration(hadoop())).setBasePath(path).build();
    long deadline = committed + 120_000;
    try {
      while (System.currentTimeMillis() < deadline) {
        boolean scheduled = metaClient.reloadActiveTimeline().getInstantsAsStream()
            .filter(found -> found.getAction().equals("compaction") || found.getAction().equals("commit"))
            .map(HoodieInstant::requestedTime)
            .anyMatch(requested -> requested.compareTo(instant) > 0);
        if (scheduled) {
          System.out.println("delay " + mode + " " + path + " " + instant + " " + (System.currentTimeMillis() - committed));
          return;
        }
        Thread.sleep(500);
      }
      System.out.println("missed " + mode + " " + path + " " + instant);
    } catch (Exception e) {
      System.out.println("missed " + mode + " " + path + " " + instant + ": " + e);
    }
  }

  private static SampleTable open(String path, Map<String, String> keys) throws Exception {
    return SampleTable.open(path, path.substring(path.lastIndexOf('/') + 1), HoodieTableType.MERGE_ON_READ, 9, keys,
        hadoop());
  }

  /** The writer's only: S3A's pool of 96 connections ran dry under six writers and their watchers on S3Mock. */
  private static Configuration hadoop() {
    Configuration conf = new Configuration();
    conf.setInt("fs.s3a.connection.maximum", 256);
    return conf;
  }

  private static String strip(String path) {
    return path.startsWith(CALLBACK) ? path.substring(CALLBACK.length()) : path;
  }

  private static List<SampleRow> rows(int first, int count, long ts) {
    List<SampleRow> rows = new ArrayList<>(count);
    for (int i = first; i < first + count; i++) {
      rows.add(SampleRow.of("k" + i, PARTITIONS[i % PARTITIONS.length], ts, "name-" + i, i));
    }
    return rows;
  }
}
