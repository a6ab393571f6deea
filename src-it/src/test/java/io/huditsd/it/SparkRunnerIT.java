package io.huditsd.it;

import io.huditsd.config.HeartbeatSettings;
import io.huditsd.config.MetadataIndexes;
import io.huditsd.config.ServiceType;
import io.huditsd.config.ServicedTable;
import io.huditsd.executors.HudiTables;
import io.huditsd.it.support.ColumnChunks;
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
import io.huditsd.scheduler.ClusteringService;
import io.huditsd.scheduler.CompactionService;
import io.huditsd.scheduler.PlannedService;
import org.apache.hudi.client.HoodieJavaWriteClient;
import org.apache.hudi.common.model.HoodieAvroPayload;
import org.apache.hudi.common.table.HoodieTableMetaClient;
import org.apache.hudi.common.table.timeline.HoodieInstant;
import org.apache.hudi.common.table.timeline.HoodieTimeline;
import org.apache.hudi.common.util.Option;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The Spark runner ({@code spark-runner}, {@code io.huditsd.sparkrunner.PlanRunnerApp}) executes plans that the
 * daemon's own scheduling code wrote, submitted with {@code spark-submit} in client mode to a standalone cluster on
 * loopback (one worker, one core): a compaction of a Spark-written MERGE_ON_READ table, and clusterings of
 * COPY_ON_WRITE tables with a rewrite plan and with a binary-copy plan. Afterwards Spark reads the expected rows
 * (snapshot, and read_optimized for MOR), nothing is pending, and the metadata table lists the files storage holds.
 * An application killed mid-run leaves the plan pending, and a second submission rolls it back and completes it.
 *
 * <p>The props each submission gets are what the daemon would ship: {@code HudiTables.effectiveKeys} of the table
 * (the daemon's default storage lock included, whose class comes from the lock-providers jar on the driver's class
 * path).
 */
class SparkRunnerIT {
  private static final String RUNNER = "io.huditsd.sparkrunner.PlanRunnerApp";
  /** Short, so that the killed application's heartbeat expires within seconds (Hudi: interval x 3 misses). */
  private static final HeartbeatSettings HEARTBEAT = new HeartbeatSettings(1_000, 2);
  private static final Duration SUBMISSION_TIMEOUT = Duration.ofMinutes(3);
  private static final int INSERT_COMMITS = 3;
  private static final int ROWS_PER_COMMIT = 30;
  private static final Map<String, String> NO_HOT_FILE_GROUPS = Map.of(
      "hoodie.clustering.plan.strategy.hot.commits", "0", "hoodie.clustering.plan.strategy.hot.minutes", "0");

  private static SparkPeer spark;
  private static SparkStandalone cluster;
  private static HudiTables tables;

  @BeforeAll
  static void start() throws InterruptedException {
    cluster = SparkStandalone.start(Tsd.workDirectory("SparkRunnerIT/cluster"));
    spark = SparkPeer.shared();
    tables = new HudiTables(HudiTables.defaultHadoopConfiguration(), HEARTBEAT);
  }

