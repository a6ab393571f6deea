package io.huditsd.it;

import io.huditsd.it.support.DaemonApi;
import io.huditsd.it.support.DaemonYaml;
import io.huditsd.it.support.PeerRow;
import io.huditsd.it.support.RowDiff;
import io.huditsd.it.support.S3Lake;
import io.huditsd.it.support.SharedLock;
import io.huditsd.it.support.SparkPeer;
import io.huditsd.it.support.SparkTable;
import io.huditsd.it.support.TableChecks;
import io.huditsd.it.support.TableReader;
import io.huditsd.it.support.TableReader.Listing;
import io.huditsd.it.support.TrackedTable;
import io.huditsd.it.support.Tsd;
import org.apache.hudi.common.table.HoodieTableMetaClient;
import org.apache.hudi.common.table.timeline.HoodieInstant;
import org.apache.hudi.common.table.timeline.HoodieTimeline;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.IntStream;

import static io.huditsd.it.support.TrackedTable.concat;
import static io.huditsd.it.support.TrackedTable.deletes;
import static io.huditsd.it.support.TrackedTable.rows;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Issue 15: tables on {@code s3a://}, on a real S3 server (Adobe S3Mock). Spark (the official Hudi bundle with
 * hadoop-aws on its class path) writes a MERGE_ON_READ and a COPY_ON_WRITE table into one bucket; the packaged daemon
 * in server mode, which reaches the bucket through the S3A keys of a core-site.xml first on its class path, compacts
 * the MOR table, clusters the COW table by binary copy, builds a record index, cleans and archives both; and
 * {@code once} compacts, clusters (rewrite), cleans and archives a third table. Spark must then read exactly the
 * rows the writes imply, the metadata table must list what storage holds, nothing may be left pending, and Spark must
 * go on writing the serviced tables.
 *
 * <p>One S3 server, one lock server and one Spark session serve the whole class, to keep JVM starts down.
 */
class S3SparkTableServicesIT {
  private static final String PLAN_STRATEGY_KEY = "hoodie.clustering.plan.strategy.class";
  private static final String BINARY_COPY = "io.huditsd.executors.clustering.JavaBinaryCopyClusteringPlanStrategy";
  /** Spark's reader with the metadata table, data skipping and the record index on. */
  private static final Map<String, String> INDEXED_READ = Map.of(
      "hoodie.datasource.query.type", "snapshot",
      "hoodie.metadata.enable", "true",
      "hoodie.enable.data.skipping", "true",
      "hoodie.metadata.record.index.enable", "true",
      "hoodie.metadata.global.record.level.index.enable", "true");
  private static final Duration SERVICES_TIMEOUT = Duration.ofMinutes(3);

  private static Path work;
  private static S3Lake lake;
  private static SharedLock lock;
  private static SparkPeer spark;

  @BeforeAll
  static void start() throws Exception {
    work = Tsd.workDirectory("S3SparkTableServicesIT");
    lake = S3Lake.start(work, "lake");
    // The lock Spark and the daemon share: the daemon's default on s3a tables, the S3 storage lock
    // (io.huditsd.lock.S3StorageLockProvider, which the writer names). For ZooKeeper instead (curator-test, named on
    // both sides): lock = SharedLock.zookeeper();
    lock = SharedLock.s3Storage();
    spark = SparkPeer.start(work.resolve("spark"), lake.sparkConf());
  }

  @AfterAll
  static void stop() throws Exception {
    try (S3Lake ignoredLake = lake; SharedLock ignoredLock = lock) {
      if (spark != null) {
        spark.close();
      }
    }
  }

