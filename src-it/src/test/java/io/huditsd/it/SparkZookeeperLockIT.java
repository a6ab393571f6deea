package io.huditsd.it;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.huditsd.api.demo.SampleRow;
import io.huditsd.it.support.DaemonApi;
import io.huditsd.it.support.DaemonYaml;
import io.huditsd.it.support.PeerRow;
import io.huditsd.it.support.RowDiff;
import io.huditsd.it.support.SparkPeer;
import io.huditsd.it.support.SparkTable;
import io.huditsd.it.support.TableReader;
import io.huditsd.it.support.Tsd;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingServer;
import org.apache.hudi.common.table.timeline.HoodieInstant;
import org.apache.hudi.common.table.timeline.HoodieTimeline;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.IntStream;

import static io.huditsd.it.support.TrackedTable.concat;
import static io.huditsd.it.support.TrackedTable.deletes;
import static io.huditsd.it.support.TrackedTable.row;
import static io.huditsd.it.support.TrackedTable.rows;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Issue 6, scenario 5: a Spark writer (official Hudi bundle, Hudi's own {@code ZookeeperBasedLockProvider}) and the
 * daemon in server mode share one ZooKeeper lock, a real ZooKeeper server ({@link TestingServer}) in this JVM. Spark
 * keeps upserting a MERGE_ON_READ table (updates of existing keys, new keys, deletes, and late records that must
 * lose) while the daemon compacts it: every batch commits, compactions complete between Spark's commits, and Spark's
 * snapshot and read_optimized queries hold exactly the rows the batches imply.
 */
class SparkZookeeperLockIT {
  private static final String TABLE_ID = "spark_zk";
  private static final String LOCKS = "/hudi/spark-locks";
  private static final String LOCK_KEY = "spark_zk_lock";
  private static final int BATCHES = 6;
  /** Keys 0-249 take updates and late records; 250-299 are deleted, a few per batch, and never written again. */
  private static final int KEYS = 300;
  private static final int UPDATED_KEYS = 250;
  private static final String SCHEMA =
      "id STRING, partition STRING, ts BIGINT, name STRING, amount BIGINT, _hoodie_is_deleted BOOLEAN";
  private static final ObjectMapper JSON = new ObjectMapper();

  @Test
  void sparkUpsertsWhileTheDaemonCompactsUnderOneZookeeperLock() throws Exception {
    Path work = Tsd.workDirectory("SparkZookeeperLockIT");
    Path basePath = work.resolve(TABLE_ID);
    SparkPeer spark = SparkPeer.shared();
    try (TestingServer zookeeper = new TestingServer(new InstanceSpec(null, -1, -1, -1, true, -1, 500, -1), true)) {
      Map<String, String> lockKeys = lockKeys(zookeeper);
      Map<String, String> writerOptions = new LinkedHashMap<>(lockKeys);
      writerOptions.put("hoodie.write.concurrency.mode", "OPTIMISTIC_CONCURRENCY_CONTROL");
      writerOptions.put("hoodie.cleaner.policy.failed.writes", "LAZY");
      SparkTable table = SparkTable.create(spark, basePath, "MERGE_ON_READ", writerOptions);
      table.insert(rows(0, KEYS, 1_000, "v1"));

      // Only Spark has run so far: the lock node exists only if Spark's commit took the ZooKeeper lock.
      String lockPath = LOCKS + "/" + LOCK_KEY;
      Stat beforeDaemon = lockNode(zookeeper.getConnectString(), lockPath);
      assertThat(beforeDaemon)
          .as("ZooKeeper node %s after Spark's first commit (Hudi's ZookeeperBasedLockProvider in Spark)", lockPath)
          .isNotNull();

      int port = DaemonApi.freePort();
      int adminPort = DaemonApi.freePort();
      Path config = work.resolve("tsd.yml");
      Files.writeString(config, configuration(basePath, port, adminPort, lockKeys));
      TableReader reader = new TableReader(basePath.toString());
      List<String> conflicts = new ArrayList<>();
      long daemonLocks;
      try (Tsd.Running daemon = Tsd.startDaemon(work.resolve("daemon"), "server", config.toString())) {
        DaemonApi api = new DaemonApi(port);
        await("the daemon's REST API lists table " + TABLE_ID + "; daemon log " + daemon.logs() + ".out")
            .atMost(Duration.ofMinutes(1)).pollInterval(Duration.ofMillis(200)).ignoreExceptions()
            .until(() -> api.tables().stream().anyMatch(t -> TABLE_ID.equals(t.get("id"))));

        for (int n = 0; n < BATCHES; n++) {
          List<SampleRow> batch = batch(n);
          try {
            table.upsert(batch);
          } catch (AssertionError e) {
            // A write conflict that Hudi reports is retried once; the model already holds the batch (SparkTable
            // applies it before writing) and the retry writes the very same rows.
            if (!String.valueOf(e.getMessage()).toLowerCase(Locale.ROOT).contains("conflict")) {
              throw e;
            }
            conflicts.add("batch " + n + ": " + e.getMessage().lines().findFirst().orElse(""));
            write(spark, table, batch);
          }
        }

        // read_optimized equals the rows only once every delta commit is compacted: the trigger (2 delta commits)
        // may leave the last ones waiting (see deltaCommitsAfterLastCompaction), so the test then asks for a
        // compaction of its own.
        AtomicInteger askedForCompaction = new AtomicInteger();
        await("every delta commit compacted; daemon log " + daemon.logs() + ".out")
            .atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(500))
            .until(() -> {
              HoodieTimeline timeline = reader.metaClient().getActiveTimeline();
              if (!timeline.filterPendingCompactionTimeline().empty()) {
                return false;
              }
              if (deltaCommitsAfterLastCompaction(timeline) == 0) {
                return true;
              }
              askedForCompaction.incrementAndGet();
              schedule(port);
              return false;
            });

        HoodieTimeline timeline = reader.metaClient().getActiveTimeline();
        assertThat(timeline.filterInflightsAndRequested().getInstants()).as("unfinished instants").isEmpty();
        List<HoodieInstant> deltaCommits = timeline.getDeltaCommitTimeline().filterCompletedInstants().getInstants();
        List<HoodieInstant> compactions = timeline.getCommitTimeline().filterCompletedInstants().getInstants();
        assertThat(deltaCommits).as("Spark's delta commits: the insert and %d upserts", BATCHES)
            .hasSize(1 + BATCHES);
        // A compaction that completed after Spark's first upsert and before its last one did: the daemon compacted
        // while Spark was writing.
        String firstUpsert = deltaCommits.get(1).getCompletionTime();
        String lastUpsert = deltaCommits.get(deltaCommits.size() - 1).getCompletionTime();
        assertThat(compactions).as("compactions completed between Spark's upserts (conflicts retried: %s)", conflicts)
            .anySatisfy(compaction -> assertThat(compaction.getCompletionTime())
                .isGreaterThan(firstUpsert).isLessThan(lastUpsert));
        assertThat(api.runs()).as("runs of the daemon")
            .anySatisfy(run -> assertThat(run).containsEntry("service", "compaction")
                .containsEntry("status", "succeeded"))
            .noneSatisfy(run -> assertThat(String.valueOf(run.get("status"))).isEqualToIgnoringCase("failed"));

        // The daemon took the same ZooKeeper lock (its only configured lock) for this table.
        String metrics = DaemonApi.metrics(adminPort);
        daemonLocks = count(metrics, "tsd_lock_wait_seconds_count");
        assertThat(count(metrics, "tsd_lock_wait_seconds_count")).as("tsd_lock_wait_seconds_count of %s", TABLE_ID)
            .isPositive();
        assertThat(count(metrics, "tsd_lock_failures_total")).as("tsd_lock_failures_total of %s", TABLE_ID)
            .isZero();
        System.out.printf("SparkZookeeperLockIT: %d delta commits, %d compactions, lock waits %d, conflicts %s, "
                + "compaction requests by the test %d%n", deltaCommits.size(), compactions.size(),
            count(metrics, "tsd_lock_wait_seconds_count"), conflicts, askedForCompaction.get());
      }

      Stat atEnd = lockNode(zookeeper.getConnectString(), lockPath);
      assertThat(atEnd).as("ZooKeeper node %s at the end", lockPath).isNotNull();
      // Every acquisition of the Curator mutex creates one child of the lock node and its release deletes it: the
      // child version counts both. More acquisitions than the daemon's own while it ran means Spark took the same
      // lock node alongside it.
      long acquisitions = (atEnd.getCversion() - beforeDaemon.getCversion()) / 2;
      System.out.printf("SparkZookeeperLockIT: lock node %s: %d acquisitions while the daemon ran, %d by the daemon%n",
          lockPath, acquisitions, daemonLocks);
      assertThat(acquisitions).as("acquisitions of %s while the daemon ran (the daemon's: %d)", lockPath, daemonLocks)
          .isGreaterThanOrEqualTo(daemonLocks + BATCHES);
      Map<String, PeerRow> expected = table.expected();
      RowDiff.assertSameRows("Spark snapshot after Spark wrote and the daemon compacted under one ZooKeeper lock",
          expected, table.snapshot());
      RowDiff.assertSameRows("Spark read_optimized after the daemon compacted every delta commit", expected,
          table.readOptimized());
    }
  }

  /**
   * Batch {@code n}: updates of 60 keys among 0-249 (ts 2000 + 10n), deletes of keys 250+3n..252+3n, and late
   * versions (ts 1500 + n, below every version written since the insert) of the keys the previous batch updated, or
   * for the first batch ts 500 versions of keys never updated: the late ones must lose.
   */
  static List<SampleRow> batch(int n) {
    long ts = 2_000L + 10L * n;
    Map<String, SampleRow> byKey = new LinkedHashMap<>();
    for (int key : updatedKeys(n)) {
      byKey.put(row(key, ts, "b" + n).id(), row(key, ts, "b" + n));
    }
    for (SampleRow delete : deletes(UPDATED_KEYS + 3 * n, UPDATED_KEYS + 3 * n + 3, ts)) {
      byKey.put(delete.id(), delete);
    }
    List<SampleRow> late = n == 0
        ? rows(200, 220, 500, "late")
        : updatedKeys(n - 1).stream().limit(20).map(key -> row(key, 1_500L + n, "late" + n)).toList();
    for (SampleRow row : late) {
      byKey.putIfAbsent(row.id(), row);
    }
    return concat(List.copyOf(byKey.values()));
  }

  private static List<Integer> updatedKeys(int n) {
    int first = (n * 53) % UPDATED_KEYS;
    return IntStream.range(0, 60).map(i -> (first + i * 4) % UPDATED_KEYS).distinct()
        .filter(key -> n != 0 || key < 200 || key >= 220).boxed().toList();
  }

  /** Writes {@code rows} as {@link SparkTable#upsert} does, without applying them to the model again. */
  private static void write(SparkPeer spark, SparkTable table, List<SampleRow> rows) {
    List<Map<String, Object>> json = new ArrayList<>();
    for (SampleRow row : rows) {
      Map<String, Object> values = new LinkedHashMap<>();
      values.put("id", row.id());
      values.put("partition", row.partition());
      values.put("ts", row.ts());
      values.put("name", row.name());
      values.put("amount", row.amount());
      values.put("_hoodie_is_deleted", row.deleted());
      json.add(values);
    }
    Map<String, String> options = new LinkedHashMap<>(table.options());
    options.put("hoodie.datasource.write.operation", "upsert");
    spark.write(table.basePath(), json, SCHEMA, options);
  }

  private static Map<String, String> lockKeys(TestingServer zookeeper) {
    Map<String, String> keys = new LinkedHashMap<>();
    keys.put("hoodie.write.lock.provider", "org.apache.hudi.client.transaction.lock.ZookeeperBasedLockProvider");
    // Hudi's provider connects to the url alone (it ignores .port); the daemon appends .port to hosts without one.
    keys.put("hoodie.write.lock.zookeeper.url", zookeeper.getConnectString());
    keys.put("hoodie.write.lock.zookeeper.port", Integer.toString(zookeeper.getPort()));
    keys.put("hoodie.write.lock.zookeeper.base_path", LOCKS);
    keys.put("hoodie.write.lock.zookeeper.lock_key", LOCK_KEY);
    keys.put("hoodie.write.lock.zookeeper.session_timeout_ms", "10000");
    keys.put("hoodie.write.lock.zookeeper.connection_timeout_ms", "5000");
    return keys;
  }

  /**
   * Completed delta commits whose log files no completed compaction has merged: those that completed after the last
   * compaction was requested. A delta commit that started before that compaction's plan but completed after it wrote
   * into the file slice the compaction opened (Hudi 1.x slices logs by completion time), so counting by requested
   * time, as Hudi's NUM_COMMITS trigger does, misses it.
   */
  private static long deltaCommitsAfterLastCompaction(HoodieTimeline timeline) {
    String last = timeline.getCommitTimeline().filterCompletedInstants().lastInstant()
        .map(HoodieInstant::requestedTime).orElse("0");
    return timeline.getDeltaCommitTimeline().filterCompletedInstants().getInstantsAsStream()
        .filter(deltaCommit -> deltaCommit.getCompletionTime().compareTo(last) > 0).count();
  }

  /** Asks the daemon to schedule a compaction now; 409 (one pending or queued already) is fine. */
  private static void schedule(int port) throws Exception {
    HttpRequest request = HttpRequest.newBuilder(
            URI.create("http://localhost:" + port + "/api/v1/tables/" + TABLE_ID + "/schedule"))
        .timeout(Duration.ofSeconds(30)).header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(Map.of("service", "compaction"))))
        .build();
    HttpResponse<String> response = HttpClient.newHttpClient().send(request, HttpResponse.BodyHandlers.ofString());
    assertThat(response.statusCode()).as("POST schedule compaction: %s", response.body()).isIn(200, 201, 202, 409);
  }

  /** The stat of {@code path} on the ZooKeeper server, null when there is no such node. */
  private static Stat lockNode(String connectString, String path) throws Exception {
    CountDownLatch connected = new CountDownLatch(1);
    ZooKeeper client = new ZooKeeper(connectString, 10_000, event -> {
      if (event.getState() == Watcher.Event.KeeperState.SyncConnected) {
        connected.countDown();
      }
    });
    try {
      assertThat(connected.await(10, TimeUnit.SECONDS)).as("connected to ZooKeeper at %s", connectString).isTrue();
      return client.exists(path, false);
    } finally {
      client.close();
    }
  }

  /** The value of {@code metric} for this table in Prometheus text, 0 when absent. */
  private static long count(String metrics, String metric) {
    Matcher matcher = Pattern.compile("(?m)^" + metric + "\\{[^}]*table=\"" + TABLE_ID + "\"[^}]*} ([0-9.eE+-]+)$")
        .matcher(metrics);
    long total = 0;
    while (matcher.find()) {
      total += (long) Double.parseDouble(matcher.group(1));
    }
    return total;
  }

  private static String configuration(Path basePath, int port, int adminPort, Map<String, String> lockKeys) {
    StringBuilder hoodie = new StringBuilder();
    lockKeys.forEach((key, value) -> hoodie.append("  ").append(key).append(": \"").append(value).append("\"\n"));
    return DaemonYaml.serverAndLogging(port, adminPort) + DaemonYaml.QUICK_POLLING + """
        services: [compaction]
        tables:
          - path: %s
            id: %s
        hoodie:
          hoodie.compact.inline.max.delta.commits: "2"
        """.formatted(basePath, TABLE_ID) + hoodie;
  }
}
