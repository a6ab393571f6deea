package io.huditsd.scheduler;

import io.huditsd.config.ServiceType;
import io.huditsd.config.ServicedTable;
import io.huditsd.executors.HudiTables;
import io.huditsd.executors.LocalTables;
import io.huditsd.executors.RunRecord;
import io.huditsd.executors.WorkItem;
import io.huditsd.executors.WorkerPool;
import io.huditsd.scheduler.view.CleanBlocker;
import org.apache.hudi.common.model.HoodieTableType;
import org.apache.hudi.common.table.timeline.HoodieInstant;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A writer commit that failed on a copy-on-write table that keeps one commit: one commit before it, three after, so
 * every file slice the clean could delete was replaced after the failed instant. Hudi's clean planner never retains
 * past a pending instant, so while the failed write stays, every clean plan is empty; the poll must roll it back
 * once its heartbeat expired and then plan the clean. The pool holds what was enqueued.
 */
class TestFailedWritesCleaning {
  private final LocalTables localTables = new LocalTables();
  private final HudiTables hudiTables = localTables.hudiTables();
  private final HoldingPool holdingPool = new HoldingPool();
  private final WorkerPool pool = holdingPool.pool();
  private final DuePlanner planner = new DuePlanner(hudiTables, pool);
  private final TablePoller poller = new TablePoller(hudiTables, HudiTables.defaultHadoopConfiguration(),
      planner, Duration.ofMinutes(3), TablePoller.Backlog.READ, PollObserver.NONE, tableId -> true,
      Clock.systemUTC());

  @TempDir
  Path directory;

  private ServicedTable table;
  private String failed;

  @BeforeEach
  void writeAroundAFailedCommit() throws IOException {
    ServicedTable created = localTables.create(directory.resolve("orders"), HoodieTableType.COPY_ON_WRITE, 9,
        Map.of("hoodie.clean.commits.retained", "1"));
    // Clean only: a clustering plan would be one more pending instant.
    table = created.withServices(Set.of(ServiceType.CLEAN));
    localTables.upsert(table, 0, 20, 1);
    failed = localTables.upsertWithoutCommit(table, 0, 20, 2);
    for (int ts = 3; ts <= 5; ts++) {
      localTables.upsert(table, 0, 20, ts);
    }
  }

  @AfterEach
  void releaseRuns() throws InterruptedException {
    holdingPool.close();
  }

  private Path heartbeat() {
    return Path.of(table.basePath().replaceFirst("^file:", "")).resolve(".hoodie/.heartbeat").resolve(failed);
  }

  private List<String> pendingWriterInstants() {
    return hudiTables.metaClient(table.basePath()).getActiveTimeline().getCommitsTimeline()
        .filterInflightsAndRequested().getInstantsAsStream().map(HoodieInstant::requestedTime).toList();
  }

  private List<WorkItem> enqueued() {
    return pool.snapshot().stream().map(RunRecord::item).toList();
  }

  @Test
  void afterTheHeartbeatExpiredThePollRollsTheFailedWriteBackAndPlansTheClean() throws IOException {
    Files.setLastModifiedTime(heartbeat(), FileTime.from(Instant.now().minus(Duration.ofHours(1))));
    TableState state = new TableState(table);

    assertThat(poller.poll(state, false)).isEqualTo(TablePoller.Result.PLANNED);

    assertThat(pendingWriterInstants()).as("pending writer instants").isEmpty();
    assertThat(state.snapshot().failedWrites().rolledBack()).containsExactly(failed);
    assertThat(state.snapshot().failedWrites().pending()).isEmpty();
    assertThat(enqueued()).extracting(WorkItem::service).containsExactly(ServiceType.CLEAN);
    assertThat(hudiTables.metaClient(table.basePath()).getActiveTimeline().getCleanerTimeline()
        .filterInflightsAndRequested().countInstants()).as("pending clean plans").isEqualTo(1);
    // The next poll reads the timeline our rollback and clean plan changed: nothing holds the clean boundary back.
    poller.poll(state, false);
    assertThat(state.snapshot().backlog().orElseThrow().cleanBlocker()).isEmpty();
  }

