package io.huditsd.it;

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
import java.util.stream.IntStream;

import static io.huditsd.it.support.TrackedTable.rows;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A COPY_ON_WRITE table that Spark wrote in many small commits is clustered by {@code hudi-tsd once}. Spark must
 * read the same rows afterwards (it lists files from the metadata table, so a clustering that did not update it
 * shows up as duplicates or missing rows), and a Spark upsert with the BLOOM index must find the existing keys in
 * the files the daemon wrote (their bloom filters and key ranges) and update them in place, without duplicates.
 */
class SparkCowClusteringIT {
  private static final int INSERT_COMMITS = 5;
  private static final int ROWS_PER_COMMIT = 40;
  private static final int KEYS = INSERT_COMMITS * ROWS_PER_COMMIT;
  private static SparkPeer spark;

  @BeforeAll
  static void startSpark() throws InterruptedException {
    spark = SparkPeer.shared();
  }

  @Test
  void sparkReadsTheClusteredTableAndBloomIndexUpsertsFindTheClusteredKeys() throws Exception {
    Path work = Tsd.workDirectory("SparkCowClusteringIT/daemon");
    Path basePath = work.resolve("spark_cow");
    // Every commit opens new files instead of filling the existing ones.
    SparkTable table = SparkTable.create(spark, basePath, "COPY_ON_WRITE",
        Map.of("hoodie.parquet.small.file.limit", "0"));
    for (int commit = 0; commit < INSERT_COMMITS; commit++) {
      table.insert(rows(commit * ROWS_PER_COMMIT, (commit + 1) * ROWS_PER_COMMIT, 1_000, "v1"));
    }
    // Updates rewrite some of the small files; clustering must keep the newest version of each row.
    table.upsert(IntStream.range(0, KEYS).filter(number -> number % 4 == 0)
        .mapToObj(number -> TrackedTable.row(number, 2_000, "v2")).toList());
    Map<String, PeerRow> expected = table.expected();
    assertThat(expected).hasSize(KEYS);
    RowDiff.assertSameRows("Spark snapshot before clustering (Spark alone)", expected, table.snapshot());

    TableReader reader = new TableReader(basePath.toString());
    List<String> before = reader.latestBaseFiles(Listing.STORAGE);
    assertThat(before).as("latest base files before clustering (one per partition and insert commit)")
        .hasSize(INSERT_COMMITS * TrackedTable.PARTITIONS.size());

    Tsd.Finished once = Tsd.run(work.resolve("once"), Duration.ofMinutes(3), "once", "--table", basePath.toString(),
        "--services", "clustering", "--workers", "2",
        "--hoodie-conf", "hoodie.clustering.inline.max.commits=2", "--hoodie-conf", "hoodie.clustering.plan.strategy.hot.commits=0",
        "--hoodie-conf", "hoodie.clustering.plan.strategy.hot.minutes=0",
        // The rewrite, which the default (binary copy, SparkBinaryCopyClusteringIT) uses only for what it cannot copy.
        "--hoodie-conf", "hoodie.clustering.plan.strategy.class=io.huditsd.executors.clustering.HotAwareClusteringPlanStrategy");
    assertThat(once.exitCode()).as("exit code of once\n%s", once.output()).isZero();

    HoodieTimeline timeline = reader.metaClient().getActiveTimeline();
    List<HoodieInstant> replaces = timeline.getCompletedReplaceTimeline().getInstants();
    assertThat(replaces).as("completed clustering (replacecommit) on %s", timeline).hasSize(1);
    String clustering = replaces.get(0).requestedTime();
    assertThat(timeline.filterInflightsAndRequested().getInstants()).as("unfinished instants").isEmpty();
    assertThat(once.stdout()).as("once reports the run\n%s", once.output())
        .contains("service=clustering instant=" + clustering + " status=succeeded");
    // The rewrite's plan names Hudi's list strategy; the daemon executes it with its streaming rewrite.
    assertThat(once.output()).as("execution strategy of the rewrite plan\n%s", once.output())
        .contains("execution strategy io.huditsd.executors.clustering.JavaStreamingRewriteExecutionStrategy");
    List<String> clustered = reader.latestBaseFiles(Listing.STORAGE);
    assertThat(clustered).as("latest base files after clustering, %d before: %s", before.size(), before)
        .hasSize(TrackedTable.PARTITIONS.size())
        .allMatch(file -> file.endsWith(clustering + ".parquet"), "written by clustering " + clustering);

    RowDiff.assertSameRows("Spark snapshot after the daemon clustered", expected, table.snapshot());

    // Existing keys only, in every partition: found through the bloom filters of the clustered files, each is
    // updated in its file group. A key the index missed would be inserted as a new record: a duplicate, and a new
    // file group.
    table.upsert(IntStream.range(0, KEYS).filter(number -> number % 5 == 0)
        .mapToObj(number -> TrackedTable.row(number, 3_000, "v3")).toList(), Map.of("hoodie.index.type", "BLOOM"));
    RowDiff.assertSameRows("Spark snapshot after a BLOOM-index upsert on the clustered table", table.expected(),
        table.snapshot());
    List<String> afterUpsert = reader.latestBaseFiles(Listing.STORAGE);
    assertThat(afterUpsert.stream().map(SparkCowClusteringIT::fileGroup).sorted().toList())
        .as("file groups after the BLOOM upsert (%s) are the clustered ones (%s)", afterUpsert, clustered)
        .isEqualTo(clustered.stream().map(SparkCowClusteringIT::fileGroup).sorted().toList());
    assertThat(afterUpsert).as("latest base files after the BLOOM upsert: new versions of the clustered files")
        .noneMatch(clustered::contains);
  }

  private static String fileGroup(String partitionAndFile) {
    String partition = partitionAndFile.substring(0, partitionAndFile.indexOf('/'));
    return partition + "/" + FSUtils.getFileId(partitionAndFile.substring(partitionAndFile.indexOf('/') + 1));
  }
}