  @Test
  void daemonServicesMorAndCowTablesThatSparkWroteOnS3() throws Exception {
    SparkTable mor = SparkTable.create(spark, lake.tablePath("s3_mor"), "MERGE_ON_READ", writerOptions());
    writeMergeOnRead(mor);
    SparkTable cow = SparkTable.create(spark, lake.tablePath("s3_cow"), "COPY_ON_WRITE", writerOptions());
    cow.insertInCommits(4, 45);
    cow.upsert(IntStream.range(0, 180).filter(number -> number % 4 == 0)
        .mapToObj(number -> TrackedTable.row(number, 2_000, "v2")).toList());
    Map<String, PeerRow> morExpected = mor.expected();
    Map<String, PeerRow> cowExpected = cow.expected();
    RowDiff.assertSameRows("Spark snapshot of the MOR table before the daemon ran", morExpected, mor.snapshot());
    assertThat(RowDiff.differences(morExpected, mor.readOptimized()))
        .as("MOR read_optimized before compaction (updates sit in log files)").isNotEmpty();
    RowDiff.assertSameRows("Spark snapshot of the COW table before the daemon ran", cowExpected, cow.snapshot());

    TableReader morReader = new TableReader(mor.basePath(), lake.hadoop());
    TableReader cowReader = new TableReader(cow.basePath(), lake.hadoop());
    String morFirst = firstInstant(morReader);
    String cowFirst = firstInstant(cowReader);
    List<String> cowBefore = cowReader.latestBaseFiles(Listing.STORAGE);
    Map<String, Integer> cowChunks = io.huditsd.it.support.ColumnChunks.digests(cow.basePath(), lake.hadoop(),
        cowBefore);
    assertThat(cowReader.metaClient().getTableConfig().getMetadataPartitions()).containsExactly("files");

    int port = DaemonApi.freePort();
    Path config = work.resolve("tsd.yml");
    Files.writeString(config, DaemonYaml.serverAndLogging(port, DaemonApi.freePort()) + DaemonYaml.QUICK_POLLING
        + """
        tables:
          - path: %s
            id: s3_mor
            services: [compaction, clean, archive]
          - path: %s
            id: s3_cow
            services: [clustering, clean, archive, index]
            indexes:
              record_index: {}
            hoodie:
              %s: %s
        """.formatted(mor.basePath(), cow.basePath(), PLAN_STRATEGY_KEY, BINARY_COPY) + hoodieYaml(daemonKeys()));
    long started = System.nanoTime();
    try (Tsd.Running daemon = Tsd.startDaemon(work.resolve("daemon"), lake.hadoopConfDir(), "server",
        config.toString())) {
      await("the MOR table compacted, cleaned and archived and the COW table clustered, indexed, cleaned and "
          + "archived on S3; daemon log " + daemon.logs() + ".out")
          .atMost(SERVICES_TIMEOUT).pollInterval(Duration.ofSeconds(1)).ignoreExceptions()
          .untilAsserted(() -> {
            assertServiced(morReader, morFirst, HoodieTimeline.COMMIT_ACTION);
            assertServiced(cowReader, cowFirst, HoodieTimeline.REPLACE_COMMIT_ACTION);
            assertThat(cowReader.metaClient().getTableConfig().getMetadataPartitions())
                .contains("files", "record_index");
          });
      System.out.printf("S3SparkTableServicesIT: server serviced both tables in %d s%n",
          Duration.ofNanos(System.nanoTime() - started).toSeconds());
      assertThat(new DaemonApi(port).runs()).as("runs of the daemon")
          .noneSatisfy(run -> assertThat(String.valueOf(run.get("status"))).isEqualToIgnoringCase("failed"));
    }

    lock.assertTaken(mor.basePath(), "s3_mor", lake.hadoop());
    lock.assertTaken(cow.basePath(), "s3_cow", lake.hadoop());
    TableChecks.nothingPending(morReader);
    TableChecks.nothingPending(cowReader);
    TableChecks.metadataTableInSync(morReader);
    TableChecks.metadataTableInSync(cowReader);
    RowDiff.assertSameRows("Spark snapshot of the MOR table after the daemon compacted it", morExpected,
        mor.snapshot());
    RowDiff.assertSameRows("Spark read_optimized of the MOR table after the daemon compacted it", morExpected,
        mor.readOptimized());

    String clustering = onlyCompleted(cowReader, HoodieTimeline.REPLACE_COMMIT_ACTION);
    List<String> clustered = cowReader.latestBaseFiles(Listing.STORAGE);
    assertThat(clustered).as("COW base files after clustering, %d before", cowBefore.size())
        .hasSize(TrackedTable.PARTITIONS.size())
        .allMatch(file -> file.endsWith(clustering + ".parquet"), "written by clustering " + clustering);
    assertThat(io.huditsd.it.support.ColumnChunks.digests(cow.basePath(), lake.hadoop(), clustered))
        .as("column chunks of the clustered files on S3 are the inputs' bytes (copied, not rewritten)")
        .isEqualTo(cowChunks);
    RowDiff.assertSameRows("Spark snapshot of the COW table after the daemon binary-copied it", cowExpected,
        cow.snapshot());
    RowDiff.assertSameRows("Spark read of the COW table with the record index the daemon built", cowExpected,
        PeerRow.byKey("Spark indexed read", spark.read(cow.basePath(), INDEXED_READ, null)));
    String key = TrackedTable.key(101);
    assertThat(PeerRow.byKey("lookup of " + key, spark.read(cow.basePath(), INDEXED_READ, "id = '" + key + "'")))
        .as("Spark point lookup of %s through the record index", key)
        .containsExactly(Map.entry(key, cowExpected.get(key)));

    // Spark goes on writing the serviced tables: updates in the compacted and clustered file groups, new keys.
    mor.upsert(concat(rows(100, 140, 6_000, "v6"), rows(200, 210, 6_000, "v6")));
    RowDiff.assertSameRows("Spark snapshot after Spark wrote on top of the compacted MOR table", mor.expected(),
        mor.snapshot());
    cow.upsert(IntStream.range(0, 180).filter(number -> number % 5 == 0)
        .mapToObj(number -> TrackedTable.row(number, 3_000, "v3")).toList(), Map.of("hoodie.index.type", "BLOOM"));
    RowDiff.assertSameRows("Spark snapshot after a BLOOM-index upsert on the clustered COW table", cow.expected(),
        cow.snapshot());
  }

