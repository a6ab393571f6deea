package io.huditsd.it;

import io.huditsd.api.demo.SampleRow;
import io.huditsd.it.support.DaemonApi;
import io.huditsd.it.support.DaemonYaml;
import io.huditsd.it.support.HudiWriter;
import io.huditsd.it.support.RowDiff;
import io.huditsd.it.support.SparkPeer;
import io.huditsd.it.support.SparkTable;
import io.huditsd.it.support.TableReader;
import io.huditsd.it.support.TrackedTable;
import io.huditsd.it.support.Tsd;
import io.huditsd.it.support.WriterKeys;
import io.huditsd.it.support.ZookeeperLockKeys;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingServer;
import org.apache.hudi.common.table.timeline.HoodieInstant;
import org.apache.hudi.common.table.timeline.HoodieTimeline;
import org.apache.hudi.common.util.ClusteringUtils;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The older writers users run (Hudi 0.15.0 at table version 6, 1.0.2 at 8; 1.2.0 is {@link SparkIngestionFirstIT}'s)
 * writing beside {@code bin/tsd server}, configured as the README tells users: OCC, LAZY failed writes, Hudi's
 * {@code ZookeeperBasedLockProvider} with the daemon's lock keys, the ingestion-first conflict resolution from the
 * lock-providers jar, Spark's allow-update strategy, the writer's own table services off. The writer upserts batches
 * (inserts, updates of recent and of old keys, deletes, late records that must lose) into a MOR and a COW table while
 * the daemon compacts, clusters, cleans and archives: no batch may fail, clustering completes on both tables and
 * compaction on the MOR table, the daemon counts no writer failure and rolls back no writer commit, the table
 * version stays the writer's, and the writer's Spark reads back the model. Then the writer's JVM is killed with
 * SIGKILL while its upsert is inflight: the daemon rolls the dead instant back once its heartbeat expired (a
 * 1 s heartbeat, 2 misses), a clean completes after that, and a new writer of the same release writes on.
 */
class WriterConcurrencyIT {
  private static final int BATCHES = 10;
  private static final String LOCKS = "/hudi/writer-concurrency-locks";
  private static final Pattern WRITER_INFLIGHT = Pattern.compile("(\\d+)\\.(commit|deltacommit)\\.inflight");

  @ParameterizedTest(name = "{0}")
  @EnumSource(value = HudiWriter.class, names = {"HUDI_0_15", "HUDI_1_0"})
  void anOlderWriterWritesBesideTheDaemonAndADeadWriteIsRolledBack(HudiWriter writer) throws Exception {
    Timings timings = new Timings(writer);
    Path work = Tsd.workDirectory("WriterConcurrencyIT/" + writer.release());
    try (TestingServer zookeeper = new TestingServer(new InstanceSpec(null, -1, -1, -1, true, -1, 500, -1), true)) {
      Map<String, String> lockKeys = ZookeeperLockKeys.of(zookeeper, LOCKS);
      // The writer's heartbeat, and the daemon told so: a dead writer's commit counts as failed 2 s after its last
      // beat.
      Map<String, String> heartbeatKeys = Map.of(
          "hoodie.client.heartbeat.interval_in_ms", "1000",
          "hoodie.client.heartbeat.tolerable.misses", "2");
      Map<String, String> writerOptions = WriterKeys.ingestionFirst(lockKeys);
      writerOptions.putAll(heartbeatKeys);
      // Every batch makes new files: clustering has small files to work on.
      writerOptions.put("hoodie.parquet.small.file.limit", "0");

      SparkPeer spark = SparkPeer.start(work.resolve("spark"), writer);
      SparkPeer restarted = null;
      try {
        timings.lap("Spark peer started");
        SparkTable mor = SparkTable.create(spark, work.resolve("orders_mor"), "MERGE_ON_READ", writerOptions);
        SparkTable cow = SparkTable.create(spark, work.resolve("orders_cow"), "COPY_ON_WRITE", writerOptions);
        List<SparkTable> tables = List.of(mor, cow);
        for (SparkTable table : tables) {
          table.insert(batch(-1));
          assertThat(tableVersion(table)).as("table version %s created", writer).isEqualTo(writer.tableVersion());
        }
        timings.lap("tables created");

        int port = DaemonApi.freePort();
        int adminPort = DaemonApi.freePort();
        Path config = work.resolve("tsd.yml");
        Files.writeString(config, configuration(port, adminPort, mor, cow, lockKeys, heartbeatKeys));
        try (Tsd.Running daemon = Tsd.startDaemon(work.resolve("daemon"), "server", config.toString())) {
          DaemonApi api = new DaemonApi(port);
          await("the daemon lists both tables; daemon log " + daemon.logs() + ".out")
              .atMost(Duration.ofMinutes(1)).pollInterval(Duration.ofMillis(200)).ignoreExceptions()
              .until(() -> api.tables().size() == 2);
          timings.lap("daemon up");

          List<String> failedBatches = new ArrayList<>();
          // The tables take turns, as in SparkIngestionFirstIT: each table's commits are spaced by the other's. Back
          // to back (a streaming writer's pace) 0.15 and 1.0 writers still fail now and then: see README, "Which
          // writers".
          for (int n = 0; n < BATCHES; n++) {
            for (SparkTable table : tables) {
              try {
                table.upsert(batch(n));
              } catch (AssertionError e) {
                failedBatches.add(id(table) + " batch " + n + ": " + e.getMessage().lines().findFirst().orElse(""));
              }
            }
          }
          timings.lap(BATCHES + " batches on each table");
          assertThat(failedBatches).as("%s batches that failed beside the daemon (peer log %s)", writer,
              spark.errors()).isEmpty();

          withDaemonLog(daemon, () -> {
            for (SparkTable table : tables) {
              await("a clustering of " + id(table) + " completes")
                  .atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(500))
                  .until(() -> completedClusterings(table) > 0);
            }
            await("a compaction of " + id(mor) + " completes")
                .atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(500))
                .until(() -> completedCompactions(mor) > 0);
          });
          timings.lap("clustering and compaction seen");

          String metrics = DaemonApi.metrics(adminPort);
          for (SparkTable table : tables) {
            assertThat(sample(metrics, "tsd_writer_failures_total", id(table)))
                .as("tsd_writer_failures_total of %s", id(table)).isZero();
            assertThat(rolledBackWriterInstants(table)).as("writer commits rolled back on %s", id(table)).isEmpty();
            assertThat(tableVersion(table)).as("table version of %s", id(table)).isEqualTo(writer.tableVersion());
            RowDiff.assertSameRows(writer + ": snapshot of " + id(table) + " beside the daemon", table.expected(),
                table.snapshot());
            System.out.printf("WriterConcurrencyIT %s: %s: %d clusterings, runs %s%n", writer,
                id(table), completedClusterings(table), api.runs().stream()
                    .filter(run -> id(table).equals(run.get("table")))
                    .map(run -> run.get("service") + ":" + run.get("status")).toList());
          }
          timings.lap("phase 1 checked");

          // Phase 2: the writer dies mid-upsert on the MOR table.
          Set<String> pendingBefore = writerInflights(mor);
          CompletableFuture<Void> doomed = CompletableFuture.runAsync(
              () -> mor.upsertNeverCommitted(batch(BATCHES)));
          String dead = await("the doomed upsert's instant inflight on " + id(mor))
              .atMost(Duration.ofMinutes(1)).pollInterval(Duration.ofMillis(50))
              .until(() -> newest(writerInflights(mor), pendingBefore), Optional::isPresent).orElseThrow();
          // Its files being written, if the upsert gets that far within a few seconds.
          boolean markers = awaitQuietly(Duration.ofSeconds(5), () -> hasMarkers(mor, dead));
          spark.kill();
          timings.lap("writer killed with " + dead + " inflight (markers written: " + markers + ")");
          try {
            doomed.get(1, TimeUnit.MINUTES);
            throw new AssertionError("the upsert of " + dead + " answered although its writer was killed");
          } catch (ExecutionException expected) {
            assertThat(expected.getCause()).hasMessageContaining("Spark peer exited");
          }
          restarted = SparkPeer.start(work.resolve("spark-restarted"), writer);
          timings.lap("second Spark peer started");

          TableReader reader = new TableReader(mor.basePath());
          withDaemonLog(daemon, () -> await("the daemon rolls back " + dead + " on " + id(mor))
              .atMost(Duration.ofMinutes(1)).pollInterval(Duration.ofMillis(500))
              .untilAsserted(() -> {
                assertThat(writerInflights(mor)).as("pending writer instants").doesNotContain(dead);
                assertThat(rolledBackWriterInstants(mor)).as("writer instants rolled back").contains(dead);
              }));
          String rollback = reader.metaClient().getActiveTimeline().getRollbackTimeline().filterCompletedInstants()
              .lastInstant().get().requestedTime();
          timings.lap("dead write rolled back");

          List<SparkTable> afterRestart = new ArrayList<>();
          for (SparkTable table : tables) {
            SparkTable next = table.withPeer(restarted);
            next.upsert(batch(BATCHES + 1));
            afterRestart.add(next);
          }
          SparkTable morAfterRestart = afterRestart.get(0);
          timings.lap("restarted writer's batch");
          withDaemonLog(daemon, () -> await("a clean of " + id(mor) + " after the rollback " + rollback)
              .atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(500))
              .until(() -> new TableReader(mor.basePath()).metaClient().getActiveTimeline().getCleanerTimeline()
                  .filterCompletedInstants().getInstantsAsStream()
                  .anyMatch(clean -> clean.requestedTime().compareTo(rollback) > 0)));
          timings.lap("clean after the rollback");

          for (SparkTable table : afterRestart) {
            assertThat(tableVersion(table)).as("table version of %s at the end", id(table))
                .isEqualTo(writer.tableVersion());
            RowDiff.assertSameRows(writer + ": snapshot of " + id(table) + " after the dead write and one more batch",
                table.expected(), table.snapshot());
          }
          // The dead write, and nothing else, counted as a writer failure.
          assertThat(sample(DaemonApi.metrics(adminPort), "tsd_writer_failures_total", id(morAfterRestart)))
              .as("tsd_writer_failures_total of %s", id(morAfterRestart)).isEqualTo(1.0);
          assertThat(rolledBackWriterInstants(morAfterRestart)).as("writer commits rolled back on %s",
              id(morAfterRestart)).containsExactly(dead);
          timings.lap("phase 2 checked");
        }
      } finally {
        spark.close();
        if (restarted != null) {
          restarted.close();
        }
        System.out.println(timings);
      }
    }
  }

  /**
   * Batch {@code n} (the first insert is {@code -1}): 20 new keys in day {@code n / 4}; updates of the 10 newest keys
   * of the batch before; on even batches from 4 on, updates of 3 keys written 4 or more batches earlier (file groups
   * the daemon may have planned or clustered by then); on batches {@code n % 3 == 1}, late versions (lower
   * {@code ts}) of 3 keys of batch {@code n - 2}, which must lose; on batches {@code n % 4 == 3}, deletes of 2 keys of
   * batch {@code n - 3}. Each kind touches keys of its own ({@code i} 0-1 deleted, 2-4 old, 5-7 late, 10-19 recent).
   */
  private static List<SampleRow> batch(int n) {
    long ts = 1_000L + n;
    Map<String, SampleRow> rows = new LinkedHashMap<>();
    for (int i = 0; i < 20; i++) {
      put(rows, SampleRow.of(key(n, i), day(n), ts, "new" + n, ts * 100));
    }
    if (n >= 0) {
      for (int i = 10; i < 20; i++) {
        put(rows, SampleRow.of(key(n - 1, i), day(n - 1), ts, "recent" + n, ts * 100));
      }
    }
    if (n >= 4 && n % 2 == 0) {
      for (int i = 0; i < 3; i++) {
        int old = (n * 7 + i * 5) % (n - 3) - 1;
        put(rows, SampleRow.of(key(old, 2 + i), day(old), ts, "old" + n, ts * 100));
      }
    }
    if (n >= 1 && n % 3 == 1) {
      for (int i = 5; i < 8; i++) {
        put(rows, SampleRow.of(key(n - 2, i), day(n - 2), 500L + n, "late" + n, 0));
      }
    }
    if (n >= 2 && n % 4 == 3) {
      for (int i = 0; i < 2; i++) {
        put(rows, SampleRow.of(key(n - 3, i), day(n - 3), ts, "deleted" + n, 0).asDelete(ts));
      }
    }
    return List.copyOf(rows.values());
  }

  private static void put(Map<String, SampleRow> rows, SampleRow row) {
    if (rows.putIfAbsent(row.id(), row) != null) {
      throw new IllegalStateException("batch writes " + row.id() + " twice");
    }
  }

  private static String key(int batch, int i) {
    return "b" + (batch + 1) + "-" + i;
  }

  private static String day(int batch) {
    return "2026-11-" + String.format("%02d", 1 + (batch + 1) / 4);
  }

  private static String id(SparkTable table) {
    return Path.of(table.basePath()).getFileName().toString();
  }

  private static HoodieTimeline timeline(SparkTable table) {
    return new TableReader(table.basePath()).metaClient().getActiveTimeline();
  }

  private static long completedClusterings(SparkTable table) {
    HoodieTimeline timeline = timeline(table);
    return timeline.getCompletedReplaceTimeline().getInstantsAsStream()
        .filter(instant -> ClusteringUtils.isCompletedClusteringInstant(instant, timeline)).count();
  }

  /** Completed compactions: on a MOR table every completed {@code commit} is one. */
  private static long completedCompactions(SparkTable table) {
    return timeline(table).getCommitTimeline().filterCompletedInstants().getInstantsAsStream()
        .filter(instant -> instant.getAction().equals(HoodieTimeline.COMMIT_ACTION)).count();
  }

  /** The instants of commits and delta commits that rollbacks undid: writers', as table services are not these. */
  private static List<String> rolledBackWriterInstants(SparkTable table) {
    HoodieTimeline timeline = timeline(table);
    List<String> rolledBack = new ArrayList<>();
    for (HoodieInstant rollback : timeline.getRollbackTimeline().filterCompletedInstants().getInstants()) {
      try {
        timeline.readRollbackMetadata(rollback).getInstantsRollback().stream()
            .filter(info -> info.getAction().equals(HoodieTimeline.COMMIT_ACTION)
                || info.getAction().equals(HoodieTimeline.DELTA_COMMIT_ACTION))
            .forEach(info -> rolledBack.add(info.getCommitTime()));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    return rolledBack;
  }

  /**
   * The writer instants inflight on the table, from the timeline files themselves ({@code .hoodie} on version 6,
   * {@code .hoodie/timeline} from 8): cheap enough to poll every 50 ms. Table services never leave a
   * {@code commit.inflight} or {@code deltacommit.inflight} (compaction and clustering have their own actions).
   */
  private static Set<String> writerInflights(SparkTable table) {
    Path hoodie = Path.of(table.basePath(), ".hoodie");
    Path timeline = Files.isDirectory(hoodie.resolve("timeline")) ? hoodie.resolve("timeline") : hoodie;
    try (Stream<Path> files = Files.list(timeline)) {
      return files.map(file -> WRITER_INFLIGHT.matcher(file.getFileName().toString()))
          .filter(Matcher::matches).map(matcher -> matcher.group(1)).collect(Collectors.toSet());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static Optional<String> newest(Set<String> inflights, Set<String> before) {
    return inflights.stream().filter(instant -> !before.contains(instant)).max(String::compareTo);
  }

  /** Whether the write of {@code instant} has written markers, i.e. started writing files. */
  private static boolean hasMarkers(SparkTable table, String instant) {
    Path markers = Path.of(table.basePath(), ".hoodie", ".temp", instant);
    if (!Files.isDirectory(markers)) {
      return false;
    }
    try (Stream<Path> files = Files.walk(markers)) {
      return files.anyMatch(Files::isRegularFile);
    } catch (IOException | UncheckedIOException e) {
      return false;
    }
  }

  private static boolean awaitQuietly(Duration atMost, java.util.concurrent.Callable<Boolean> condition) {
    try {
      await().atMost(atMost).pollInterval(Duration.ofMillis(50)).until(condition);
      return true;
    } catch (ConditionTimeoutException e) {
      return false;
    }
  }

  private static int tableVersion(SparkTable table) {
    return Integer.parseInt(TrackedTable.hoodieProperties(table.basePath()).getProperty("hoodie.table.version"));
  }

  /** The sample of {@code metric} for {@code table}; the test fails when the daemon exports none. */
  private static double sample(String metrics, String metric, String table) {
    // The Prometheus client writes a trailing comma after the last label.
    Matcher matcher = Pattern.compile("(?m)^" + metric + "\\{table=\"" + table + "\",?} ([0-9.eE+-]+)$")
        .matcher(metrics);
    assertThat(matcher.find()).as("%s{table=%s} in the daemon's metrics", metric, table).isTrue();
    return Double.parseDouble(matcher.group(1));
  }

  /** Runs {@code wait}; if it times out, fails with the daemon's last log lines. */
  private static void withDaemonLog(Tsd.Running daemon, Runnable wait) {
    try {
      wait.run();
    } catch (ConditionTimeoutException e) {
      throw new AssertionError(e.getMessage() + "\n" + daemon.logTail(), e);
    }
  }

  private static String configuration(int port, int adminPort, SparkTable mor, SparkTable cow,
                                      Map<String, String> lockKeys, Map<String, String> heartbeatKeys) {
    StringBuilder hoodie = new StringBuilder();
    Map<String, String> keys = new LinkedHashMap<>(lockKeys);
    keys.putAll(heartbeatKeys);
    keys.forEach((key, value) -> hoodie.append("  ").append(key).append(": \"").append(value).append("\"\n"));
    return DaemonYaml.serverAndLogging(port, adminPort) + DaemonYaml.QUICK_POLLING + """
        services: [compaction, clustering, clean, archive]
        tables:
          - path: %s
            id: %s
          - path: %s
            id: %s
        hoodie:
          hoodie.compact.inline.max.delta.commits: "2"
          hoodie.clustering.inline.max.commits: "4"
          # Hot by commit count alone, so that days go cold within the test's minute or two.
          hoodie.clustering.plan.strategy.hot.commits: "3"
          hoodie.clustering.plan.strategy.hot.minutes: "0"
          hoodie.clean.commits.retained: "2"
        """.formatted(mor.basePath(), id(mor), cow.basePath(), id(cow)) + hoodie;
  }

  /** Wall-clock time of each phase, printed at the end (pass or fail) to keep the test's cost in view. */
  private static final class Timings {
    private final HudiWriter writer;
    private final long start = System.nanoTime();
    private final List<String> laps = new ArrayList<>();
    private long last = start;

    Timings(HudiWriter writer) {
      this.writer = writer;
    }

    void lap(String phase) {
      long now = System.nanoTime();
      laps.add(String.format("%6.1f s  %s", (now - last) / 1e9, phase));
      last = now;
    }

    @Override
    public String toString() {
      return "WriterConcurrencyIT " + writer + " timings (total " + String.format("%.1f", (last - start) / 1e9)
          + " s):\n  " + String.join("\n  ", laps);
    }
  }
}
