package io.huditsd.it;

import io.huditsd.api.demo.SampleRow;
import io.huditsd.it.support.RowDiff;
import io.huditsd.it.support.TableReader;
import io.huditsd.it.support.TableReader.Listing;
import io.huditsd.it.support.TrackedTable;
import io.huditsd.it.support.Tsd;
import org.apache.hudi.common.model.HoodieTableType;
import org.apache.hudi.common.table.timeline.HoodieInstant;
import org.apache.hudi.common.table.timeline.HoodieTimeline;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;

import static io.huditsd.it.support.TrackedTable.rows;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code hudi-tsd once} clusters a copy-on-write table of many small files into few, and readers see the same rows
 * afterwards, whether they list files on storage or from the metadata table.
 */
class ClusteringIT {
  private static final int INSERT_COMMITS = 5;

  @ParameterizedTest(name = "table version {0}")
  @ValueSource(ints = {9, 6})
  void clustersSmallFilesWithoutChangingTheRows(int tableVersion) throws Exception {
    Path work = Tsd.workDirectory("ClusteringIT/v" + tableVersion);
    Path basePath = work.resolve("cow_v" + tableVersion);
    Map<String, SampleRow> expected;
    try (TrackedTable table = TrackedTable.create(basePath, HoodieTableType.COPY_ON_WRITE, tableVersion,
        // Every insert commit opens new files instead of filling the existing ones.
        Map.of("hoodie.parquet.small.file.limit", "0"))) {
      for (int commit = 0; commit < INSERT_COMMITS; commit++) {
        table.insert(rows(commit * 120, (commit + 1) * 120, 1_000, "v1"));
      }
      // Updates rewrite some of the small files; clustering must keep the newest version of each row.
      table.upsert(IntStream.range(0, INSERT_COMMITS * 120).filter(number -> number % 4 == 0)
          .mapToObj(number -> TrackedTable.row(number, 2_000, "v2")).toList());
      expected = table.expected().rows();
    }
    TableReader reader = new TableReader(basePath.toString());
    List<String> before = reader.latestBaseFiles(Listing.STORAGE);
    assertThat(before).as("latest base files before clustering")
        .hasSize(INSERT_COMMITS * TrackedTable.PARTITIONS.size());
    RowDiff.assertSameRows("rows before clustering", expected, reader.snapshot(Listing.STORAGE));

    Tsd.Finished once = Tsd.run(work.resolve("once"), Duration.ofMinutes(3), "once", "--table", basePath.toString(),
        "--services", "clustering", "--workers", "2",
        "--hoodie-conf", "hoodie.clustering.inline.max.commits=2", "--hoodie-conf", "hoodie.clustering.plan.strategy.hot.commits=0",
        "--hoodie-conf", "hoodie.clustering.plan.strategy.hot.minutes=0");
    assertThat(once.exitCode()).as("exit code of once\n%s", once.output()).isZero();

    HoodieTimeline timeline = reader.metaClient().getActiveTimeline();
    List<HoodieInstant> replaces = timeline.getCompletedReplaceTimeline().getInstants();
    assertThat(replaces).as("completed clustering (replacecommit) on %s", timeline).hasSize(1);
    String clustering = replaces.get(0).requestedTime();
    assertThat(timeline.filterPendingReplaceOrClusteringTimeline().getInstants()).as("pending clustering").isEmpty();
    assertThat(timeline.filterInflightsAndRequested().getInstants()).as("unfinished instants").isEmpty();
    assertThat(once.stdout()).as("once reports the run\n%s", once.output())
        .contains("service=clustering instant=" + clustering + " status=succeeded");

    List<String> after = reader.latestBaseFiles(Listing.STORAGE);
    // Hudi's size-based plan puts each partition's small files (well under the 1 GB target) into one group.
    assertThat(after).as("latest base files after clustering, %d before: %s", before.size(), before)
        .hasSize(TrackedTable.PARTITIONS.size())
        .allMatch(file -> file.endsWith(clustering + ".parquet"), "written by clustering " + clustering);
    assertThat(reader.latestBaseFiles(Listing.METADATA_TABLE)).as("latest base files listed from the metadata table")
        .isEqualTo(after);

    RowDiff.assertSameRows("rows after clustering", expected, reader.snapshot(Listing.STORAGE));
    RowDiff.assertSameRows("rows after clustering, listed from the metadata table", expected,
        reader.readOptimized(Listing.METADATA_TABLE));
    assertThat(TrackedTable.hoodieProperties(basePath.toString()).getProperty("hoodie.table.version"))
        .as("hoodie.table.version after the daemon ran").isEqualTo(Integer.toString(tableVersion));
  }
}
