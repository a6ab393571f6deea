package io.huditsd.it;

import io.huditsd.it.support.DaemonApi;
import io.huditsd.it.support.DaemonYaml;
import io.huditsd.it.support.PeerRow;
import io.huditsd.it.support.RowDiff;
import io.huditsd.it.support.SparkPeer;
import io.huditsd.it.support.SparkTable;
import io.huditsd.it.support.TableReader;
import io.huditsd.it.support.TrackedTable;
import io.huditsd.it.support.Tsd;
import org.apache.hudi.common.table.timeline.HoodieInstant;
import org.apache.hudi.common.table.timeline.HoodieTimeline;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static io.huditsd.it.support.TrackedTable.concat;
import static io.huditsd.it.support.TrackedTable.deletes;
import static io.huditsd.it.support.TrackedTable.rows;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A MERGE_ON_READ table written by Spark with the official Hudi bundle (upserts, deletes through
 * {@code _hoodie_is_deleted} and through Spark's delete operation, late-arriving records that must lose, a column
 * added midway) is compacted and cleaned by the daemon in server mode. Spark must then read exactly the rows the
 * writes imply, read_optimized must equal snapshot, Spark's own file-system views must agree with the daemon's
 * {@code file-groups} endpoint, and Spark must go on writing the serviced table.
 */
class SparkMorIT {
  private static final String TABLE_ID = "spark_mor";
  private static SparkPeer spark;

  @BeforeAll
  static void startSpark() throws InterruptedException {
    spark = SparkPeer.shared();
  }

  @Test
  void daemonCompactsAndCleansWhatSparkWroteAndSparkReadsTheResult() throws Exception {
    Path work = Tsd.workDirectory("SparkMorIT/daemon");
    Path basePath = work.resolve(TABLE_ID);
    SparkTable table = SparkTable.create(spark, basePath, "MERGE_ON_READ", Map.of());
    table.insert(rows(0, 300, 1_000, "v1"));
    table.upsert(rows(0, 100, 2_000, "v2"));
    // Deletes, and late arrivals with lower ts than the version in a log file (k0-k29) and in a base file
    // (k200-k229): both must lose.
    table.upsert(concat(deletes(100, 130, 2_000), rows(0, 30, 1_500, "late"), rows(200, 230, 500, "late")));
    table.addNoteColumn();
    // After the schema change: updates, a late delete (ts 900 < 1000) that loses, and new keys.
    table.upsert(concat(rows(130, 200, 3_000, "v3"), deletes(230, 240, 900), rows(300, 330, 1_000, "v1")));
    table.delete(deletes(50, 60, 4_000));
    table.upsert(rows(0, 50, 5_000, "v5"));
    Map<String, PeerRow> expected = table.expected();
    assertThat(expected).hasSize(330 - 30 - 10);

    RowDiff.assertSameRows("Spark snapshot before the daemon ran (Spark alone)", expected, table.snapshot());
    // Without this the read_optimized comparison after compaction could pass with no log data at all.
    assertThat(RowDiff.differences(expected, table.readOptimized()))
        .as("read_optimized differs from the expected rows before compaction (updates sit in log files)")
        .isNotEmpty();

    // A daemon that only watches: with log files in place and no compaction pending, Hudi's and the daemon's
    // views of the file slices, log bytes and the unscheduled backlog included, must agree.
    try (Daemon observer = startDaemon(work, "observer", basePath, "[]")) {
      Map<String, Slice> slices = assertFileGroupsAgree(observer.api(), basePath, "before compaction");
      assertThat(slices.values()).as("file slices before compaction (else the log columns are compared as 0 = 0)")
          .anySatisfy(slice -> assertThat(slice.logFileUnscheduled()).isPositive());
    }

    TableReader reader = new TableReader(basePath.toString());
    try (Daemon daemon = startDaemon(work, "daemon", basePath, "[compaction, clean]")) {
      DaemonApi api = daemon.api();
      String compaction = await("a compaction, then a clean after it, completed; daemon log "
          + daemon.process().logs() + ".out")
          .atMost(Duration.ofMinutes(4))
          .pollInterval(Duration.ofMillis(500))
          .until(() -> compactedThenCleaned(reader.metaClient().getActiveTimeline()), instant -> instant != null);
      HoodieTimeline timeline = reader.metaClient().getActiveTimeline();
      assertThat(timeline.filterInflightsAndRequested().getInstants()).as("unfinished instants").isEmpty();
      assertThat(api.runs()).as("runs of the daemon")
          .anySatisfy(run -> assertThat(run).containsEntry("service", "compaction")
              .containsEntry("instant", compaction).containsEntry("status", "succeeded"))
          .anySatisfy(run -> assertThat(run).containsEntry("service", "clean")
              .containsEntry("status", "succeeded"));

      Map<String, Slice> slices = assertFileGroupsAgree(api, basePath, "after compaction and clean");
      // The clean left one slice per file group, and the compaction left no log file in it.
      assertThat(slices.values()).as("file slices after compaction and clean")
          .allSatisfy(slice -> assertThat(slice.logFileCount()).as("%s", slice).isZero())
          .extracting(slice -> slice.partition() + "/" + slice.fileId())
          .doesNotHaveDuplicates();
    }

    RowDiff.assertSameRows("Spark snapshot after the daemon compacted and cleaned", expected, table.snapshot());
    RowDiff.assertSameRows("Spark read_optimized after the daemon compacted and cleaned", expected,
        table.readOptimized());

    // Spark goes on writing the table the daemon serviced: updates (in the compacted file groups) and new keys.
    table.upsert(concat(rows(200, 260, 6_000, "v6"), rows(330, 340, 6_000, "v6")));
    RowDiff.assertSameRows("Spark snapshot after Spark wrote on top of the compacted table", table.expected(),
        table.snapshot());
    assertThat(TrackedTable.hoodieProperties(basePath.toString()).getProperty("hoodie.table.version"))
        .as("hoodie.table.version of the table Spark wrote, after the daemon ran").isEqualTo("9");
  }

