package io.huditsd.it;

import io.huditsd.it.support.ColumnChunks;
import io.huditsd.it.support.DaemonApi;
import io.huditsd.it.support.DaemonYaml;
import io.huditsd.it.support.PeerRow;
import io.huditsd.it.support.RowDiff;
import io.huditsd.it.support.SparkPeer;
import io.huditsd.it.support.SparkStandalone;
import io.huditsd.it.support.SparkTable;
import io.huditsd.it.support.TableChecks;
import io.huditsd.it.support.TableReader;
import io.huditsd.it.support.TableReader.Listing;
import io.huditsd.it.support.TrackedTable;
import io.huditsd.it.support.Tsd;
import org.apache.hudi.common.table.timeline.HoodieInstant;
import org.apache.hudi.common.table.timeline.HoodieTimeline;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The daemon in server mode hands its plans to Spark (issue 14): a standalone cluster on loopback (a master and one
 * worker with one core, each in a JVM of its own, {@link SparkStandalone}), the runner of module spark-runner
 * submitted in client mode, a size threshold of one byte so that every compaction and clustering plan goes to Spark.
 * Spark-written tables: a MERGE_ON_READ table compacted, COPY_ON_WRITE tables clustered with a rewrite plan and with a
 * binary-copy plan. Afterwards Spark reads the expected rows (snapshot, and read_optimized for MOR), nothing is
 * pending, the metadata table lists what storage holds, and REST shows the runs with engine spark and the application
 * id.
 *
 * <p>Failures: the driver of the compaction is killed (SIGKILL) while its plan is inflight: the attempt fails, the
 * retry rolls the plan back and completes it. The rewrite clustering's application is killed through
 * {@code DELETE /runs/{runId}}: the run ends cancelled and the next poll executes the plan; during that execution the
 * daemon is killed and restarted, and the plan completes exactly once (the application outlives the daemon, and the
 * restarted daemon leaves the plan alone while the runner's heartbeat lives).
 */
class SparkEngineIT {
  private static final String RUNNER = "io.huditsd.sparkrunner.PlanRunnerApp";
  private static final Duration PLAN_TIMEOUT = Duration.ofMinutes(3);
  private static final int INSERT_COMMITS = 3;
  private static final int ROWS_PER_COMMIT = 30;

  private static SparkStandalone cluster;
  private static SparkPeer spark;

  @BeforeAll
  static void start() throws InterruptedException {
    cluster = SparkStandalone.start(Tsd.workDirectory("SparkEngineIT/cluster"));
    spark = SparkPeer.shared();
  }

  @AfterAll
  static void stop() throws InterruptedException {
    if (cluster != null) {
      cluster.close();
    }
    // A driver left running by a failed test would hold the worker's only core.
    drivers().forEach(ProcessHandle::destroyForcibly);
  }

  @Test
  void compactsAndBinaryCopiesOnSparkAndRetriesACompactionWhoseDriverWasKilled() throws Exception {
    Path work = Tsd.workDirectory("SparkEngineIT/compaction-and-copy");
    SparkTable mor = SparkTable.create(spark, work.resolve("spark_mor"), "MERGE_ON_READ",
        TrackedTable.MOR_WRITER_KEYS);
    mor.insertInCommits(INSERT_COMMITS, ROWS_PER_COMMIT);
    mor.upsert(IntStream.range(0, INSERT_COMMITS * ROWS_PER_COMMIT).filter(number -> number % 3 == 0)
        .mapToObj(number -> TrackedTable.row(number, 2_000, "v2")).toList());
    Map<String, PeerRow> morExpected = mor.expected();
    SparkTable copy = SparkTable.create(spark, work.resolve("spark_cow_copy"), "COPY_ON_WRITE",
        Map.of("hoodie.parquet.small.file.limit", "0"));
    copy.insertInCommits(INSERT_COMMITS, ROWS_PER_COMMIT);
    Map<String, PeerRow> copyExpected = copy.expected();
    TableReader copyReader = new TableReader(copy.basePath());
    Map<String, Integer> inputChunks = ColumnChunks.digests(Path.of(copy.basePath()),
        copyReader.latestBaseFiles(Listing.STORAGE));
    TableReader morReader = new TableReader(mor.basePath());

    int adminPort = DaemonApi.freePort();
    try (Daemon daemon = startDaemon(work, "daemon", adminPort, """
          - path: %s
            id: spark_mor
            services: [compaction]
          - path: %s
            id: spark_cow_copy
            services: [clustering]
            hoodie:
              # Binary copy (the default plans) is asked for on Spark: under auto a copy stays in the daemon at any size.
              tsd.engine.clustering: spark
        """.formatted(mor.basePath(), copy.basePath()), "spark_mor", "spark_cow_copy")) {
      // The compaction's driver is killed once its plan is inflight: SIGKILL, as a lost node would.
      String compaction = await("a compaction plan of spark_mor; " + daemon.logs())
          .atMost(PLAN_TIMEOUT).pollInterval(Duration.ofMillis(200))
          .until(() -> pendingInstant(morReader, HoodieTimeline.COMPACTION_ACTION), Optional::isPresent).get();
      Path inflight = timelineFile(mor, compaction + ".compaction.inflight");
      ProcessHandle driver = await("the driver of compaction " + compaction + " running with its plan inflight; "
          + daemon.logs())
          .atMost(PLAN_TIMEOUT).pollInterval(Duration.ofMillis(50))
          .until(() -> Files.exists(inflight) ? driverOf(compaction) : Optional.<ProcessHandle>empty(),
              Optional::isPresent).get();
      driver.destroyForcibly();
      assertThat(morReader.metaClient().getActiveTimeline().filterCompletedInstants().containsInstant(compaction))
          .as("compaction %s was still running when its driver was killed", compaction).isFalse();

      await("compaction " + compaction + " completed by the retry; " + daemon.logs())
          .atMost(PLAN_TIMEOUT).pollInterval(Duration.ofMillis(500))
          .until(() -> completed(morReader, compaction));
      String clustering = await("the binary-copy clustering of spark_cow_copy completed; " + daemon.logs())
          .atMost(PLAN_TIMEOUT).pollInterval(Duration.ofMillis(500))
          .until(() -> completedClustering(copyReader), Optional::isPresent).get();

      Map<String, Object> compactionRun = finishedRun(daemon.api(), compaction);
      assertThat(compactionRun).as("the compaction's run").containsEntry("status", "succeeded")
          .containsEntry("engine", "spark").containsEntry("attempt", 2).containsEntry("sparkState", "finished");
      assertThat((String) compactionRun.get("sparkAppId")).as("application id of %s", compactionRun)
          .startsWith("app-");
      assertThat((String) compactionRun.get("sparkUi")).contains((String) compactionRun.get("sparkAppId"));
      assertThat(((Number) compactionRun.get("fileGroups")).longValue()).as("file groups compacted").isPositive();
      Map<String, Object> clusteringRun = finishedRun(daemon.api(), clustering);
      assertThat(clusteringRun).as("the clustering's run").containsEntry("status", "succeeded")
          .containsEntry("engine", "spark").containsEntry("sparkState", "finished");
      assertThat((String) clusteringRun.get("sparkAppId")).startsWith("app-");
      assertThat(driverLog(work, "spark_cow_copy", clustering)).as("driver log of the binary copy")
          .contains("SparkBinaryCopyClusteringExecutionStrategy");
      assertThat(DaemonApi.metrics(adminPort).lines())
          .as("tsd_runs_total of the compaction, by engine")
          .anyMatch(line -> line.startsWith("tsd_runs_total{engine=\"spark\",result=\"succeeded\","
              + "service=\"compaction\",table=\"spark_mor\"}") && line.endsWith(" 1.0"));
    }

    TableChecks.nothingPending(morReader);
    TableChecks.nothingPending(copyReader);
    RowDiff.assertSameRows("Spark snapshot after the compaction on Spark", morExpected, mor.snapshot());
    RowDiff.assertSameRows("Spark read_optimized after the compaction on Spark", morExpected, mor.readOptimized());
    TableChecks.metadataTableInSync(morReader);
    List<String> clustered = copyReader.latestBaseFiles(Listing.STORAGE);
    assertThat(clustered).as("one base file per partition").hasSize(TrackedTable.PARTITIONS.size());
    assertThat(ColumnChunks.digests(Path.of(copy.basePath()), clustered))
        .as("column chunks of the clustered files are the inputs' bytes (copied, not rewritten)")
        .isEqualTo(inputChunks);
    RowDiff.assertSameRows("Spark snapshot after the binary copy on Spark", copyExpected, copy.snapshot());
    TableChecks.metadataTableInSync(copyReader);
  }

  @Test
  void aCancelledRewriteRunsAgainAndCompletesExactlyOnceAcrossADaemonRestart() throws Exception {
    Path work = Tsd.workDirectory("SparkEngineIT/rewrite");
    SparkTable table = SparkTable.create(spark, work.resolve("spark_cow"), "COPY_ON_WRITE",
        Map.of("hoodie.parquet.small.file.limit", "0"));
    table.insertInCommits(INSERT_COMMITS, ROWS_PER_COMMIT);
    Map<String, PeerRow> expected = table.expected();
    TableReader reader = new TableReader(table.basePath());
    String tables = """
          - path: %s
            id: spark_cow
            services: [clustering]
            hoodie:
              hoodie.clustering.plan.strategy.class: io.huditsd.executors.clustering.HotAwareClusteringPlanStrategy
        """.formatted(table.basePath());

    String instant;
    try (Daemon first = startDaemon(work, "first", DaemonApi.freePort(), tables, "spark_cow")) {
      instant = await("a clustering plan of spark_cow; " + first.logs()).atMost(PLAN_TIMEOUT)
          .pollInterval(Duration.ofMillis(200))
          .until(() -> pendingInstant(reader, HoodieTimeline.CLUSTERING_ACTION), Optional::isPresent).get();
      Path inflight = timelineFile(table, instant + ".clustering.inflight");
      String planned = instant;
      Map<String, Object> running = await("the clustering's application running with its plan inflight; "
          + first.logs())
          .atMost(PLAN_TIMEOUT).pollInterval(Duration.ofMillis(100))
          .until(() -> Files.exists(inflight) ? sparkRun(first.api(), planned, "running")
              : Optional.<Map<String, Object>>empty(), Optional::isPresent).get();

      DaemonApi.Reply kill = first.api().delete("/api/v1/runs/" + running.get("runId"));

      assertThat(kill.status()).as("DELETE of a running Spark run: %s", kill.body()).isEqualTo(202);
      assertThat(kill.body()).containsEntry("status", "killing");
      Map<String, Object> cancelled = await("the killed run ends cancelled; " + first.logs())
          .atMost(Duration.ofMinutes(1)).pollInterval(Duration.ofMillis(200))
          .until(() -> first.api().runs().stream().filter(run -> run.get("runId").equals(running.get("runId"))
              && "cancelled".equals(run.get("status"))).findFirst(), Optional::isPresent).get();
      assertThat((String) cancelled.get("error")).contains("was killed; plan " + instant + " stays pending");
      assertThat(cancelled).containsEntry("engine", "spark").containsEntry("sparkState", "killed");
      assertThat(reader.metaClient().getActiveTimeline().filterPendingReplaceOrClusteringTimeline()
          .containsInstant(instant)).as("clustering %s pending after the kill", instant).isTrue();

      // The next poll executes the plan again (it rolls back the killed attempt first); the daemon is killed while
      // that application runs.
      await("a second application of clustering " + instant + " running after the rollback; " + first.logs())
          .atMost(PLAN_TIMEOUT).pollInterval(Duration.ofMillis(100))
          .until(() -> rolledBack(reader) && Files.exists(inflight)
              && sparkRun(first.api(), planned, "running").filter(run -> !run.get("runId")
                  .equals(running.get("runId"))).isPresent());
      first.process().kill();
    }
    Optional<ProcessHandle> survivor = driverOf(instant);
    assertThat(survivor).as("the driver of clustering %s outlives the daemon", instant).isPresent();
    assertThat(reader.metaClient().getActiveTimeline().filterCompletedInstants().containsInstant(instant))
        .as("clustering %s was still running when the daemon was killed", instant).isFalse();

    try (Daemon second = startDaemon(work, "second", DaemonApi.freePort(), tables, "spark_cow")) {
      await("clustering " + instant + " completed by the application the first daemon started; " + second.logs())
          .atMost(PLAN_TIMEOUT).pollInterval(Duration.ofMillis(500))
          .until(() -> completed(reader, instant));
      assertThat(second.api().runs()).as("runs of the restarted daemon: it submitted nothing for %s", instant)
          .filteredOn(run -> instant.equals(run.get("instant")))
          .allSatisfy(run -> assertThat(run.get("sparkAppId")).as("%s", run).isNull());
    }

    HoodieTimeline timeline = TableChecks.nothingPending(reader);
    assertThat(timeline.getRollbackTimeline().filterCompletedInstants().countInstants())
        .as("rollbacks: only that of the cancelled attempt").isEqualTo(1);
    assertThat(driverLogs(work, "spark_cow", instant)).as("submissions of clustering %s", instant).hasSize(2);
    assertThat(reader.latestBaseFiles(Listing.STORAGE)).as("one base file per partition, written by %s", instant)
        .hasSize(TrackedTable.PARTITIONS.size()).allMatch(file -> file.contains(instant));
    assertThat(driverLog(work, "spark_cow", instant)).as("driver log of the completed rewrite")
        .contains("SparkSortAndSizeExecutionStrategy");
    RowDiff.assertSameRows("Spark snapshot after the rewrite on Spark", expected, table.snapshot());
    TableChecks.metadataTableInSync(reader);
  }


  /** A daemon servicing {@code tableEntries} with every plan placed on Spark, once REST lists {@code ids}. */
  private static Daemon startDaemon(Path work, String name, int adminPort, String tableEntries, String... ids)
      throws IOException {
    int port = DaemonApi.freePort();
    Path config = work.resolve(name + ".yml");
    Files.writeString(config, configuration(work, port, adminPort, tableEntries));
    Daemon daemon = new Daemon(Tsd.startDaemon(work.resolve(name), "server", config.toString()), new DaemonApi(port));
    await("the daemon's REST API lists " + List.of(ids) + "; " + daemon.logs())
        .atMost(Duration.ofMinutes(1)).pollInterval(Duration.ofMillis(200)).ignoreExceptions()
        .until(() -> daemon.api().tables().stream().map(table -> table.get("id")).toList()
            .containsAll(List.of(ids)));
    return daemon;
  }

  private record Daemon(Tsd.Running process, DaemonApi api) implements AutoCloseable {
    String logs() {
      return "daemon log " + process.logs() + ".out";
    }

    @Override
    public void close() throws InterruptedException {
      process.close();
    }
  }

  private static String configuration(Path work, int port, int adminPort, String tableEntries) {
    String conf = SparkStandalone.driverConf().entrySet().stream()
        .map(entry -> "    " + entry.getKey() + ": \"" + entry.getValue() + "\"")
        .collect(Collectors.joining("\n"));
    return DaemonYaml.serverAndLogging(port, adminPort) + """
        polling:
          interval: 1s
          maxBackoff: 5s
        workers:
          count: 1
          retryBackoff: 1s
          # The runner keeps the plan's heartbeat with these settings: a killed application's expires in seconds.
          heartbeatInterval: 1s
          heartbeatTolerableMisses: 1
        spark:
          sparkHome: %s
          master: %s
          applicationJar: %s
          jars: [%s]
          maxApplications: 1
          timeout: 4m
          logDir: %s
          uiUrl: "%sapp/?appId={appId}"
          conf:
        %s
        hoodie:
          tsd.engine.spark.min.bytes: "1"
          hoodie.compact.inline.max.delta.commits: "2"
          hoodie.clustering.inline.max.commits: "2"
          hoodie.clustering.plan.strategy.hot.commits: "0"
          hoodie.clustering.plan.strategy.hot.minutes: "0"
        tables:
        """.formatted(cluster.sparkHome(), cluster.masterUrl(), requiredFile("spark.runner.jar"),
        requiredFile("lock.providers.jar"), work.resolve("spark-logs"), cluster.masterWebUi(), conf) + tableEntries;
  }

  private static Path requiredFile(String property) {
    Path file = Path.of(System.getProperty(property, "")).toAbsolutePath();
    assertThat(file).as("system property %s; build the module first", property).isRegularFile();
    return file;
  }

  private static Path timelineFile(SparkTable table, String name) {
    return Path.of(table.basePath(), ".hoodie", "timeline", name);
  }

  /** The requested time of a pending instant of {@code action}. */
  private static Optional<String> pendingInstant(TableReader reader, String action) {
    return reader.metaClient().getActiveTimeline().filterInflightsAndRequested().getInstantsAsStream()
        .filter(instant -> instant.getAction().equals(action)).map(HoodieInstant::requestedTime).findFirst();
  }

  private static boolean completed(TableReader reader, String instant) {
    return reader.metaClient().getActiveTimeline().filterCompletedInstants().containsInstant(instant);
  }

  private static boolean rolledBack(TableReader reader) {
    return !reader.metaClient().getActiveTimeline().getRollbackTimeline().filterCompletedInstants().empty();
  }

  private static Optional<String> completedClustering(TableReader reader) {
    return reader.metaClient().getActiveTimeline().getCompletedReplaceTimeline().getInstantsAsStream()
        .map(HoodieInstant::requestedTime).findFirst();
  }



  /** The run of {@code instant} on Spark whose application is in {@code sparkState}. */
  private static Optional<Map<String, Object>> sparkRun(DaemonApi api, String instant, String sparkState) {
    return api.runs().stream().filter(run -> instant.equals(run.get("instant")) && "spark".equals(run.get("engine"))
        && sparkState.equals(run.get("sparkState"))).findFirst();
  }

  /** The finished run of {@code instant}, newest first as REST lists them. */
  private static Map<String, Object> finishedRun(DaemonApi api, String instant) {
    return api.runs().stream().filter(run -> instant.equals(run.get("instant")) && run.get("finishedAt") != null)
        .findFirst().orElseThrow(() -> new AssertionError("no finished run of " + instant + " in " + api.runs()));
  }

  /** Drivers of the runner on this machine (client mode: the spark-submit JVM is the driver). */
  private static Stream<ProcessHandle> drivers() {
    return ProcessHandle.allProcesses().filter(ProcessHandle::isAlive)
        .filter(process -> process.info().commandLine().map(line -> line.contains(RUNNER)).orElse(false));
  }

  private static Optional<ProcessHandle> driverOf(String instant) {
    return drivers().filter(process -> process.info().commandLine()
        .map(line -> line.contains("--instant " + instant)).orElse(false)).findFirst();
  }

  private static List<Path> driverLogs(Path work, String tableId, String instant) throws IOException {
    Path directory = work.resolve("spark-logs").resolve(tableId);
    try (Stream<Path> files = Files.list(directory)) {
      return files.filter(file -> file.getFileName().toString().contains("-" + instant + "-")
          && file.toString().endsWith(".log")).sorted().toList();
    }
  }

  /** The newest driver log of {@code instant}. */
  private static String driverLog(Path work, String tableId, String instant) throws IOException {
    List<Path> logs = driverLogs(work, tableId, instant);
    assertThat(logs).as("driver logs of %s", instant).isNotEmpty();
    return Files.readString(Objects.requireNonNull(logs.get(logs.size() - 1)));
  }
}
