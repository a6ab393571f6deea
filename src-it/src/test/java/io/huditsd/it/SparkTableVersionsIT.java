package io.huditsd.it;

import io.huditsd.it.support.PeerRow;
import io.huditsd.it.support.RowDiff;
import io.huditsd.it.support.SparkPeer;
import io.huditsd.it.support.SparkTable;
import io.huditsd.it.support.TableReader;
import io.huditsd.it.support.TableReader.Listing;
import io.huditsd.it.support.TrackedTable;
import io.huditsd.it.support.Tsd;
import org.apache.hudi.common.table.timeline.HoodieInstant;
import org.apache.hudi.common.table.timeline.HoodieTimeline;
import org.junit.jupiter.api.BeforeAll;
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
 * MERGE_ON_READ tables that Spark wrote at table versions 6 and 8 ({@code hoodie.write.table.version}, no
 * auto-upgrade) are compacted and cleaned by {@code hudi-tsd once}: they must stay at their version, and Spark must
 * read exactly the expected rows afterwards (snapshot and read_optimized) and go on writing them at that version.
 */
class SparkTableVersionsIT {
  private static SparkPeer spark;

  @BeforeAll
  static void startSpark() throws InterruptedException {
    spark = SparkPeer.shared();
  }

  @ParameterizedTest(name = "table version {0}")
  @ValueSource(ints = {6, 8})
  void daemonServicesTheTableAtItsVersionAndSparkReadsIt(int tableVersion) throws Exception {
    Path work = Tsd.workDirectory("SparkTableVersionsIT/v" + tableVersion);
    Path basePath = work.resolve("spark_mor_v" + tableVersion);
    String version = Integer.toString(tableVersion);
    SparkTable table = SparkTable.create(spark, basePath, "MERGE_ON_READ",
        Map.of("hoodie.write.table.version", version, "hoodie.write.auto.upgrade", "false"));
    table.insert(rows(0, 240, 1_000, "v1"));
    table.upsert(rows(0, 80, 2_000, "v2"));
    // Deletes, and late arrivals below the version in a log file (k0-k19) and in a base file (k150-k169).
    table.upsert(concat(deletes(80, 100, 2_000), rows(0, 20, 1_500, "late"), rows(150, 170, 500, "late")));
    table.upsert(rows(100, 140, 3_000, "v3"));
    Map<String, PeerRow> expected = table.expected();
    assertThat(expected).hasSize(240 - 20);
    assertThat(tableVersion(basePath)).as("hoodie.table.version of the table Spark wrote").isEqualTo(version);
    RowDiff.assertSameRows("Spark snapshot before the daemon ran (Spark alone)", expected, table.snapshot());
    assertThat(RowDiff.differences(expected, table.readOptimized()))
        .as("read_optimized differs from the expected rows before compaction (updates sit in log files)")
        .isNotEmpty();

    Tsd.Finished compaction = Tsd.run(work.resolve("once-compaction"), Duration.ofMinutes(3), "once", "--table",
        basePath.toString(), "--services", "compaction", "--workers", "2",
        "--hoodie-conf", "hoodie.compact.inline.max.delta.commits=2");
    assertThat(compaction.exitCode()).as("exit code of once (compaction)\n%s", compaction.output()).isZero();
    TableReader reader = new TableReader(basePath.toString());
    HoodieTimeline timeline = reader.metaClient().getActiveTimeline();
    List<HoodieInstant> compactions = timeline.getCommitTimeline().filterCompletedInstants().getInstants();
    assertThat(compactions).as("completed compactions on %s", timeline).hasSize(1);
    assertThat(compaction.stdout()).as("once reports the run\n%s", compaction.output())
        .contains("service=compaction instant=" + compactions.get(0).requestedTime() + " status=succeeded");

    Tsd.Finished clean = Tsd.run(work.resolve("once-clean"), Duration.ofMinutes(3), "once", "--table",
        basePath.toString(), "--services", "clean", "--workers", "2",
        "--hoodie-conf", "hoodie.clean.policy=KEEP_LATEST_FILE_VERSIONS",
        "--hoodie-conf", "hoodie.clean.fileversions.retained=1");
    assertThat(clean.exitCode()).as("exit code of once (clean)\n%s", clean.output()).isZero();
    timeline = reader.metaClient().getActiveTimeline();
    assertThat(timeline.getCleanerTimeline().filterCompletedInstants().getInstants())
        .as("completed cleans on %s", timeline).hasSize(1);
    assertThat(timeline.filterInflightsAndRequested().getInstants()).as("unfinished instants").isEmpty();
    assertThat(reader.fileGroupsWithSlices(Listing.STORAGE)).as("files of each file group after compaction and clean")
        .allSatisfy((fileGroup, files) -> assertThat(files).as(fileGroup).singleElement()
            .satisfies(file -> assertThat(file).endsWith(".parquet")));

    assertThat(tableVersion(basePath)).as("hoodie.table.version after the daemon ran").isEqualTo(version);
    RowDiff.assertSameRows("Spark snapshot after the daemon compacted and cleaned", expected, table.snapshot());
    RowDiff.assertSameRows("Spark read_optimized after the daemon compacted and cleaned", expected,
        table.readOptimized());

    table.upsert(concat(rows(140, 160, 4_000, "v4"), rows(240, 250, 4_000, "v4")));
    RowDiff.assertSameRows("Spark snapshot after Spark wrote on top of the serviced table", table.expected(),
        table.snapshot());
    assertThat(tableVersion(basePath)).as("hoodie.table.version after Spark wrote again").isEqualTo(version);
  }

  private static String tableVersion(Path basePath) {
    return TrackedTable.hoodieProperties(basePath.toString()).getProperty("hoodie.table.version");
  }
}
