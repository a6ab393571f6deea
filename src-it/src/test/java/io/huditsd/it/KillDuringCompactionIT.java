package io.huditsd.it;

import io.huditsd.api.demo.SampleRow;
import io.huditsd.it.support.DaemonApi;
import io.huditsd.it.support.DaemonYaml;
import io.huditsd.it.support.DataFiles;
import io.huditsd.it.support.DataFiles.BaseFile;
import io.huditsd.it.support.InflightPlans;
import io.huditsd.it.support.RowDiff;
import io.huditsd.it.support.TableReader;
import io.huditsd.it.support.TableReader.Listing;
import io.huditsd.it.support.TrackedTable;
import io.huditsd.it.support.Tsd;
import org.apache.hudi.common.model.HoodieTableType;
import org.apache.hudi.common.table.timeline.HoodieInstant;
import org.apache.hudi.common.table.timeline.HoodieTimeline;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;

import static io.huditsd.it.support.TrackedTable.concat;
import static io.huditsd.it.support.TrackedTable.deletes;
import static io.huditsd.it.support.TrackedTable.rows;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The daemon is killed with SIGKILL while it writes a compaction and started again on the same configuration: the
 * same compaction instant must complete, nothing may be left pending, the partial files of the killed attempt must
 * be gone, and readers must see exactly the rows the writes imply, in snapshot and read-optimized queries alike.
 */
class KillDuringCompactionIT {
  private static final int INSERT_COMMITS = 3;
  private static final int ROWS_PER_INSERT = 3_000;
  private static final int ROWS = INSERT_COMMITS * ROWS_PER_INSERT;
  /** The default of {@code workers.shutdownGracePeriod}. */
  private static final Duration GRACE_PERIOD = Duration.ofSeconds(20);

  /** The restarted daemon comes up after the dead process's heartbeat expired (1 s, one miss tolerated). */
  @Test
  void restartAfterTheHeartbeatExpiredFinishesTheSameCompaction() throws Exception {
    killAndRestart("heartbeat-expired", "1s", 1, false);
  }

  /**
   * The restarted daemon comes up while the dead process's heartbeat still looks alive (10 s, two misses: 30 s), as
   * after a quick restart with the default heartbeat of 60 s. It must leave the plan alone at first and execute it
   * once the heartbeat expired, although nothing on the timeline changes in between.
   */
  @Test
  void restartWhileTheDeadHeartbeatLooksAliveFinishesTheCompactionOnceItExpires() throws Exception {
    killAndRestart("heartbeat-alive", "10s", 2, true);
  }

