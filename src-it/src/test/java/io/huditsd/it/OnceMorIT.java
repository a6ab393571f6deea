package io.huditsd.it;

import io.huditsd.api.demo.SampleRow;
import io.huditsd.it.support.RowDiff;
import io.huditsd.it.support.TableReader;
import io.huditsd.it.support.TableReader.Listing;
import io.huditsd.it.support.TrackedTable;
import io.huditsd.it.support.Tsd;
import org.apache.hudi.common.model.HoodieTableType;
import org.apache.hudi.common.table.HoodieTableMetaClient;
import org.apache.hudi.common.table.timeline.HoodieInstant;
import org.apache.hudi.common.table.timeline.HoodieTimeline;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import static io.huditsd.it.support.TrackedTable.concat;
import static io.huditsd.it.support.TrackedTable.deletes;
import static io.huditsd.it.support.TrackedTable.rows;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code hudi-tsd once} compacts a MERGE_ON_READ table on each table version it services, and a reader sees exactly
 * the rows the writes imply: updates win by {@code ts}, deletes remove, late-arriving records (lower {@code ts})
 * lose, both before and after compaction. After compaction a read-optimized query (base files only, listed from the
 * metadata table as Spark lists them) must equal the snapshot: a compaction that did not update the metadata table
 * leaves read-optimized readers on the old base files.
 */
class OnceMorIT {
  private static final Duration ONCE_TIMEOUT = Duration.ofMinutes(3);

  @ParameterizedTest(name = "table version {0}")
  @ValueSource(ints = {9, 8, 6})
  void compactsWithoutChangingWhatReadersSee(int tableVersion) throws Exception {
    Path work = Tsd.workDirectory("OnceMorIT/v" + tableVersion);
    Path basePath = work.resolve("mor_v" + tableVersion);
    List<String> deltaCommits;
    Map<String, SampleRow> expected;
    try (TrackedTable table = TrackedTable.create(basePath, HoodieTableType.MERGE_ON_READ, tableVersion,
        TrackedTable.MOR_WRITER_KEYS)) {
      table.insert(rows(0, 600, 1_000, "v1"));
      table.upsert(rows(0, 200, 2_000, "v2"));
      table.upsert(deletes(200, 250, 2_000));
      // Late arrivals: lower ts than the version in the log (k0-k99) and in the base file (k300-k349).
      table.upsert(concat(rows(0, 100, 1_500, "late"), rows(300, 350, 500, "late"), rows(600, 650, 1_000, "v1")));
      // A late delete (ts 900 < 1000) loses; an update of previously untouched keys wins.
      table.upsert(concat(deletes(400, 420, 900), rows(250, 300, 3_000, "v3")));
      deltaCommits = table.commits();
      expected = table.expected().rows();
    }
    assertThat(expected).hasSize(600 + 50 - 50);

    TableReader reader = new TableReader(basePath.toString());
    RowDiff.assertSameRows("snapshot before compaction (writer and reader alone)", expected,
        reader.snapshot(Listing.STORAGE));
    // Without this the read-optimized comparison below could pass with no log data at all.
    assertThat(RowDiff.differences(expected, reader.readOptimized(Listing.STORAGE)))
        .as("read-optimized differs from snapshot before compaction (updates sit in log files)")
        .isNotEmpty();

    Tsd.Finished once = Tsd.run(work.resolve("once"), ONCE_TIMEOUT, "once", "--table", basePath.toString(),
        "--services", "compaction", "--workers", "2",
        "--hoodie-conf", "hoodie.compact.inline.max.delta.commits=3");
    assertThat(once.exitCode()).as("exit code of once\n%s", once.output()).isZero();

    HoodieTableMetaClient metaClient = reader.metaClient();
    HoodieTimeline timeline = metaClient.getActiveTimeline();
    List<HoodieInstant> compactions = timeline.getCommitTimeline().filterCompletedInstants().getInstants();
    assertThat(compactions).as("completed compaction commits on %s", timeline).hasSize(1);
    String compaction = compactions.get(0).requestedTime();
    assertThat(compaction).as("compaction instant after the last delta commit %s", deltaCommits)
        .isGreaterThan(deltaCommits.get(deltaCommits.size() - 1));
    assertThat(timeline.filterPendingCompactionTimeline().getInstants()).as("pending compactions").isEmpty();
    assertThat(timeline.filterInflightsAndRequested().getInstants()).as("unfinished instants").isEmpty();
    assertThat(once.stdout()).as("once reports the run\n%s", once.output())
        .contains("service=compaction instant=" + compaction + " status=succeeded")
        // The progress lines of a CronJob's log (INFO lines Dropwizard's bootstrap filter used to drop), and none of
        // a library's DEBUG lines.
        .contains("Scheduled table=").contains("Finished table=")
        .doesNotContain(" DEBUG ");

    RowDiff.assertSameRows("snapshot after compaction", expected, reader.snapshot(Listing.STORAGE));
    RowDiff.assertSameRows("snapshot after compaction, listed from the metadata table", expected,
        reader.snapshot(Listing.METADATA_TABLE));
    RowDiff.assertSameRows("read-optimized after compaction, listed from the metadata table", expected,
        reader.readOptimized(Listing.METADATA_TABLE));
    RowDiff.assertSameRows("read-optimized after compaction, listed on storage", expected,
        reader.readOptimized(Listing.STORAGE));
    assertThat(reader.latestBaseFiles(Listing.METADATA_TABLE)).as("latest base files, metadata table vs storage")
        .isEqualTo(reader.latestBaseFiles(Listing.STORAGE))
        .anyMatch(file -> file.contains(compaction));

    assertThat(TrackedTable.hoodieProperties(basePath.toString()).getProperty("hoodie.table.version"))
        .as("hoodie.table.version after the daemon ran").isEqualTo(Integer.toString(tableVersion));
  }
}