  @Test
  void onceServicesAMergeOnReadTableThatSparkWroteOnS3() throws Exception {
    Map<String, String> options = new LinkedHashMap<>(writerOptions());
    SparkTable table = SparkTable.create(spark, lake.tablePath("s3_once"), "MERGE_ON_READ", options);
    writeMergeOnRead(table);
    Map<String, PeerRow> expected = table.expected();
    TableReader reader = new TableReader(table.basePath(), lake.hadoop());
    String first = firstInstant(reader);

    List<String> arguments = new java.util.ArrayList<>(List.of("once", "--table", table.basePath(),
        "--services", "compaction,clustering,clean,archive", "--workers", "2"));
    daemonKeys().forEach((name, value) -> arguments.addAll(List.of("--hoodie-conf", name + "=" + value)));
    Tsd.Finished once = Tsd.run(work.resolve("once"), Duration.ofMinutes(4), lake.hadoopConfDir(),
        arguments.toArray(String[]::new));
    System.out.printf("S3SparkTableServicesIT: once took %d s%n", once.elapsed().toSeconds());
    assertThat(once.exitCode()).as("exit code of once\n%s", once.output()).isZero();

    String compaction = onlyCompleted(reader, HoodieTimeline.COMMIT_ACTION);
    String clustering = onlyCompleted(reader, HoodieTimeline.REPLACE_COMMIT_ACTION);
    assertThat(once.stdout()).as("once reports its runs\n%s", once.output())
        .contains("service=compaction instant=" + compaction + " status=succeeded")
        .contains("service=clustering instant=" + clustering + " status=succeeded");
    assertServiced(reader, first, HoodieTimeline.REPLACE_COMMIT_ACTION);
    lock.assertTaken(table.basePath(), "s3_once", lake.hadoop());
    TableChecks.nothingPending(reader);
    TableChecks.metadataTableInSync(reader);
    RowDiff.assertSameRows("Spark snapshot after once on S3", expected, table.snapshot());
    RowDiff.assertSameRows("Spark read_optimized after once on S3", expected, table.readOptimized());
    table.upsert(rows(0, 30, 7_000, "v7"));
    RowDiff.assertSameRows("Spark snapshot after Spark wrote on top of the table once serviced", table.expected(),
        table.snapshot());
  }

  /**
   * Five delta commits of inserts, updates (into log files), deletes and late records that lose, so that a
   * compaction has logs to merge and archival has instants to move.
   */
  private static void writeMergeOnRead(SparkTable table) {
    table.insertInCommits(2, 60);
    table.upsert(rows(0, 60, 2_000, "v2"));
    table.upsert(concat(deletes(60, 70, 2_000), rows(0, 20, 1_500, "late")));
    table.upsert(concat(rows(70, 100, 3_000, "v3"), rows(120, 140, 1_000, "v1")));
  }

