package io.huditsd.it;

import io.huditsd.api.demo.SampleRow;
import io.huditsd.it.support.DataFiles;
import io.huditsd.it.support.DataFiles.BaseFile;
import io.huditsd.it.support.RowDiff;
import io.huditsd.it.support.TableReader;
import io.huditsd.it.support.TableReader.Listing;
import io.huditsd.it.support.TrackedTable;
import io.huditsd.it.support.Tsd;
import org.apache.hudi.common.model.HoodieTableType;
import org.apache.hudi.common.table.timeline.HoodieTimeline;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.BiFunction;
import java.util.stream.Collectors;

import static io.huditsd.it.support.TrackedTable.rows;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code hudi-tsd once} cleans old versions of file groups from disk, keeps exactly the versions the policy
 * retains, and the rows stay the same. The table is copy-on-write: every upsert writes a new version of each file
 * group it touches.
 */
class CleaningIT {
  /** One insert and four upserts of keys in every partition: five versions of each file group. */
  private static final int COMMITS = 5;

  @Test
  void keepLatestFileVersionsLeavesOnlyTheNewestVersion() throws Exception {
    cleanAndCheck("file-versions", List.of("hoodie.clean.policy=KEEP_LATEST_FILE_VERSIONS",
            "hoodie.clean.fileversions.retained=1"),
        (versions, commits) -> List.of(versions.get(versions.size() - 1)));
  }

  @Test
  void keepLatestCommitsKeepsWhatQueriesOfTheRetainedCommitsRead() throws Exception {
    int retained = 2;
    cleanAndCheck("commits", List.of("hoodie.clean.policy=KEEP_LATEST_COMMITS",
            "hoodie.clean.commits.retained=" + retained),
        (versions, commits) -> {
          // Hudi's rule: every version written at or after the earliest retained commit, and the last one before
          // it, which a query that started just before that commit still reads.
          String earliestRetained = commits.get(commits.size() - retained);
          List<BaseFile> kept = new ArrayList<>();
          BaseFile lastBefore = null;
          for (BaseFile version : versions) {
            if (version.instant().compareTo(earliestRetained) >= 0) {
              kept.add(version);
            } else {
              lastBefore = version;
            }
          }
          if (lastBefore != null) {
            kept.add(0, lastBefore);
          }
          return kept;
        });
  }

  /**
   * @param keep given the versions of one file group (oldest first) and the table's commits, the versions the
   *     policy keeps
   */
  private static void cleanAndCheck(String name, List<String> policy,
                                    BiFunction<List<BaseFile>, List<String>, List<BaseFile>> keep) throws Exception {
    Path work = Tsd.workDirectory("CleaningIT/" + name);
    Path basePath = work.resolve("cow_" + name.replace('-', '_'));
    Map<String, SampleRow> expected;
    List<String> commits;
    try (TrackedTable table = TrackedTable.create(basePath, HoodieTableType.COPY_ON_WRITE, 9, Map.of())) {
      table.insert(rows(0, 300, 1_000, "v1"));
      for (int version = 2; version <= COMMITS; version++) {
        // Different keys each time, in every partition, so that every file group gets a new version.
        int from = (version - 2) * 60;
        table.upsert(rows(from, from + 60, version * 1_000L, "v" + version));
      }
      expected = table.expected().rows();
      commits = table.commits();
    }
    TableReader reader = new TableReader(basePath.toString());
    List<BaseFile> before = DataFiles.baseFiles(basePath.toString());
    Map<String, List<BaseFile>> versionsByFileGroup = before.stream()
        .sorted(Comparator.comparing(BaseFile::instant))
        .collect(Collectors.groupingBy(file -> file.partition() + "/" + file.fileId(), TreeMap::new,
            Collectors.toList()));
    assertThat(versionsByFileGroup).as("file groups and their versions on disk before cleaning")
        .hasSize(TrackedTable.PARTITIONS.size())
        .allSatisfy((fileGroup, versions) -> assertThat(versions).as(fileGroup).hasSize(COMMITS));
    List<String> keptPaths = new ArrayList<>();
    versionsByFileGroup.values().forEach(versions -> keep.apply(versions, commits)
        .forEach(file -> keptPaths.add(file.path())));
    List<String> deletedPaths = before.stream().map(BaseFile::path).filter(path -> !keptPaths.contains(path)).toList();
    assertThat(deletedPaths).as("versions the policy cleans (else the test proves nothing)").isNotEmpty();

    List<String> arguments = new ArrayList<>(List.of("once", "--table", basePath.toString(), "--services", "clean",
        "--workers", "2"));
    policy.forEach(key -> arguments.addAll(List.of("--hoodie-conf", key)));
    Tsd.Finished once = Tsd.run(work.resolve("once"), Duration.ofMinutes(3), arguments.toArray(String[]::new));
    assertThat(once.exitCode()).as("exit code of once\n%s", once.output()).isZero();

    HoodieTimeline timeline = reader.metaClient().getActiveTimeline();
    assertThat(timeline.getCleanerTimeline().filterCompletedInstants().getInstants())
        .as("completed cleans on %s", timeline).hasSize(1);
    assertThat(timeline.filterInflightsAndRequested().getInstants()).as("unfinished instants").isEmpty();

    List<String> after = DataFiles.baseFiles(basePath.toString()).stream().map(BaseFile::path).toList();
    assertThat(after).as("base files on disk after cleaning with %s; cleaned were %s", policy, deletedPaths)
        .containsExactlyInAnyOrderElementsOf(keptPaths);

    // The clean must reach the metadata table too: readers that list files from it would otherwise still see
    // (and time travel into) the deleted versions.
    assertThat(reader.fileGroupsWithSlices(Listing.METADATA_TABLE)).as("file slices listed from the metadata table")
        .isEqualTo(reader.fileGroupsWithSlices(Listing.STORAGE));
    RowDiff.assertSameRows("rows after cleaning", expected, reader.snapshot(Listing.STORAGE));
    RowDiff.assertSameRows("rows after cleaning, listed from the metadata table", expected,
        reader.snapshot(Listing.METADATA_TABLE));
  }
}
