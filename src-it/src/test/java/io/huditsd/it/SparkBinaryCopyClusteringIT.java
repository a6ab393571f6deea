package io.huditsd.it;

import io.huditsd.it.support.ColumnChunks;
import io.huditsd.it.support.PeerRow;
import io.huditsd.it.support.RowDiff;
import io.huditsd.it.support.SparkPeer;
import io.huditsd.it.support.SparkTable;
import io.huditsd.it.support.TableReader;
import io.huditsd.it.support.TableReader.Listing;
import io.huditsd.it.support.TrackedTable;
import io.huditsd.it.support.Tsd;
import org.apache.hudi.common.fs.FSUtils;
import org.apache.hudi.common.table.timeline.HoodieInstant;
import org.apache.hudi.common.table.timeline.HoodieTimeline;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.IntStream;

import static io.huditsd.it.support.TrackedTable.rows;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tables that Spark wrote in many small commits are clustered by {@code hudi-tsd once} with its default plans,
 * binary copy (row groups copied, not records rewritten; no key names it). Spark must read the same rows afterwards, snapshot and, for
 * MOR, read_optimized; file slices with log files are rewritten instead, and a Spark upsert with the BLOOM index
 * must find the keys in the copied files.
 */
class SparkBinaryCopyClusteringIT {
  private static final int INSERT_COMMITS = 4;
  private static final int ROWS_PER_COMMIT = 45;
  private static final int KEYS = INSERT_COMMITS * ROWS_PER_COMMIT;
  private static SparkPeer spark;

  @BeforeAll
  static void startSpark() throws InterruptedException {
    spark = SparkPeer.shared();
  }

  @Test
  void sparkReadsACopyOnWriteTableWhoseFilesTheDaemonStitched() throws Exception {
    Path work = Tsd.workDirectory("SparkBinaryCopyClusteringIT/cow");
    Path basePath = work.resolve("spark_cow");
    SparkTable table = SparkTable.create(spark, basePath, "COPY_ON_WRITE",
        Map.of("hoodie.parquet.small.file.limit", "0"));
    for (int commit = 0; commit < INSERT_COMMITS; commit++) {
      table.insert(rows(commit * ROWS_PER_COMMIT, (commit + 1) * ROWS_PER_COMMIT, 1_000, "v1"));
    }
    Map<String, PeerRow> expected = table.expected();
    TableReader reader = new TableReader(basePath.toString());
    List<String> before = reader.latestBaseFiles(Listing.STORAGE);
    Map<String, Integer> inputChunks = ColumnChunks.digests(basePath, before);

    clusterOnce(work, basePath);

    String clustering = onlyClustering(reader);
    List<String> clustered = reader.latestBaseFiles(Listing.STORAGE);
    assertThat(clustered).as("latest base files after clustering, %d before: %s", before.size(), before)
        .hasSize(TrackedTable.PARTITIONS.size())
        .allMatch(file -> file.endsWith(clustering + ".parquet"), "written by clustering " + clustering);
    assertThat(ColumnChunks.digests(basePath, clustered))
        .as("column chunks of the clustered files are the inputs' bytes (copied, not rewritten)")
        .isEqualTo(inputChunks);
    RowDiff.assertSameRows("Spark snapshot after the daemon binary-copied", expected, table.snapshot());
    // Spark's own Parquet reader (vectorized) decodes the _hoodie_file_name chunks the copy wrote anew.
    for (String file : clustered) {
      assertThat(spark.sql("SELECT DISTINCT _hoodie_file_name FROM parquet.`" + basePath.resolve(file) + "`"))
          .as("_hoodie_file_name in %s", file)
          .extracting(row -> row.get("_hoodie_file_name"))
          .containsExactly(file.substring(file.indexOf('/') + 1));
    }

    table.upsert(IntStream.range(0, KEYS).filter(number -> number % 5 == 0)
        .mapToObj(number -> TrackedTable.row(number, 3_000, "v3")).toList(), Map.of("hoodie.index.type", "BLOOM"));
    RowDiff.assertSameRows("Spark snapshot after a BLOOM-index upsert on the copied table", table.expected(),
        table.snapshot());
  }