  /** The writer's options: the shared lock, small files kept apart, a metadata table with the files index only. */
  private static Map<String, String> writerOptions() {
    Map<String, String> options = new LinkedHashMap<>(lock.writerKeys());
    options.put("hoodie.parquet.small.file.limit", "0");
    options.put("hoodie.metadata.enable", "true");
    options.put("hoodie.metadata.index.column.stats.enable", "false");
    options.put("hoodie.metadata.index.partition.stats.enable", "false");
    options.put("hoodie.metadata.record.index.enable", "false");
    // Hudi archives no instant newer than the metadata table's last compaction.
    options.put("hoodie.metadata.compact.max.delta.commits", "2");
    return options;
  }

  /** The daemon's hoodie keys: the shared lock, triggers after two commits, short retention, early archival. */
  private static Map<String, String> daemonKeys() {
    Map<String, String> keys = new LinkedHashMap<>(lock.daemonKeys());
    keys.put("hoodie.compact.inline.max.delta.commits", "2");
    keys.put("hoodie.clustering.inline.max.commits", "2");
    keys.put("hoodie.clustering.plan.strategy.hot.commits", "0");
    keys.put("hoodie.clustering.plan.strategy.hot.minutes", "0");
    // Only the newest version of each file group stays: what compaction and clustering replaced goes.
    keys.put("hoodie.clean.policy", "KEEP_LATEST_FILE_VERSIONS");
    keys.put("hoodie.clean.fileversions.retained", "1");
    keys.put("hoodie.keep.min.commits", "2");
    keys.put("hoodie.keep.max.commits", "3");
    keys.put("hoodie.metadata.compact.max.delta.commits", "2");
    return keys;
  }

  private static String hoodieYaml(Map<String, String> keys) {
    StringBuilder yaml = new StringBuilder("hoodie:\n");
    keys.forEach((key, value) -> yaml.append("  ").append(key).append(": \"").append(value).append("\"\n"));
    return yaml.toString();
  }

  /**
   * The table has a completed {@code serviceAction} (commit: compaction on MOR; replacecommit: clustering), a clean
   * that completed after it, nothing pending, and its first instant archived.
   */
  private static void assertServiced(TableReader reader, String first, String serviceAction) {
    HoodieTableMetaClient metaClient = reader.metaClient();
    HoodieTimeline timeline = metaClient.getActiveTimeline();
    List<HoodieInstant> services = timeline.filterCompletedInstants().getInstantsAsStream()
        .filter(instant -> instant.getAction().equals(serviceAction)).toList();
    assertThat(services).as("completed %s on %s", serviceAction, timeline).isNotEmpty();
    String serviced = services.get(services.size() - 1).getCompletionTime();
    // By completion time: the daemon may plan a clean while a clustering is inflight (their file groups differ).
    assertThat(timeline.getCleanerTimeline().filterCompletedInstants().getInstantsAsStream()
        .map(HoodieInstant::getCompletionTime)).as("cleans completed after %s on %s", serviced, timeline)
        .anyMatch(clean -> clean.compareTo(serviced) > 0);
    assertThat(timeline.filterInflightsAndRequested().getInstants()).as("pending instants").isEmpty();
    assertThat(timeline.containsInstant(first)).as("first instant %s still active: %s", first, timeline).isFalse();
    assertThat(metaClient.getArchivedTimeline().containsInstant(first)).as("first instant %s archived", first)
        .isTrue();
  }

  private static String firstInstant(TableReader reader) {
    Optional<HoodieInstant> first = Optional.ofNullable(
        reader.metaClient().getActiveTimeline().getCommitsTimeline().firstInstant().orElse(null));
    assertThat(first).as("first instant of %s", reader.metaClient().getBasePath()).isPresent();
    return first.get().requestedTime();
  }

  /** The requested time of the only completed instant of {@code action}. */
  private static String onlyCompleted(TableReader reader, String action) {
    List<HoodieInstant> instants = reader.metaClient().getActiveTimeline().filterCompletedInstants()
        .getInstantsAsStream().filter(instant -> instant.getAction().equals(action)).toList();
    assertThat(instants).as("completed %s", action).hasSize(1);
    return instants.get(0).requestedTime();
  }
}