  /**
   * The instant of the last completed compaction once a clean planned after that compaction completed has
   * completed too (an earlier clean leaves the file groups of a pending compaction alone), else null.
   */
  private static String compactedThenCleaned(HoodieTimeline timeline) {
    List<HoodieInstant> compactions = timeline.getCommitTimeline().filterCompletedInstants().getInstants();
    if (compactions.isEmpty()) {
      return null;
    }
    HoodieInstant compaction = compactions.get(compactions.size() - 1);
    boolean cleanedAfter = timeline.getCleanerTimeline().filterCompletedInstants().getInstantsAsStream()
        .anyMatch(clean -> clean.requestedTime().compareTo(compaction.getCompletionTime()) > 0);
    return cleanedAfter ? compaction.requestedTime() : null;
  }

  /**
   * Spark's {@code hudi_filesystem_view} (every slice) must equal the daemon's {@code file-groups?all=true}, and
   * Spark's {@code show_fsview_latest} the daemon's live slices, on the columns both report. Only meaningful while
   * no compaction is pending: then both call every log byte unscheduled. Returns the slices.
   */
  private static Map<String, Slice> assertFileGroupsAgree(DaemonApi api, Path basePath, String when) {
    Map<String, Slice> hudiAll = Slice.fromFileSystemView(
        spark.sql("SELECT * FROM hudi_filesystem_view('" + basePath + "', '*')"));
    RowDiff.assertSameRows("file slices " + when + ": Spark's hudi_filesystem_view (expected) vs the daemon's "
        + "file-groups?all=true (found)", hudiAll, Slice.fromDaemon(api.fileGroups(TABLE_ID, true)));
    Map<String, Slice> hudiLatest = Slice.fromShowFsViewLatest(
        spark.sql("CALL show_fsview_latest(path => '" + basePath + "', limit => 1000000)"));
    RowDiff.assertSameRows("latest file slices " + when + ": Spark's show_fsview_latest (expected) vs the "
        + "daemon's file-groups (found)", hudiLatest, Slice.withoutLogSplit(
        Slice.fromDaemon(api.fileGroups(TABLE_ID, false))));
    assertThat(hudiAll).as("file slices " + when).isNotEmpty();
    return hudiAll;
  }