  /**
   * SIGTERM while a compaction writes its files: the daemon takes no new work, lets the compaction commit within the
   * default grace period ({@code workers.shutdownGracePeriod}, 20 s), or abandons it with its plan left pending when
   * it takes longer (a loaded machine), and exits within the grace period; nothing fails on the way. A daemon started
   * again leaves nothing pending, and readers see exactly the rows the writes imply.
   */
  @Test
  void sigtermDuringCompactionLetsItCommitAndExitsWithinTheGracePeriod() throws Exception {
    Path work = Tsd.workDirectory("KillDuringCompactionIT/sigterm");
    Path basePath = work.resolve("mor");
    Map<String, SampleRow> expected = writeTable(basePath);
    TableReader reader = new TableReader(basePath.toString());
    int port = DaemonApi.freePort();
    Path config = work.resolve("tsd.yml");
    Files.writeString(config, configuration(basePath, port, DaemonApi.freePort(), "1s", 1));

    String compaction;
    Duration stopTook;
    try (Tsd.Running first = Tsd.startDaemon(work.resolve("daemon-1"), "server", config.toString())) {
      compaction = compactionWritingFiles(first, basePath);
      long signalled = System.nanoTime();
      first.terminate();
      OptionalInt exit = first.waitFor(GRACE_PERIOD.plusSeconds(5));
      stopTook = Duration.ofNanos(System.nanoTime() - signalled);
      assertThat(exit).as("exit status after SIGTERM, within %s of it; %s", GRACE_PERIOD.plusSeconds(5),
          first.logTail()).hasValue(143);
      String log = first.stdout();
      String finished = "service=compaction instant=" + compaction + " engine=java result=succeeded";
      String abandoned = "Abandoned table=killed service=compaction instant=" + compaction;
      assertThat(log).as("log of the stopped daemon, %s.out", first.logs())
          .doesNotContain("result=failed", "Shutdown in progress", "Lock provider already closed")
          .containsAnyOf(finished, abandoned);
      assertThat(log.indexOf("SIGTERM received")).as("the stop logged before the compaction ended, %s.out",
          first.logs()).isBetween(0, Math.max(log.indexOf(finished), log.indexOf(abandoned)));
    }
    System.out.printf("SIGTERM during compaction %s: the daemon exited %d ms after the signal%n", compaction,
        stopTook.toMillis());

    try (Tsd.Running second = Tsd.startDaemon(work.resolve("daemon-2"), "server", config.toString())) {
      DaemonApi api = new DaemonApi(port);
      await("compaction " + compaction + " complete and the restarted daemon serving; log " + second.logs() + ".out")
          .atMost(Duration.ofMinutes(2))
          .pollInterval(Duration.ofMillis(500))
          .ignoreExceptions()
          .untilAsserted(() -> {
            assertThat(completedCompactions(reader)).as("completed compactions").contains(compaction);
            assertThat(api.tables()).singleElement()
                .satisfies(table -> assertThat(table).containsEntry("consecutiveFailures", 0));
          });
    }
    HoodieTimeline timeline = reader.metaClient().getActiveTimeline();
    assertThat(completedCompactions(reader)).as("completed compactions").containsExactly(compaction);
    assertThat(timeline.filterInflightsAndRequested().getInstants()).as("unfinished instants").isEmpty();
    RowDiff.assertSameRows("snapshot after the stop", expected, reader.snapshot(Listing.STORAGE));
    RowDiff.assertSameRows("read-optimized after the stop", expected, reader.readOptimized(Listing.STORAGE));
  }

  private static void killAndRestart(String name, String heartbeatInterval, int tolerableMisses,
                                     boolean heartbeatAliveAtRestart) throws Exception {
    Path work = Tsd.workDirectory("KillDuringCompactionIT/" + name);
    Path basePath = work.resolve("mor");
    Map<String, SampleRow> expected = writeTable(basePath);
    TableReader reader = new TableReader(basePath.toString());
    RowDiff.assertSameRows("snapshot before compaction", expected, reader.snapshot(Listing.STORAGE));

    int port = DaemonApi.freePort();
    Path config = work.resolve("tsd.yml");
    Files.writeString(config, configuration(basePath, port, DaemonApi.freePort(), heartbeatInterval,
        tolerableMisses));

    String compaction;
    try (Tsd.Running first = Tsd.startDaemon(work.resolve("daemon-1"), "server", config.toString())) {
      compaction = compactionWritingFiles(first, basePath);
      first.kill();
    }
    HoodieTimeline afterKill = reader.metaClient().getActiveTimeline();
    assertThat(afterKill.filterPendingCompactionTimeline().getInstants())
        .as("compaction %s still pending after the kill (else it finished first: make it slower)", compaction)
        .extracting(HoodieInstant::requestedTime).containsExactly(compaction);
    List<BaseFile> partial = DataFiles.writtenBy(basePath, compaction);

    try (Tsd.Running second = Tsd.startDaemon(work.resolve("daemon-2"), "server", config.toString())) {
      DaemonApi api = new DaemonApi(port);
      await("compaction " + compaction + " completed after the restart; daemon log " + second.logs() + ".out")
          .atMost(Duration.ofMinutes(3))
          .pollInterval(Duration.ofMillis(500))
          .until(() -> completedCompactions(reader), completed -> !completed.isEmpty());
      assertThat(completedCompactions(reader)).as("completed compactions").containsExactly(compaction);
      await("the restarted daemon reports the run; daemon log " + second.logs() + ".out")
          .atMost(Duration.ofSeconds(30))
          .untilAsserted(() -> assertThat(api.runs()).as("runs of the restarted daemon")
              .anySatisfy(run -> assertThat(run)
                  .containsEntry("service", "compaction")
                  .containsEntry("instant", compaction)
                  .containsEntry("status", "succeeded")));
      if (heartbeatAliveAtRestart) {
        // Proves the restart came within the heartbeat window, so the wait for its expiry was exercised.
        assertThat(api.runs()).as("runs of the restarted daemon")
            .anySatisfy(run -> assertThat(run)
                .containsEntry("instant", compaction)
                .containsEntry("status", "skipped")
                .hasEntrySatisfying("error", error -> assertThat((String) error)
                    .contains("is being executed by a live process")));
      }
      assertThat(api.tables()).as("tables of the restarted daemon").singleElement()
          .satisfies(table -> assertThat(table)
              .containsEntry("id", "killed")
              .containsEntry("tableVersion", 9)
              .containsEntry("consecutiveFailures", 0));
      // Hudi's own heartbeat timer must not take the daemon's live heartbeat for a dead one: a second process
      // would then roll back and redo a compaction that is being written.
      assertThat(second.stdout()).as("log of the restarted daemon, %s.out", second.logs())
          .doesNotContain("missed generating heartbeat");
    }

    HoodieTimeline timeline = reader.metaClient().getActiveTimeline();
    assertThat(timeline.filterPendingCompactionTimeline().getInstants()).as("pending compactions").isEmpty();
    assertThat(timeline.filterInflightsAndRequested().getInstants()).as("unfinished instants").isEmpty();
    List<String> latest = reader.latestBaseFiles(Listing.STORAGE);
    assertThat(DataFiles.writtenBy(basePath, compaction)).extracting(BaseFile::path)
        .as("files of compaction %s on disk; the killed attempt had written %s", compaction, partial)
        .allMatch(latest::contains, "a latest base file (no leftovers of the killed attempt)")
        .isNotEmpty();

    RowDiff.assertSameRows("snapshot after the restarted compaction", expected, reader.snapshot(Listing.STORAGE));
    RowDiff.assertSameRows("read-optimized after the restarted compaction, listed from the metadata table",
        expected, reader.readOptimized(Listing.METADATA_TABLE));
    RowDiff.assertSameRows("read-optimized after the restarted compaction, listed on storage", expected,
        reader.readOptimized(Listing.STORAGE));
  }