  /**
   * A writer outside Hudi's multi-writer mode keeps no heartbeat; Hudi would count its write as failed and roll it
   * back mid-write. Beside it nothing is scheduled, rolled back or queued, each service says why and what to set,
   * and a request to plan now is refused with the same words.
   */
  @Test
  void besideAWriteWithoutHeartbeatNothingIsScheduledAndEachServiceSaysWhatToSet() throws IOException {
    // Its start rolls back the failed write (EAGER), as such a writer does.
    String singleWriter = localTables.upsertWithoutCommitAsSingleWriter(table, 0, 10, 6);
    TableState state = new TableState(table);

    assertThat(poller.poll(state, false)).isEqualTo(TablePoller.Result.PLANNED);

    assertThat(pendingWriterInstants()).contains(singleWriter);
    assertThat(enqueued()).as("queued runs").isEmpty();
    assertThat(hudiTables.metaClient(table.basePath()).getActiveTimeline().getCleanerTimeline().countInstants())
        .as("clean instants").isZero();
    assertThat(state.snapshot().failedWrites().withoutHeartbeat()).containsExactly(singleWriter);
    ServiceDecision clean = state.snapshot().decisions().get(ServiceType.CLEAN);
    assertThat(clean.reason()).isEqualTo(ServiceDecision.Reason.SINGLE_WRITER);
    assertThat(clean.message()).contains(singleWriter, "hoodie.write.concurrency.mode=OPTIMISTIC_CONCURRENCY_CONTROL",
        "hoodie.cleaner.policy.failed.writes=LAZY");
    assertThat(state.snapshot().decisions().get(ServiceType.CLUSTERING).reason())
        .isEqualTo(ServiceDecision.Reason.DISABLED);
    assertThatThrownBy(() -> planner.scheduleNow(table, ServiceType.CLEAN))
        .isInstanceOf(IllegalStateException.class).hasMessageContaining(singleWriter);
  }

  @Test
  void whileTheHeartbeatIsAliveTheWriteStaysAndThePollLooksAgainWhenItExpires() throws IOException {
    Instant lastHeartbeat = Files.getLastModifiedTime(heartbeat()).toInstant();
    TableState state = new TableState(table);

    assertThat(poller.poll(state, false)).isEqualTo(TablePoller.Result.PLANNED);

    assertThat(pendingWriterInstants()).containsExactly(failed);
    assertThat(enqueued()).as("the clean plan is empty while the write is pending").isEmpty();
    assertThat(state.snapshot().failedWrites().pending()).isEmpty();
    // The writers' heartbeat window, Hudi's default as the table sets none: 60 s * 2.
    assertThat(state.polled().recheckAt().orElseThrow()).isAfter(lastHeartbeat.plusSeconds(119))
        .isBefore(lastHeartbeat.plusSeconds(121));
    CleanBlocker blocker = state.snapshot().backlog().orElseThrow().cleanBlocker().orElseThrow();
    assertThat(blocker.instant()).isEqualTo(failed);
    assertThat(blocker.action()).isEqualTo("commit");
    assertThat(blocker.commitsAfter()).isEqualTo(3);
  }

  @Test
  void aTableWhoseCleanIsNotTheDaemonsReportsTheFailedWriteAndKeepsIt() throws IOException {
    Files.setLastModifiedTime(heartbeat(), FileTime.from(Instant.now().minus(Duration.ofHours(1))));
    ServicedTable withoutClean = table.withServices(Set.of(ServiceType.ARCHIVE));
    TableState state = new TableState(withoutClean);

    poller.poll(state, false);

    assertThat(pendingWriterInstants()).containsExactly(failed);
    assertThat(state.snapshot().failedWrites().pending()).containsExactly(failed);
    assertThat(state.snapshot().failedWrites().oldestPending()).isPresent();
  }
}