  /** A daemon in server mode servicing the table with {@code services}, once its REST API lists the table. */
  private static Daemon startDaemon(Path work, String name, Path basePath, String services) throws IOException {
    int port = DaemonApi.freePort();
    Path config = work.resolve(name + ".yml");
    Files.writeString(config, configuration(basePath, port, DaemonApi.freePort(), services));
    Daemon daemon = new Daemon(Tsd.startDaemon(work.resolve(name), "server", config.toString()), new DaemonApi(port));
    await("the daemon's REST API lists table " + TABLE_ID + "; daemon log " + daemon.process().logs() + ".out")
        .atMost(Duration.ofMinutes(1))
        .pollInterval(Duration.ofMillis(200))
        .ignoreExceptions()
        .until(() -> daemon.api().tables().stream().anyMatch(table -> TABLE_ID.equals(table.get("id"))));
    return daemon;
  }

  private record Daemon(Tsd.Running process, DaemonApi api) implements AutoCloseable {
    @Override
    public void close() throws InterruptedException {
      process.close();
    }
  }

  private static String configuration(Path basePath, int port, int adminPort, String services) {
    return DaemonYaml.serverAndLogging(port, adminPort) + DaemonYaml.QUICK_POLLING + """
        services: %s
        tables:
          - path: %s
            id: %s
        hoodie:
          hoodie.compact.inline.max.delta.commits: "3"
          # Only the newest version of each file group stays: what the compaction replaced goes.
          hoodie.clean.policy: KEEP_LATEST_FILE_VERSIONS
          hoodie.clean.fileversions.retained: "1"
        """.formatted(services, basePath, TABLE_ID);
  }

  /**
   * One file slice in the columns both sides report. The base file is compared by name: Hudi gives a
   * {@code file:} URI, the daemon a path.
   */
  record Slice(String partition, String fileId, String baseInstant, String baseFileName, long baseFileSize,
               long logFileCount, long logFileSize, Long logFileScheduled, Long logFileUnscheduled) {
    static Map<String, Slice> fromDaemon(List<Map<String, Object>> rows) {
      return byKey(rows.stream().map(row -> new Slice((String) row.get("Partition_Path"), (String) row.get("File_ID"),
          (String) row.get("Base_Instant_Time"), fileName(row.get("Base_File_Path")), number(row, "Base_File_Size"),
          number(row, "Log_File_Count"), number(row, "Log_File_Size"), number(row, "Log_File_Scheduled"),
          number(row, "Log_File_Unscheduled"))).toList());
    }

    static Map<String, Slice> fromFileSystemView(List<Map<String, Object>> rows) {
      return fromDaemon(rows);
    }

    /** {@code show_fsview_latest} splits log bytes by another rule (completed or not); that split is left out. */
    static Map<String, Slice> fromShowFsViewLatest(List<Map<String, Object>> rows) {
      return byKey(rows.stream().map(row -> new Slice((String) row.get("partition"), (String) row.get("file_id"),
          (String) row.get("base_instant"), fileName(row.get("data_file")), number(row, "data_file_size"),
          number(row, "num_delta_files"), number(row, "total_delta_file_size"), null, null)).toList());
    }

    static Map<String, Slice> withoutLogSplit(Map<String, Slice> slices) {
      Map<String, Slice> without = new TreeMap<>();
      slices.forEach((key, slice) -> without.put(key, new Slice(slice.partition, slice.fileId, slice.baseInstant,
          slice.baseFileName, slice.baseFileSize, slice.logFileCount, slice.logFileSize, null, null)));
      return without;
    }

    private static Map<String, Slice> byKey(List<Slice> slices) {
      Map<String, Slice> byKey = new TreeMap<>();
      for (Slice slice : slices) {
        String key = slice.partition() + "/" + slice.fileId() + "@" + slice.baseInstant();
        Slice earlier = byKey.put(key, slice);
        if (earlier != null) {
          throw new AssertionError("file slice " + key + " listed twice: " + earlier + " and " + slice);
        }
      }
      return byKey;
    }

    private static String fileName(Object path) {
      if (path == null || path.toString().isEmpty()) {
        return null;
      }
      String text = path.toString();
      return text.substring(text.lastIndexOf('/') + 1);
    }

    private static long number(Map<String, Object> row, String column) {
      Object value = row.get(column);
      if (!(value instanceof Number number)) {
        throw new AssertionError("column " + column + " is not a number in " + row);
      }
      return number.longValue();
    }
  }
}