  /** Enough log data that compaction writes for a few seconds on two cores. */
  private static Map<String, SampleRow> writeTable(Path basePath) throws IOException {
    try (TrackedTable table = TrackedTable.create(basePath, HoodieTableType.MERGE_ON_READ, 9,
        TrackedTable.MOR_WRITER_KEYS)) {
      for (int commit = 0; commit < INSERT_COMMITS; commit++) {
        table.insert(rows(commit * ROWS_PER_INSERT, (commit + 1) * ROWS_PER_INSERT, 1_000, "v1"));
      }
      table.upsert(rows(0, ROWS, 2_000, "v2"));
      table.upsert(concat(deletes(0, 300, 3_000), rows(300, ROWS, 3_000, "v3")));
      table.upsert(rows(1_000, 1_500, 2_500, "late"));
      return table.expected().rows();
    }
  }

  private static String configuration(Path basePath, int port, int adminPort, String heartbeatInterval,
                                      int tolerableMisses) {
    return DaemonYaml.serverAndLogging(port, adminPort) + """
        polling:
          interval: 1s
          maxBackoff: 5s
        workers:
          count: 2
          retryBackoff: 1s
          heartbeatInterval: %s
          heartbeatTolerableMisses: %d
        services: [compaction]
        tables:
          - path: %s
            id: killed
        hoodie:
          hoodie.compact.inline.max.delta.commits: "2"
        """.formatted(heartbeatInterval, tolerableMisses, basePath);
  }

  /** Waits until {@code daemon} writes the base files of a compaction, and returns its instant. */
  private static String compactionWritingFiles(Tsd.Running daemon, Path basePath) {
    return await("a compaction writing its files; daemon log " + daemon.logs() + ".out")
        .atMost(Duration.ofMinutes(2))
        .pollInterval(Duration.ofMillis(20))
        .until(() -> InflightPlans.writingFiles(basePath, InflightPlans.COMPACTION), Optional::isPresent)
        .orElseThrow();
  }

  private static List<String> completedCompactions(TableReader reader) {
    return reader.metaClient().getActiveTimeline().getCommitTimeline().filterCompletedInstants()
        .getInstantsAsStream().map(HoodieInstant::requestedTime).toList();
  }
}
