package io.huditsd.it;

import io.huditsd.api.demo.SampleRow;
import io.huditsd.it.support.DaemonApi;
import io.huditsd.it.support.DaemonYaml;
import io.huditsd.it.support.RowDiff;
import io.huditsd.it.support.SparkPeer;
import io.huditsd.it.support.SparkTable;
import io.huditsd.it.support.TableReader;
import io.huditsd.it.support.Tsd;
import io.huditsd.it.support.WriterKeys;
import io.huditsd.it.support.ZookeeperLockKeys;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingServer;
import org.apache.hudi.common.table.timeline.HoodieTimeline;
import org.apache.hudi.common.util.ClusteringUtils;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Issue 19: a Spark writer (official Hudi bundle, Hudi's {@code ZookeeperBasedLockProvider} shared with the daemon,
 * the ingestion-first conflict resolution and Spark's allow-update strategy, as docs/writers.md asks) upserts
 * into a COW and a MOR table, batch after batch, with updates of recent keys and of old ones, while the daemon
 * server clusters, compacts and cleans them. No writer commit may fail; clustering completes on both tables over
 * the file groups the writer left alone; Spark reads back exactly the rows the batches imply.
 */
class SparkIngestionFirstIT {
  private static final int BATCHES = 20;
  private static final String LOCKS = "/hudi/ingestion-first-locks";

  @Test
  void sparkWritesEveryBatchWhileTheDaemonClustersAndCompactsBesideIt() throws Exception {
    Path work = Tsd.workDirectory("SparkIngestionFirstIT");
    SparkPeer spark = SparkPeer.shared();
    try (TestingServer zookeeper = new TestingServer(new InstanceSpec(null, -1, -1, -1, true, -1, 500, -1), true)) {
      Map<String, String> lockKeys = ZookeeperLockKeys.of(zookeeper, LOCKS);
      Map<String, String> writerOptions = WriterKeys.ingestionFirst(lockKeys);
      // Every batch makes new files: clustering has small files to work on.
      writerOptions.put("hoodie.parquet.small.file.limit", "0");
      SparkTable cow = SparkTable.create(spark, work.resolve("orders_cow"), "COPY_ON_WRITE", writerOptions);
      SparkTable mor = SparkTable.create(spark, work.resolve("orders_mor"), "MERGE_ON_READ", writerOptions);
      List<SparkTable> tables = List.of(cow, mor);
      for (SparkTable table : tables) {
        // Lock keys default to the table name, one lock per table.
        table.insert(batch(-1));
      }

      int port = DaemonApi.freePort();
      int adminPort = DaemonApi.freePort();
      Path config = work.resolve("tsd.yml");
      Files.writeString(config, configuration(port, adminPort, cow, mor, lockKeys));
      List<String> failedBatches = new ArrayList<>();
      try (Tsd.Running daemon = Tsd.startDaemon(work.resolve("daemon"), "server", config.toString())) {
        DaemonApi api = new DaemonApi(port);
        await("the daemon lists both tables; daemon log " + daemon.logs() + ".out")
            .atMost(Duration.ofMinutes(1)).pollInterval(Duration.ofMillis(200)).ignoreExceptions()
            .until(() -> api.tables().size() == 2);

        for (int n = 0; n < BATCHES; n++) {
          for (SparkTable table : tables) {
            try {
              table.upsert(batch(n));
            } catch (AssertionError e) {
              failedBatches.add(table.basePath() + " batch " + n + ": "
                  + e.getMessage().lines().findFirst().orElse(""));
            }
          }
        }
        for (SparkTable table : tables) {
          String id = Path.of(table.basePath()).getFileName().toString();
          await("a clustering of " + id + " completes; daemon log " + daemon.logs() + ".out")
              .atMost(Duration.ofMinutes(3)).pollInterval(Duration.ofSeconds(1))
              .until(() -> completedClusterings(table) > 0);
        }

        assertThat(failedBatches).as("Spark batches that failed").isEmpty();
        String metrics = DaemonApi.metrics(adminPort);
        for (SparkTable table : tables) {
          String id = Path.of(table.basePath()).getFileName().toString();
          HoodieTimeline timeline = new TableReader(table.basePath()).metaClient().getActiveTimeline();
          assertThat(timeline.getRollbackTimeline().getInstants()).as("rollbacks on %s", id)
              .allSatisfy(rollback -> assertThat(timeline.readRollbackMetadata(rollback).getInstantsRollback())
                  .allSatisfy(rolledBack -> assertThat(rolledBack.getAction()).as("rolled back on %s", id)
                      .isIn(HoodieTimeline.CLUSTERING_ACTION, HoodieTimeline.REPLACE_COMMIT_ACTION)));
          assertThat(sample(metrics, "tsd_writer_failures_total", id)).as("tsd_writer_failures_total of %s", id)
              .isZero();
          System.out.printf("SparkIngestionFirstIT: %s: %d clusterings, %d file groups skipped as hot, runs %s%n",
              id, completedClusterings(table), (long) sample(metrics, "tsd_clustering_file_groups_skipped_hot_total",
                  id), api.runs().stream().filter(run -> id.equals(run.get("table")))
                  .map(run -> run.get("service") + ":" + run.get("status")).toList());
        }
        assertThat(sample(metrics, "tsd_clustering_file_groups_skipped_hot_total", "orders_cow")
            + sample(metrics, "tsd_clustering_file_groups_skipped_hot_total", "orders_mor"))
            .as("file groups left out of plans as hot").isPositive();
      }
      for (SparkTable table : tables) {
        RowDiff.assertSameRows("Spark snapshot of " + table.basePath() + " after the writer and the daemon",
            table.expected(), table.snapshot());
      }
    }
  }

  /**
   * Batch {@code n} (the first insert is {@code -1}): 20 new keys in day {@code n / 4}, updates of the 10 newest keys
   * of the batch before, and on even batches updates of 3 keys written 8 or more batches earlier (file groups the
   * daemon may have planned, or clustered, by then).
   */
  private static List<SampleRow> batch(int n) {
    long ts = 1_000L + n;
    Map<String, SampleRow> rows = new LinkedHashMap<>();
    for (int i = 0; i < 20; i++) {
      put(rows, key(n, i), day(n), ts, "new" + n);
    }
    if (n >= 0) {
      for (int i = 10; i < 20; i++) {
        put(rows, key(n - 1, i), day(n - 1), ts, "recent" + n);
      }
    }
    if (n >= 7 && n % 2 == 0) {
      for (int i = 0; i < 3; i++) {
        int old = (n * 7 + i * 5) % (n - 6) - 1;
        put(rows, key(old, i), day(old), ts, "old" + n);
      }
    }
    return List.copyOf(rows.values());
  }

  private static void put(Map<String, SampleRow> rows, String id, String partition, long ts, String name) {
    rows.put(id, SampleRow.of(id, partition, ts, name, ts * 100));
  }

  private static String key(int batch, int i) {
    return "b" + (batch + 1) + "-" + i;
  }

  private static String day(int batch) {
    return "2026-11-" + String.format("%02d", 1 + (batch + 1) / 4);
  }

  private static long completedClusterings(SparkTable table) {
    HoodieTimeline timeline = new TableReader(table.basePath()).metaClient().getActiveTimeline();
    return timeline.getCompletedReplaceTimeline().getInstantsAsStream()
        .filter(instant -> ClusteringUtils.isCompletedClusteringInstant(instant, timeline)).count();
  }

  /** The sample of {@code metric} for {@code table}; the test fails when the daemon exports none. */
  private static double sample(String metrics, String metric, String table) {
    // The Prometheus client writes a trailing comma after the last label.
    Matcher matcher = Pattern.compile("(?m)^" + metric + "\\{table=\"" + table + "\",?} ([0-9.eE+-]+)$")
        .matcher(metrics);
    assertThat(matcher.find()).as("%s{table=%s} in the daemon's metrics", metric, table).isTrue();
    return Double.parseDouble(matcher.group(1));
  }

  private static String configuration(int port, int adminPort, SparkTable cow, SparkTable mor,
                                      Map<String, String> lockKeys) {
    StringBuilder hoodie = new StringBuilder();
    lockKeys.forEach((key, value) -> hoodie.append("  ").append(key).append(": \"").append(value).append("\"\n"));
    return DaemonYaml.serverAndLogging(port, adminPort) + DaemonYaml.QUICK_POLLING + """
        services: [compaction, clustering, clean, archive]
        tables:
          - path: %s
            id: orders_cow
          - path: %s
            id: orders_mor
        hoodie:
          hoodie.compact.inline.max.delta.commits: "3"
          hoodie.clustering.inline.max.commits: "4"
          # Hot by commit count alone, so that days go cold within the test's few minutes.
          hoodie.clustering.plan.strategy.hot.commits: "4"
          hoodie.clustering.plan.strategy.hot.minutes: "0"
        """.formatted(cow.basePath(), mor.basePath()) + hoodie;
  }
}