  @Test
  void sparkReadsAMergeOnReadTableWhoseBaseOnlySlicesWereCopiedAndLogSlicesRewritten() throws Exception {
    Path work = Tsd.workDirectory("SparkBinaryCopyClusteringIT/mor");
    Path basePath = work.resolve("spark_mor");
    SparkTable table = SparkTable.create(spark, basePath, "MERGE_ON_READ",
        Map.of("hoodie.parquet.small.file.limit", "0"));
    for (int commit = 0; commit < INSERT_COMMITS; commit++) {
      table.insert(rows(commit * ROWS_PER_COMMIT, (commit + 1) * ROWS_PER_COMMIT, 1_000, "v1"));
    }
    // Updates of the first two commits' keys go to log files: two slices with logs per partition, two without.
    table.upsert(IntStream.range(0, 2 * ROWS_PER_COMMIT).filter(number -> number % 2 == 0)
        .mapToObj(number -> TrackedTable.row(number, 2_000, "v2")).toList());
    Map<String, PeerRow> expected = table.expected();
    RowDiff.assertSameRows("Spark snapshot before clustering", expected, table.snapshot());
    TableReader reader = new TableReader(basePath.toString());
    Set<String> withLogs = ColumnChunks.fileIdsWithLogs(basePath);
    List<String> baseOnly = reader.latestBaseFiles(Listing.STORAGE).stream()
        .filter(file -> !withLogs.contains(FSUtils.getFileId(file.substring(file.indexOf('/') + 1)))).toList();
    assertThat(withLogs).as("file groups with log files").hasSize(2 * TrackedTable.PARTITIONS.size());
    assertThat(baseOnly).as("latest base files of file groups without logs")
        .hasSize((INSERT_COMMITS - 2) * TrackedTable.PARTITIONS.size());
    Map<String, Integer> baseOnlyChunks = ColumnChunks.digests(basePath, baseOnly);

    clusterOnce(work, basePath);

    onlyClustering(reader);
    Map<String, Integer> outputChunks = ColumnChunks.digests(basePath, reader.latestBaseFiles(Listing.STORAGE));
    assertThat(outputChunks).as("the base-only slices were copied, chunk for chunk")
        .containsAllEntriesOf(baseOnlyChunks);
    RowDiff.assertSameRows("Spark snapshot after the daemon clustered", expected, table.snapshot());
    RowDiff.assertSameRows("Spark read_optimized after the daemon clustered (no slice keeps logs)", expected,
        table.readOptimized());
  }

  private static void clusterOnce(Path work, Path basePath) throws InterruptedException {
    Tsd.Finished once = Tsd.run(work.resolve("once"), Duration.ofMinutes(3), "once", "--table", basePath.toString(),
        "--services", "clustering", "--workers", "2",
        "--hoodie-conf", "hoodie.clustering.inline.max.commits=2",
        "--hoodie-conf", "hoodie.clustering.plan.strategy.hot.commits=0", "--hoodie-conf", "hoodie.clustering.plan.strategy.hot.minutes=0");
    assertThat(once.exitCode()).as("exit code of once\n%s", once.output()).isZero();
    assertThat(once.output()).as("execution strategy of the default plan\n%s", once.output())
        .contains("execution strategy io.huditsd.executors.clustering.JavaBinaryCopyClusteringExecutionStrategy");
  }

  private static String onlyClustering(TableReader reader) {
    HoodieTimeline timeline = reader.metaClient().getActiveTimeline();
    List<HoodieInstant> replaces = timeline.getCompletedReplaceTimeline().getInstants();
    assertThat(replaces).as("completed clustering (replacecommit) on %s", timeline).hasSize(1);
    assertThat(timeline.filterInflightsAndRequested().getInstants()).as("unfinished instants").isEmpty();
    return replaces.get(0).requestedTime();
  }
}
