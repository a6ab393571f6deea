package io.huditsd.it;

import io.huditsd.it.support.HudiWriter;
import io.huditsd.it.support.RowDiff;
import io.huditsd.it.support.SparkPeer;
import io.huditsd.it.support.SparkTable;
import io.huditsd.it.support.TableReader;
import io.huditsd.it.support.TrackedTable;
import io.huditsd.it.support.Tsd;
import org.apache.hudi.common.table.timeline.HoodieInstant;
import org.apache.hudi.common.table.timeline.HoodieTimeline;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static io.huditsd.it.support.TrackedTable.concat;
import static io.huditsd.it.support.TrackedTable.deletes;
import static io.huditsd.it.support.TrackedTable.rows;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The writers users run, each its release's official Spark bundle in its own Spark session (Hudi 0.15.0 at table
 * version 6, 1.0.2 at 8, 1.2.0 at 9), on a MERGE_ON_READ and a COPY_ON_WRITE table: the writer writes rounds
 * (inserts, updates, late records that must lose, deletes) with its own table services off; {@code bin/tsd once}
 * compacts and clusters (binary copy), and after one more commit cleans and archives; then the same writer writes on
 * with its own inline clean and archival (so its cleaner and archiver read the instants the daemon wrote: a Hudi 0.15
 * archiver failed every commit on the daemon's empty {@code .clean.inflight}; on version 6 it must archive one of
 * the daemon's cleans) and upserts through its BLOOM index
 * into the clustered files; the daemon services again (clustering by rewrite), and the writer writes once more. After
 * each step Spark reads back exactly the model, snapshot and (once compacted) read-optimized, no key twice, the table
 * version unchanged (and 1.2.0's {@code show_fsview_latest} reads the file system view).
 */
class WriterMatrixIT {
  /** The daemon's keys: every service due at once, cleans keeping one commit, an archiver keeping 2 to 3 instants. */
  private static final List<String> DAEMON_KEYS = List.of(
      "hoodie.compact.inline.max.delta.commits=1",
      "hoodie.clustering.inline.max.commits=1",
      "hoodie.clustering.plan.strategy.hot.commits=0",
      "hoodie.clustering.plan.strategy.hot.minutes=0",
      "hoodie.clean.commits.retained=1",
      "hoodie.keep.min.commits=2",
      "hoodie.keep.max.commits=3",
      // The metadata table compacts (and so lets the data table's archiver past its instants) every 2 commits.
      "hoodie.metadata.compact.max.delta.commits=2");
  /** The writer's own services, on from its second phase: the same retention as the daemon's. */
  private static final Map<String, String> WRITER_SERVICES_ON = Map.of(
      "hoodie.clean.automatic", "true",
      "hoodie.archive.automatic", "true",
      "hoodie.clean.commits.retained", "1",
      "hoodie.keep.min.commits", "2",
      "hoodie.keep.max.commits", "3",
      "hoodie.metadata.compact.max.delta.commits", "2",
      "hoodie.index.type", "BLOOM");
  /**
   * On a MOR table its inline compaction too: without new base files a MOR writer's cleaner has nothing to clean, and
   * without a clean newer than the daemon's its archiver never reaches the daemon's instants.
   */
  private static final Map<String, String> MOR_WRITER_SERVICES_ON = Map.of(
      "hoodie.compact.inline", "true",
      "hoodie.compact.inline.max.delta.commits", "1");
  private static final Map<String, String> NEW_FILE_GROUPS = Map.of("hoodie.parquet.small.file.limit", "0");

  @ParameterizedTest(name = "{0}")
  @EnumSource(HudiWriter.class)
  void theWriterGoesOnWritingTheTablesTheDaemonServiced(HudiWriter writer) throws Exception {
    Path work = Tsd.workDirectory("WriterMatrixIT/" + writer.release());
    // 1.2.0 is the shared peer's own Hudi; an older release's bundle needs a session of its own.
    SparkPeer own = writer == HudiWriter.HUDI_1_2 ? null : SparkPeer.start(work.resolve("spark"), writer);
    SparkPeer spark = own == null ? SparkPeer.shared() : own;
    try {
      List<SparkTable> tables = new ArrayList<>();
      for (String type : List.of("MERGE_ON_READ", "COPY_ON_WRITE")) {
        SparkTable table = SparkTable.create(spark, work.resolve(type.equals("MERGE_ON_READ") ? "mor" : "cow"),
            type, Map.of());
        // Two insert commits, so that every partition has two small file groups to cluster.
        table.insert(rows(0, 100, 1_000, "v1"), NEW_FILE_GROUPS);
        table.insert(rows(100, 200, 1_000, "v1"), NEW_FILE_GROUPS);
        table.upsert(rows(0, 60, 2_000, "v2"));
        // Deletes, and late records below the version they meet, in a log file (MOR) or a base file.
        table.upsert(concat(deletes(60, 80, 2_000), rows(0, 20, 1_500, "late"), rows(120, 140, 500, "late")));
        table.upsert(rows(80, 120, 3_000, "v3"));
        assertThat(tableVersion(table)).as("table version %s's writer created", writer)
            .isEqualTo(writer.tableVersion());
        RowDiff.assertSameRows(writer + ": snapshot of " + table.basePath() + " before the daemon",
            table.expected(), table.snapshot());
        tables.add(table);
      }

      service(writer, work.resolve("once-compact-cluster"), tables, "compaction,clustering,clean,archive",
          List.of());
      for (SparkTable table : tables) {
        // The clustering replaced every file group; past one more commit (hoodie.clean.commits.retained=1) the
        // replaced files are the clean's.
        table.upsert(rows(160, 180, 4_000, "v4"));
      }
      Map<SparkTable, Set<String>> daemonCleans = new HashMap<>();
      service(writer, work.resolve("once-clean"), tables, "clean,archive", List.of());
      if (writer.tableVersion() == 6) {
        // A 0.14/0.15 archiver takes cleans only once more than hoodie.keep.max.commits (3) are on the timeline,
        // and a MOR writer with retention 1 leaves none of its own: more passes, each cleaning what the compaction
        // of the pass before left, so that the daemon leaves more than 3 and the writer's archiver below reads them.
        for (int round = 0; round < 4; round++) {
          for (SparkTable table : tables) {
            table.upsert(rows(180 + round * 5, 185 + round * 5, 4_500 + round, "v4"));
          }
          // The daemon's own archiver keeps up to 5 instants of a kind here, so that it keeps its cleans for the
          // writer's.
          service(writer, work.resolve("once-clean-" + round), tables, "compaction,clean,archive",
              List.of("hoodie.keep.min.commits=4", "hoodie.keep.max.commits=5"));
        }
      }
      for (SparkTable table : tables) {
        daemonCleans.put(table, completedCleans(table));
        assertThat(daemonCleans.get(table)).as("the daemon's cleans of %s", table.basePath()).isNotEmpty();
      }

      for (SparkTable table : tables) {
        // The writer's own cleaner and archiver on; existing keys found through its BLOOM index in the clustered
        // files, new keys, late records that must lose, deletes.
        Map<String, String> servicesOn = writerServicesOn(table);
        table.upsert(concat(rows(0, 40, 5_000, "v5"), rows(200, 220, 5_000, "v5")), servicesOn);
        table.upsert(rows(40, 60, 100, "late2"), servicesOn);
        table.upsert(deletes(100, 110, 6_000), servicesOn);
        table.upsert(rows(140, 160, 7_000, "v7"), servicesOn);
        RowDiff.assertSameRows(writer + ": snapshot of " + table.basePath() + " after the writer wrote on the "
            + "serviced table with its own clean and archival", table.expected(), table.snapshot());
        assertThat(tableVersion(table)).as("table version after %s wrote on %s", writer, table.basePath())
            .isEqualTo(writer.tableVersion());
        if (writer.tableVersion() == 6) {
          Set<String> archivedByWriter = new TreeSet<>(daemonCleans.get(table));
          archivedByWriter.removeAll(activeInstants(table));
          assertThat(archivedByWriter).as("the daemon's cleans (%s) that %s's archiver archived on %s: none means "
              + "its archiver never read one", daemonCleans.get(table), writer, table.basePath()).isNotEmpty();
        }
        assertProceduresRead(spark, writer, table);
      }

      service(writer, work.resolve("once-rewrite"), tables, "compaction,clustering,clean,archive", List.of(
          "hoodie.clustering.plan.strategy.class=io.huditsd.executors.clustering.HotAwareClusteringPlanStrategy"));

      for (SparkTable table : tables) {
        table.upsert(concat(rows(0, 10, 8_000, "v8"), rows(220, 230, 8_000, "v8")), writerServicesOn(table));
        RowDiff.assertSameRows(writer + ": snapshot of " + table.basePath() + " after the writer wrote on the "
            + "table the daemon serviced twice", table.expected(), table.snapshot());
        assertThat(tableVersion(table)).as("table version at the end").isEqualTo(writer.tableVersion());
      }
    } finally {
      if (own != null) {
        own.close();
      }
    }
  }

  /**
   * The writer's own SQL procedures read the table the daemon serviced: {@code show_commits} lists completed
   * instants of its active timeline (the daemon's among them where not archived yet), {@code show_fsview_latest}
   * the latest file slices of a partition. Before 1.2 they name a catalog table only, which is registered first.
   */
  private static void assertProceduresRead(SparkPeer spark, HudiWriter writer, SparkTable table) throws IOException {
    Path basePath = Path.of(table.basePath());
    String name = "matrix_" + writer.release().replace('.', '_') + "_" + basePath.getFileName();
    spark.sql("CREATE TABLE IF NOT EXISTS " + name + " USING hudi LOCATION '" + basePath + "'");
    List<Map<String, Object>> commits = spark.sql("CALL show_commits(table => '" + name + "', limit => 1000)");
    Set<String> completed = timeline(table).getCommitsTimeline().filterCompletedInstants().getInstantsAsStream()
        .map(HoodieInstant::requestedTime).collect(Collectors.toSet());
    assertThat(commits).as("%s's show_commits on %s", writer, basePath).isNotEmpty()
        .allSatisfy(row -> assertThat(completed).as("completed instants on the timeline")
            .contains(String.valueOf(row.get("commit_time"))));
    String partition;
    try (Stream<Path> children = Files.list(basePath)) {
      partition = children.filter(Files::isDirectory).map(child -> child.getFileName().toString())
          .filter(child -> !child.startsWith(".")).sorted().findFirst().orElseThrow();
    }
    assertThat(spark.sql("CALL show_fsview_latest(table => '" + name + "', partition_path => '" + partition + "')"))
        .as("%s's show_fsview_latest on %s, partition %s", writer, basePath, partition).isNotEmpty();
  }

  /**
   * One {@code bin/tsd once} over both tables running {@code services}: it must leave nothing pending and keep each
   * table's version; Spark then reads back the model. With clustering, each table must have been clustered once
   * more; with compaction, the MOR table compacted and its read-optimized view equal to the model too.
   */
  private static void service(HudiWriter writer, Path logs, List<SparkTable> tables, String services,
                              List<String> extraKeys) throws Exception {
    Map<SparkTable, Integer> clusteringsBefore = new HashMap<>();
    for (SparkTable table : tables) {
      clusteringsBefore.put(table, timeline(table).getCompletedReplaceTimeline().countInstants());
    }
    List<String> arguments = new ArrayList<>(List.of("once", "--services", services, "--workers", "2"));
    for (SparkTable table : tables) {
      arguments.addAll(List.of("--table", table.basePath()));
    }
    for (String key : concatKeys(extraKeys)) {
      arguments.addAll(List.of("--hoodie-conf", key));
    }
    Tsd.Finished once = Tsd.run(logs, Duration.ofMinutes(4), arguments.toArray(String[]::new));
    assertThat(once.exitCode()).as("exit code of once on %s's tables\n%s", writer, once.output()).isZero();

    for (SparkTable table : tables) {
      HoodieTimeline timeline = timeline(table);
      String what = writer + "'s " + table.basePath() + " after " + logs.getFileName();
      assertThat(timeline.filterInflightsAndRequested().getInstants()).as("unfinished instants of %s", what)
          .isEmpty();
      if (services.contains("clustering")) {
        assertThat(timeline.getCompletedReplaceTimeline().countInstants())
            .as("completed clusterings of %s (%s)", what, timeline).isGreaterThan(clusteringsBefore.get(table));
      }
      assertThat(tableVersion(table)).as("table version of %s", what).isEqualTo(writer.tableVersion());
      RowDiff.assertSameRows("snapshot of " + what, table.expected(), table.snapshot());
      if (services.contains("compaction") && isMergeOnRead(table)) {
        assertThat(timeline.getCommitTimeline().filterCompletedInstants().getInstants().stream()
            .filter(instant -> instant.getAction().equals(HoodieTimeline.COMMIT_ACTION)).count())
            .as("completed compactions of %s", what).isPositive();
        RowDiff.assertSameRows("read_optimized of " + what, table.expected(), table.readOptimized());
      }
    }
  }

  private static Map<String, String> writerServicesOn(SparkTable table) {
    Map<String, String> keys = new HashMap<>(WRITER_SERVICES_ON);
    if (isMergeOnRead(table)) {
      keys.putAll(MOR_WRITER_SERVICES_ON);
    }
    return keys;
  }

  private static boolean isMergeOnRead(SparkTable table) {
    return table.options().get("hoodie.datasource.write.table.type").equals("MERGE_ON_READ");
  }

  /** The daemon's keys, {@code extraKeys} in place of those of the same name. */
  private static List<String> concatKeys(List<String> extraKeys) {
    Map<String, String> keys = new LinkedHashMap<>();
    for (String key : both(DAEMON_KEYS, extraKeys)) {
      keys.put(key.substring(0, key.indexOf('=')), key);
    }
    return List.copyOf(keys.values());
  }

  private static List<String> both(List<String> first, List<String> second) {
    List<String> all = new ArrayList<>(first);
    all.addAll(second);
    return all;
  }

  private static HoodieTimeline timeline(SparkTable table) {
    return new TableReader(table.basePath()).metaClient().getActiveTimeline();
  }

  private static Set<String> completedCleans(SparkTable table) {
    return timeline(table).getCleanerTimeline().filterCompletedInstants().getInstants().stream()
        .map(HoodieInstant::requestedTime).collect(Collectors.toCollection(TreeSet::new));
  }

  private static Set<String> activeInstants(SparkTable table) {
    return timeline(table).getInstants().stream().map(HoodieInstant::requestedTime).collect(Collectors.toSet());
  }

  private static int tableVersion(SparkTable table) {
    return Integer.parseInt(
        TrackedTable.hoodieProperties(table.basePath()).getProperty("hoodie.table.version"));
  }
}