  @AfterAll
  static void stop() throws InterruptedException {
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test
  void compactsASparkWrittenMergeOnReadTable() throws Exception {
    Path work = Tsd.workDirectory("SparkRunnerIT/mor");
    SparkTable table = SparkTable.create(spark, work.resolve("spark_mor"), "MERGE_ON_READ",
        TrackedTable.MOR_WRITER_KEYS);
    table.insertInCommits(INSERT_COMMITS, ROWS_PER_COMMIT);
    // Updates of every third key go to log files.
    table.upsert(IntStream.range(0, INSERT_COMMITS * ROWS_PER_COMMIT).filter(number -> number % 3 == 0)
        .mapToObj(number -> TrackedTable.row(number, 2_000, "v2")).toList());
    Map<String, PeerRow> expected = table.expected();
    ServicedTable serviced = serviced("spark_mor", table, Map.of());
    String instant = schedule(serviced, new CompactionService());

    Submission run = submit(work.resolve("compaction"), serviced, "compaction", instant);

    assertThat(run.exitCode()).as("exit code of the runner; driver log %s", run.log()).isZero();
    HoodieTimeline timeline = completedAndNothingPending(table, instant);
    assertThat(timeline.getCommitTimeline().filterCompletedInstants().containsInstant(instant))
        .as("compaction %s committed", instant).isTrue();
    RowDiff.assertSameRows("Spark snapshot after the runner compacted", expected, table.snapshot());
    RowDiff.assertSameRows("Spark read_optimized after the runner compacted", expected, table.readOptimized());
    TableChecks.metadataTableInSync(new TableReader(table.basePath()));
  }

  @Test
  void rewritesACopyOnWriteTableAndASecondSubmissionCompletesAKilledOne() throws Exception {
    Path work = Tsd.workDirectory("SparkRunnerIT/cow-rewrite");
    SparkTable table = SparkTable.create(spark, work.resolve("spark_cow"), "COPY_ON_WRITE",
        Map.of("hoodie.parquet.small.file.limit", "0"));
    table.insertInCommits(INSERT_COMMITS, ROWS_PER_COMMIT);
    table.upsert(IntStream.range(0, INSERT_COMMITS * ROWS_PER_COMMIT).filter(number -> number % 4 == 0)
        .mapToObj(number -> TrackedTable.row(number, 2_000, "v2")).toList());
    Map<String, PeerRow> expected = table.expected();
    // The rewrite is asked for: the default plans copy row groups (binaryCopiesACopyOnWriteTableWithSparksCopyStrategy).
    Map<String, String> rewrite = new HashMap<>(NO_HOT_FILE_GROUPS);
    rewrite.put("hoodie.clustering.plan.strategy.class", "io.huditsd.executors.clustering.HotAwareClusteringPlanStrategy");
    ServicedTable serviced = serviced("spark_cow", table, rewrite);
    String instant = schedule(serviced, new ClusteringService(Long.MAX_VALUE));

    // Killed as soon as the plan is inflight: what SparkAppHandle.kill() does to a client-mode driver (SIGKILL).
    Process killed = start(work.resolve("clustering-killed"), serviced, "clustering", instant);
    Path inflight = Path.of(table.basePath(), ".hoodie", "timeline", instant + ".clustering.inflight");
    await("clustering " + instant + " inflight").atMost(SUBMISSION_TIMEOUT).pollInterval(Duration.ofMillis(50))
        .until(() -> Files.exists(inflight) || !killed.isAlive());
    assertThat(killed.isAlive()).as("first submission still running when its plan went inflight; see %s",
        work.resolve("clustering-killed.log")).isTrue();
    killed.destroyForcibly();
    assertThat(killed.waitFor(30, TimeUnit.SECONDS)).isTrue();
    HoodieTimeline afterKill = new TableReader(table.basePath()).metaClient().getActiveTimeline();
    assertThat(afterKill.filterPendingReplaceOrClusteringTimeline().containsInstant(instant))
        .as("clustering %s still pending after the kill: %s", instant, afterKill).isTrue();

    Submission second = submit(work.resolve("clustering"), serviced, "clustering", instant);

    assertThat(second.exitCode()).as("exit code of the second submission; driver log %s", second.log()).isZero();
    assertThat(second.output()).as("driver log of the second submission")
        .contains("execution strategy org.apache.hudi.client.clustering.run.strategy.SparkSortAndSizeExecutionStrategy");
    completedAndNothingPending(table, instant);
    assertThat(new TableReader(table.basePath()).latestBaseFiles(Listing.STORAGE))
        .as("one base file per partition, written by clustering %s", instant)
        .hasSize(TrackedTable.PARTITIONS.size())
        .allMatch(file -> file.contains(instant));
    RowDiff.assertSameRows("Spark snapshot after the killed clustering was completed", expected, table.snapshot());
    TableChecks.metadataTableInSync(new TableReader(table.basePath()));
  }

  @Test
  void binaryCopiesACopyOnWriteTableWithSparksCopyStrategy() throws Exception {
    Path work = Tsd.workDirectory("SparkRunnerIT/cow-copy");
    SparkTable table = SparkTable.create(spark, work.resolve("spark_cow_copy"), "COPY_ON_WRITE",
        Map.of("hoodie.parquet.small.file.limit", "0"));
    table.insertInCommits(INSERT_COMMITS, ROWS_PER_COMMIT);
    Map<String, PeerRow> expected = table.expected();
    TableReader reader = new TableReader(table.basePath());
    Map<String, Integer> inputChunks = ColumnChunks.digests(Path.of(table.basePath()),
        reader.latestBaseFiles(Listing.STORAGE));
    // No key names binary copy: it is the daemon's default plan.
    ServicedTable serviced = serviced("spark_cow_copy", table, NO_HOT_FILE_GROUPS);
    String instant = schedule(serviced, new ClusteringService(Long.MAX_VALUE));

    Submission run = submit(work.resolve("clustering"), serviced, "clustering", instant);

    assertThat(run.exitCode()).as("exit code of the runner; driver log %s", run.log()).isZero();
    assertThat(run.output()).as("driver log").contains("execution strategy "
        + "org.apache.hudi.client.clustering.run.strategy.SparkBinaryCopyClusteringExecutionStrategy");
    completedAndNothingPending(table, instant);
    List<String> clustered = reader.latestBaseFiles(Listing.STORAGE);
    assertThat(clustered).as("one base file per partition").hasSize(TrackedTable.PARTITIONS.size());
    assertThat(ColumnChunks.digests(Path.of(table.basePath()), clustered))
        .as("column chunks of the clustered files are the inputs' bytes (copied, not rewritten)")
        .isEqualTo(inputChunks);
    RowDiff.assertSameRows("Spark snapshot after the runner binary-copied", expected, table.snapshot());
    TableChecks.metadataTableInSync(new TableReader(table.basePath()));
  }


  private static ServicedTable serviced(String id, SparkTable table, Map<String, String> keys) {
    return new ServicedTable(id, table.basePath(), Set.of(ServiceType.COMPACTION, ServiceType.CLUSTERING),
        Duration.ofSeconds(10), keys, MetadataIndexes.none());
  }

  /** Writes a plan now, as the daemon does on a REST schedule request (DuePlanner.scheduleNow), without running it. */
  private static String schedule(ServicedTable table, PlannedService service) {
    HoodieTableMetaClient metaClient = tables.metaClient(table.basePath());
    PlannedService.Scheduling scheduling = service.onRequest(table, metaClient).orElseThrow();
    Option<String> instant;
    try (HoodieJavaWriteClient<HoodieAvroPayload> client = tables.writeClient(table, service.forceNowKeys())) {
      instant = scheduling.schedule(client);
    }
    assertThat(instant.isPresent()).as("%s plan written on %s", service.type(), table.basePath()).isTrue();
    return instant.get();
  }

  /** The props file the daemon ships: the table's effective keys, as Java properties. */
  private static Path props(Path file, ServicedTable table) throws IOException {
    Properties properties = new Properties();
    properties.putAll(tables.effectiveKeys(table, tables.metaClient(table.basePath())));
    try (Writer writer = Files.newBufferedWriter(file, StandardCharsets.ISO_8859_1)) {
      properties.store(writer, "hudi-tsd write config for " + table.id());
    }
    return file;
  }

  private record Submission(int exitCode, Path log) {
    String output() {
      try {
        return Files.readString(log);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  }

  private static Submission submit(Path logs, ServicedTable table, String service, String instant)
      throws IOException, InterruptedException {
    Process process = start(logs, table, service, instant);
    if (!process.waitFor(SUBMISSION_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
      process.destroyForcibly();
      process.waitFor(30, TimeUnit.SECONDS);
      throw new AssertionError("spark-submit of " + service + " " + instant + " did not end within "
          + SUBMISSION_TIMEOUT.toSeconds() + "s; see " + logs + ".log");
    }
    return new Submission(process.exitValue(), Path.of(logs + ".log"));
  }

  /** {@code bin/spark-submit} of the runner in client mode; the driver's output goes to {@code logs.log}. */
  private static Process start(Path logs, ServicedTable table, String service, String instant) throws IOException {
    List<String> command = new ArrayList<>(List.of(cluster.sparkHome().resolve("bin/spark-submit").toString(),
        "--master", cluster.masterUrl(), "--deploy-mode", "client", "--class", RUNNER,
        "--name", "hudi-tsd " + service + " " + instant,
        // Beside the bundle, in the driver's application class loader: Hudi loads the lock provider by name from
        // its own loader, which does not see --jars.
        "--driver-class-path", requiredFile("lock.providers.jar").toString()));
    SparkStandalone.driverConf().forEach((key, value) -> command.addAll(List.of("--conf", key + "=" + value)));
    command.add(requiredFile("spark.runner.jar").toString());
    command.addAll(List.of("--base-path", table.basePath(), "--service", service, "--instant", instant,
        "--props", props(Path.of(logs + ".properties"), table).toString()));
    ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true)
        .redirectOutput(Path.of(logs + ".log").toFile());
    builder.environment().put("SPARK_HOME", cluster.sparkHome().toString());
    return builder.start();
  }

  private static Path requiredFile(String property) {
    Path file = Path.of(System.getProperty(property, "")).toAbsolutePath();
    assertThat(file).as("system property %s; build the module first", property).isRegularFile();
    return file;
  }

  private static HoodieTimeline completedAndNothingPending(SparkTable table, String instant) {
    HoodieTimeline timeline = new TableReader(table.basePath()).metaClient().getActiveTimeline();
    assertThat(timeline.filterCompletedInstants().containsInstant(instant)).as("%s completed: %s", instant, timeline)
        .isTrue();
    List<HoodieInstant> pending = timeline.filterInflightsAndRequested().getInstants();
    assertThat(pending).as("pending instants").isEmpty();
    return timeline;
  }

}
