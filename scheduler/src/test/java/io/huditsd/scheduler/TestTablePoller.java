package io.huditsd.scheduler;

import io.huditsd.config.ServiceType;
import io.huditsd.config.ServicedTable;
import io.huditsd.executors.HudiTables;
import io.huditsd.executors.LocalTables;
import io.huditsd.executors.RunRecord;
import io.huditsd.executors.WorkerPool;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.FilterFileSystem;
import org.apache.hudi.common.model.HoodieTableType;
import org.apache.hudi.common.table.HoodieTableConfig;
import org.apache.hudi.common.table.HoodieTableMetaClient;
import org.apache.hudi.common.table.timeline.HoodieInstant;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Polls of real tables. The pool's runner holds every item until the test ends, so what a poll enqueued stays
 * visible in the pool's queue.
 */
class TestTablePoller {
  private static final Duration MAX_BACKOFF = Duration.ofMinutes(3);

  private final LocalTables localTables = new LocalTables();
  private final HudiTables hudiTables = localTables.hudiTables();
  private final HoldingPool holdingPool = new HoldingPool();
  private final WorkerPool pool = holdingPool.pool();
  private final SettableClock clock = new SettableClock(Instant.parse("2026-12-01T12:00:00Z"));
  private final TablePoller poller = new TablePoller(hudiTables, HudiTables.defaultHadoopConfiguration(),
      new DuePlanner(hudiTables, pool), MAX_BACKOFF, TablePoller.Backlog.READ, PollObserver.NONE, tableId -> true, clock);

  @TempDir
  Path directory;

  @AfterEach
  void releaseRuns() throws InterruptedException {
    holdingPool.close();
  }

  private ServicedTable mor(String name, Map<String, String> keys) throws IOException {
    ServicedTable table = localTables.create(directory.resolve(name), HoodieTableType.MERGE_ON_READ, 9, keys);
    localTables.upsert(table, 0, 10, 1);
    return table;
  }

  @Test
  void theFirstPollLoadsTheTable() throws IOException {
    TableState state = new TableState(mor("orders", Map.of()));

    assertThat(poller.poll(state, false)).isEqualTo(TablePoller.Result.PLANNED);

    TableSnapshot snapshot = state.snapshot();
    assertThat(snapshot.tableType()).contains("MERGE_ON_READ");
    assertThat(snapshot.tableVersion()).contains(9);
    assertThat(snapshot.lastPoll()).isPresent();
    assertThat(snapshot.lastChange()).isEqualTo(snapshot.lastPoll());
    assertThat(snapshot.consecutiveFailures()).isZero();
    assertThat(snapshot.lastError()).isEmpty();
  }

  @Test
  void aPollerThatSkipsTheBacklogStillPlansButPublishesNoFigures() throws IOException {
    ServicedTable table = mor("orders", Map.of("hoodie.compact.inline.max.delta.commits", "2"));
    localTables.upsert(table, 0, 5, 2);
    TablePoller once = new TablePoller(hudiTables, HudiTables.defaultHadoopConfiguration(),
        new DuePlanner(hudiTables, pool), MAX_BACKOFF, TablePoller.Backlog.SKIPPED, PollObserver.NONE,
        tableId -> true, clock);
    TableState skipping = new TableState(table);
    TableState reading = new TableState(table);

    assertThat(once.poll(skipping, false)).isEqualTo(TablePoller.Result.PLANNED);
    assertThat(skipping.snapshot().backlog()).isEmpty();
    assertThat(pool.snapshot()).extracting(RunRecord::item).singleElement()
        .satisfies(item -> assertThat(item.service()).isEqualTo(ServiceType.COMPACTION));

    poller.poll(reading, false);
    assertThat(reading.snapshot().backlog()).hasValueSatisfying(backlog ->
        assertThat(backlog.pendingPlans()).containsEntry(ServiceType.COMPACTION, 1));
  }

  @Test
  void anUnchangedTableIsNotReloaded() throws IOException {
    TableState state = new TableState(mor("orders", Map.of()));
    poller.poll(state, false);
    TableSnapshot first = state.snapshot();
    HoodieTableMetaClient loaded = first.metaClient().orElseThrow();
    clock.advance(Duration.ofSeconds(30));

    assertThat(poller.poll(state, false)).isEqualTo(TablePoller.Result.UNCHANGED);
    assertThat(poller.poll(state, false)).isEqualTo(TablePoller.Result.UNCHANGED);

    TableSnapshot later = state.snapshot();
    assertThat(later.metaClient()).containsSame(loaded);
    assertThat(later.lastChange()).isEqualTo(first.lastChange());
    assertThat(later.lastPoll()).contains(first.lastPoll().orElseThrow().plusSeconds(30));
    assertThat(pool.snapshot()).isEmpty();
  }

  @Test
  void aNewCommitIsSeenAndTheDueCompactionScheduledAndEnqueued() throws IOException {
    ServicedTable table = mor("orders", Map.of("hoodie.compact.inline.max.delta.commits", "2"));
    TableState state = new TableState(table);
    poller.poll(state, false);
    Instant firstChange = state.snapshot().lastChange().orElseThrow();
    HoodieTableMetaClient before = state.snapshot().metaClient().orElseThrow();
    assertThat(pool.snapshot()).isEmpty();

    localTables.upsert(table, 0, 5, 2);
    clock.advance(Duration.ofSeconds(30));
    assertThat(poller.poll(state, false)).isEqualTo(TablePoller.Result.PLANNED);

    assertThat(state.snapshot().metaClient().orElseThrow()).isNotSameAs(before);
    assertThat(state.snapshot().lastChange()).contains(firstChange.plusSeconds(30));
    HoodieTableMetaClient reread = hudiTables.metaClient(table.basePath());
    Optional<String> compaction = reread.getActiveTimeline().filterPendingCompactionTimeline().lastInstant()
        .map(HoodieInstant::requestedTime).toJavaOptional();
    assertThat(compaction).isPresent();
    assertThat(pool.snapshot()).extracting(RunRecord::item)
        .singleElement()
        .satisfies(item -> {
          assertThat(item.table()).isEqualTo(table);
          assertThat(item.service()).isEqualTo(ServiceType.COMPACTION);
          assertThat(item.instant()).isEqualTo(compaction);
        });

    // The daemon's own plan does not count as a change on the next poll.
    assertThat(poller.poll(state, false)).isEqualTo(TablePoller.Result.UNCHANGED);
    assertThat(pool.snapshot()).hasSize(1);
  }

  /**
   * A commit another process makes while a poll plans (here the first poll, which also reads its fingerprint of the
   * timeline folder anew) is a change for the next poll, though the poll's own plan is not: one replica's plan
   * written while another planned was never enqueued when the poll took the timeline after planning as seen.
   */
  @Test
  void aCommitMadeWhileAPollPlansIsSeenByTheNextPoll() throws IOException {
    ServicedTable table = mor("orders", Map.of("hoodie.compact.inline.max.delta.commits", "2"));
    localTables.upsert(table, 0, 5, 2);
    AtomicInteger commitsDuringPlanning = new AtomicInteger();
    PollObserver writerMeanwhile = new PollObserver() {
      @Override
      public void polled(String tableId, TablePoller.Result result, Duration duration) {
      }

      @Override
      public void scheduled(String tableId, List<String> instants) {
        localTables.upsert(table, 5, 5, 3);
        commitsDuringPlanning.incrementAndGet();
      }
    };
    TablePoller planning = new TablePoller(hudiTables, HudiTables.defaultHadoopConfiguration(),
        new DuePlanner(hudiTables, pool), MAX_BACKOFF, TablePoller.Backlog.SKIPPED, writerMeanwhile,
        tableId -> true, clock);
    TableState state = new TableState(table);

    assertThat(planning.poll(state, false)).isEqualTo(TablePoller.Result.PLANNED);
    assertThat(commitsDuringPlanning).hasValue(1);
    assertThat(pool.snapshot()).extracting(RunRecord::item).singleElement()
        .satisfies(item -> assertThat(item.service()).isEqualTo(ServiceType.COMPACTION));
    HoodieTableMetaClient before = state.snapshot().metaClient().orElseThrow();

    clock.advance(table.pollInterval());
    assertThat(poller.poll(state, false)).as("the poll after the writer's commit").isEqualTo(TablePoller.Result.PLANNED);
    assertThat(state.snapshot().metaClient().orElseThrow()).isNotSameAs(before);
    clock.advance(table.pollInterval());
    assertThat(poller.poll(state, false)).isEqualTo(TablePoller.Result.UNCHANGED);
  }

  /** A change of hoodie.properties alone, as a CLI edit would make it: the timeline stays as it was. */
  private void editHoodieProperties(ServicedTable table) {
    HoodieTableMetaClient metaClient = hudiTables.metaClient(table.basePath());
    Properties update = new Properties();
    update.setProperty("hoodie.tsd.test.edit", "1");
    HoodieTableConfig.update(metaClient.getStorage(), metaClient.getMetaPath(), update);
  }

  /**
   * Publishes the table's loaded state with its file system wrapped as a store where a status call is a request (an
   * object store's HEAD): the wrapper is no {@code LocalFileSystem}, and lists and reads as the local one does.
   */
  private static void asObjectStore(TableState state) {
    PollResult last = state.polled();
    PollResult.LoadedTable loaded = last.table().orElseThrow();
    TimelineLocation remote = new TimelineLocation(new FilterFileSystem(loaded.location().fileSystem()) {
    }, loaded.location().timeline(), loaded.location().properties());
    assertThat(remote.statusIsFree()).isFalse();
    state.publish(new PollResult(Optional.of(new PollResult.LoadedTable(loaded.fingerprint(), loaded.metaClient(),
            loaded.writeConfig(), remote, loaded.propertiesCheckedAt())), last.lastPoll(), last.lastChange(),
        last.timeTriggered(), last.recheckAt(), last.failedWrites(), last.backlog(), last.failures(),
        last.replansServed(), last.decisions()));
  }

  @Test
  void onALocalFileSystemAHoodiePropertiesEditAloneIsSeenOnTheNextPoll() throws IOException {
    ServicedTable table = mor("orders", Map.of());
    TableState state = new TableState(table);
    poller.poll(state, false);
    HoodieTableMetaClient loaded = state.snapshot().metaClient().orElseThrow();
    assertThat(state.polled().table().orElseThrow().location().statusIsFree()).isTrue();

    editHoodieProperties(table);
    clock.advance(table.pollInterval());

    assertThat(poller.poll(state, false)).isEqualTo(TablePoller.Result.PLANNED);
    assertThat(state.snapshot().metaClient().orElseThrow()).isNotSameAs(loaded);
    clock.advance(table.pollInterval());
    assertThat(poller.poll(state, false)).isEqualTo(TablePoller.Result.UNCHANGED);
  }

  /** Garbage written over hoodie.properties fails the next poll, naming the file, instead of 10 polls later. */
  @Test
  void aGarbledHoodiePropertiesFailsTheNextPollNamingTheFile() throws IOException {
    ServicedTable table = mor("orders", Map.of());
    TableState state = new TableState(table);
    poller.poll(state, false);
    Path properties = directory.resolve("orders").resolve(".hoodie").resolve("hoodie.properties");
    byte[] original = Files.readAllBytes(properties);
    Files.writeString(properties, "garbage\n");
    clock.advance(table.pollInterval());

    assertThat(poller.poll(state, false)).isEqualTo(TablePoller.Result.FAILED);
    assertThat(state.snapshot().lastError().orElseThrow()).startsWith(table.basePath() + ": table config "
        + table.basePath() + "/.hoodie/hoodie.properties cannot be read: ");

    Files.write(properties, original);
    clock.advance(MAX_BACKOFF);
    assertThat(poller.poll(state, false)).isEqualTo(TablePoller.Result.PLANNED);
    assertThat(state.snapshot().lastError()).isEmpty();
  }

  @Test
  void onAnObjectStoreAnIdleTableReadsHoodiePropertiesOnlyOnEveryTenthPoll() throws IOException {
    ServicedTable table = mor("orders", Map.of());
    TableState state = new TableState(table);
    poller.poll(state, false);
    asObjectStore(state);
    HoodieTableMetaClient loaded = state.snapshot().metaClient().orElseThrow();

    editHoodieProperties(table);

    // Between rechecks a poll lists the timeline alone, so the edit is not seen yet.
    for (int poll = 1; poll < TablePoller.PROPERTIES_RECHECK_POLLS; poll++) {
      clock.advance(table.pollInterval());
      assertThat(poller.poll(state, false)).as("poll %d", poll).isEqualTo(TablePoller.Result.UNCHANGED);
    }
    assertThat(state.snapshot().metaClient()).containsSame(loaded);

    clock.advance(table.pollInterval());
    assertThat(poller.poll(state, false)).isEqualTo(TablePoller.Result.PLANNED);
    assertThat(state.snapshot().metaClient().orElseThrow()).isNotSameAs(loaded);
    clock.advance(table.pollInterval());
    assertThat(poller.poll(state, false)).isEqualTo(TablePoller.Result.UNCHANGED);
  }

  @Test
  void aHoodiePropertiesChangeWithATimelineChangeIsSeenOnTheNextPoll() throws IOException {
    ServicedTable table = mor("orders", Map.of());
    TableState state = new TableState(table);
    poller.poll(state, false);

    editHoodieProperties(table);
    // The writer's next commit moves the timeline: the poll reads hoodie.properties with it.
    localTables.upsert(table, 0, 5, 2);
    clock.advance(table.pollInterval());

    assertThat(poller.poll(state, false)).isEqualTo(TablePoller.Result.PLANNED);
    assertThat(state.snapshot().metaClient().orElseThrow().getTableConfig().getProps()
        .getProperty("hoodie.tsd.test.edit")).isEqualTo("1");
  }

  /**
   * Hudi rewrites hoodie.properties by writing hoodie.properties.backup, deleting the file and writing it again; on an
   * object store a reader in between finds only the backup (seen on S3 while an index build added a partition).
   */
  @Test
  void aPollBetweenHudisDeleteAndRewriteOfHoodiePropertiesReadsTheBackup() throws IOException {
    ServicedTable table = mor("orders", Map.of());
    TableState state = new TableState(table);
    poller.poll(state, false);
    localTables.upsert(table, 0, 5, 2);
    Path properties = directory.resolve("orders").resolve(".hoodie").resolve("hoodie.properties");
    Files.move(properties, properties.resolveSibling("hoodie.properties.backup"));
    clock.advance(table.pollInterval());

    assertThat(poller.poll(state, false)).isEqualTo(TablePoller.Result.PLANNED);
    assertThat(state.snapshot().metaClient().orElseThrow().getTableConfig().getTableVersion().versionCode())
        .isEqualTo(9);
  }

  @Test
  void beforeVersion8AHoodiePropertiesEditIsSeenOnTheNextPoll() throws IOException {
    // Version 6 keeps hoodie.properties in the timeline folder (.hoodie): the listing itself shows the edit.
    ServicedTable table = localTables.create(directory.resolve("orders6"), HoodieTableType.MERGE_ON_READ, 6,
        Map.of());
    localTables.upsert(table, 0, 10, 1);
    TableState state = new TableState(table);
    poller.poll(state, false);
    HoodieTableMetaClient loaded = state.snapshot().metaClient().orElseThrow();

    editHoodieProperties(table);
    clock.advance(table.pollInterval());

    assertThat(poller.poll(state, false)).isEqualTo(TablePoller.Result.PLANNED);
    assertThat(state.snapshot().metaClient().orElseThrow()).isNotSameAs(loaded);
  }

  @Test
  void aTimeTriggeredCompactionIsEvaluatedOnEveryPollWithoutReloading() throws IOException {
    TableState state = new TableState(mor("orders", Map.of(
        "hoodie.compact.inline.trigger.strategy", "TIME_ELAPSED",
        "hoodie.compact.inline.max.delta.seconds", "3600")));
    poller.poll(state, false);
    HoodieTableMetaClient loaded = state.snapshot().metaClient().orElseThrow();

    assertThat(poller.poll(state, false)).isEqualTo(TablePoller.Result.PLANNED);

    assertThat(state.snapshot().metaClient()).containsSame(loaded);
    assertThat(pool.snapshot()).isEmpty();
  }

  @Test
  void anIdleTableKeepsNoWriteConfigWhileATimeTriggeredOneKeepsItsOwn() throws IOException {
    TableState counted = new TableState(mor("counted", Map.of("hoodie.compact.inline.max.delta.commits", "3")));
    TableState timed = new TableState(mor("timed", Map.of(
        "hoodie.compact.inline.trigger.strategy", "TIME_ELAPSED",
        "hoodie.compact.inline.max.delta.seconds", "3600")));

    poller.poll(counted, false);
    poller.poll(timed, false);
    clock.advance(Duration.ofSeconds(30));
    assertThat(poller.poll(counted, false)).isEqualTo(TablePoller.Result.UNCHANGED);
    assertThat(poller.poll(timed, false)).isEqualTo(TablePoller.Result.PLANNED);

    // 94% of what polling held per table was this config; only a table whose every poll plans with it keeps it.
    assertThat(counted.polled().table().orElseThrow().writeConfig()).isEmpty();
    assertThat(timed.polled().table().orElseThrow().writeConfig()).hasValueSatisfying(config ->
        assertThat(config.getString("hoodie.compact.inline.max.delta.seconds")).isEqualTo("3600"));
  }

  @Test
  void aRecheckWithoutAChangePlansWithTheTablesOwnKeysThoughNoConfigWasKept() throws IOException {
    // Two delta commits: due at the table's own trigger of 2, not at Hudi's default of 5.
    ServicedTable table = mor("orders", Map.of("hoodie.compact.inline.max.delta.commits", "2"));
    localTables.upsert(table, 0, 5, 2);
    TableState state = new TableState(table);
    state.setPaused(true);
    assertThat(poller.poll(state, false)).isEqualTo(TablePoller.Result.PLANNED);
    assertThat(pool.snapshot()).as("nothing is scheduled while paused").isEmpty();
    assertThat(state.polled().table().orElseThrow().writeConfig()).isEmpty();
    state.setPaused(false);
    // A heartbeat recheck that is due, with the resume's replan already served: the timeline did not move, so
    // the poll plans against the loaded meta client and must build the config it no longer holds.
    PollResult last = state.polled();
    state.publish(new PollResult(last.table(), last.lastPoll(), last.lastChange(), false,
        Optional.of(clock.instant()), last.failedWrites(), last.backlog(), last.failures(), state.replanRequests(),
        last.decisions()));
    HoodieTableMetaClient loaded = last.table().orElseThrow().metaClient();

    assertThat(poller.poll(state, false)).isEqualTo(TablePoller.Result.PLANNED);

    assertThat(pool.snapshot()).extracting(RunRecord::item)
        .singleElement()
        .satisfies(item -> assertThat(item.service()).isEqualTo(ServiceType.COMPACTION));
    assertThat(state.snapshot().metaClient()).containsSame(loaded);
  }

  @Test
  void idlePollsListThroughTheFileSystemResolvedWhenTheTableWasLoaded() throws IOException {
    TableState state = new TableState(mor("orders", Map.of()));
    poller.poll(state, false);
    TimelineLocation location = state.polled().table().orElseThrow().location();
    assertThat(location.timeline().toString()).endsWith(".hoodie/timeline");

    for (int poll = 0; poll < TablePoller.PROPERTIES_RECHECK_POLLS + 1; poll++) {
      clock.advance(Duration.ofSeconds(30));
      assertThat(poller.poll(state, false)).isEqualTo(TablePoller.Result.UNCHANGED);
      assertThat(state.polled().table().orElseThrow().location()).isSameAs(location);
    }
  }

  @Test
  void aFileSystemThatFailsIsResolvedAgainAndTheTablePollsOn() throws IOException {
    TableState state = new TableState(mor("orders", Map.of()));
    poller.poll(state, false);
    PollResult last = state.polled();
    PollResult.LoadedTable loaded = last.table().orElseThrow();
    // As a FileSystem closed by another user of Hadoop's cached instance fails every call.
    FileSystem closed = new FilterFileSystem(loaded.location().fileSystem()) {
      @Override
      public FileStatus[] listStatus(org.apache.hadoop.fs.Path path) throws IOException {
        throw new IOException("Filesystem closed");
      }
    };
    TimelineLocation stale = new TimelineLocation(closed, loaded.location().timeline(),
        loaded.location().properties());
    state.publish(new PollResult(Optional.of(new PollResult.LoadedTable(loaded.fingerprint(), loaded.metaClient(),
            loaded.writeConfig(), stale, loaded.propertiesCheckedAt())), last.lastPoll(), last.lastChange(),
        last.timeTriggered(), last.recheckAt(), last.failedWrites(), last.backlog(), last.failures(),
        last.replansServed(), last.decisions()));
    clock.advance(Duration.ofSeconds(30));

    assertThat(poller.poll(state, false)).isEqualTo(TablePoller.Result.UNCHANGED);

    TimelineLocation now = state.polled().table().orElseThrow().location();
    assertThat(now.fileSystem()).isNotSameAs(closed);
    assertThat(poller.poll(state, false)).isEqualTo(TablePoller.Result.UNCHANGED);
    assertThat(state.polled().table().orElseThrow().location()).isSameAs(now);
  }

  @Test
  void aCorruptTableBacksOffWhileAnotherInTheSameRegistryPollsOn() throws IOException {
    TableRegistry registry = new TableRegistry();
    ServicedTable healthy = mor("healthy", Map.of());
    ServicedTable corrupt = mor("corrupt", Map.of());
    registry.add(healthy);
    registry.add(corrupt);
    TableState healthyState = registry.get(healthy.id()).orElseThrow();
    TableState corruptState = registry.get(corrupt.id()).orElseThrow();
    registry.all().forEach(state -> assertThat(poller.poll(state, false)).isEqualTo(TablePoller.Result.PLANNED));

    // A completed delta commit whose content is not commit metadata.
    Path garbage = directory.resolve("corrupt/.hoodie/timeline/20991231235959999_20991231235959999.deltacommit");
    Files.writeString(garbage, "this is not commit metadata");
    Instant failedAt = clock.instant();
    assertThat(poller.poll(corruptState, false)).isEqualTo(TablePoller.Result.FAILED);

    assertThat(corruptState.snapshot().consecutiveFailures()).isEqualTo(1);
    assertThat(corruptState.snapshot().lastError().orElseThrow())
        .startsWith(corrupt.basePath() + ": corrupt instant file file:" + garbage + ": completed deltacommit");
    // The first failure waits two poll intervals.
    assertThat(nextAttempt(corruptState)).isEqualTo(failedAt.plusSeconds(60));
    clock.advance(Duration.ofSeconds(59));
    assertThat(poller.poll(corruptState, false)).isEqualTo(TablePoller.Result.IN_BACKOFF);
    assertThat(corruptState.snapshot().consecutiveFailures()).isEqualTo(1);

    // Meanwhile the healthy table sees its own commits.
    localTables.upsert(healthy, 10, 5, 2);
    assertThat(poller.poll(healthyState, false)).isEqualTo(TablePoller.Result.PLANNED);
    assertThat(poller.poll(healthyState, false)).isEqualTo(TablePoller.Result.UNCHANGED);
    assertThat(healthyState.snapshot().consecutiveFailures()).isZero();

    // Past the backoff the table is polled again; each further failure doubles the wait, up to maxBackoff.
    clock.advance(Duration.ofSeconds(1));
    assertThat(poller.poll(corruptState, false)).isEqualTo(TablePoller.Result.FAILED);
    assertThat(corruptState.snapshot().consecutiveFailures()).isEqualTo(2);
    assertThat(nextAttempt(corruptState)).isEqualTo(clock.instant().plusSeconds(120));
    assertThat(poller.poll(corruptState, true)).isEqualTo(TablePoller.Result.FAILED);
    assertThat(nextAttempt(corruptState)).isEqualTo(clock.instant().plus(MAX_BACKOFF));

    // Once repaired, the table polls again and its failures are forgotten.
    Files.delete(garbage);
    assertThat(poller.poll(corruptState, true)).isEqualTo(TablePoller.Result.PLANNED);
    assertThat(corruptState.snapshot().consecutiveFailures()).isZero();
    assertThat(nextAttempt(corruptState)).isEqualTo(Instant.MIN);
    assertThat(corruptState.snapshot().lastError()).isEmpty();
  }

  @Test
  void aDeletedTableFailsWithItsPath() throws IOException {
    ServicedTable table = mor("orders", Map.of());
    TableState state = new TableState(table);
    poller.poll(state, false);

    Directories.delete(directory.resolve("orders"));

    assertThat(poller.poll(state, false)).isEqualTo(TablePoller.Result.FAILED);
    assertThat(state.snapshot().lastError().orElseThrow())
        .startsWith(table.basePath() + ": FileNotFoundException: ");
    assertThat(state.snapshot().consecutiveFailures()).isEqualTo(1);
  }

  @Test
  void aResumedTableEnqueuesWhatBecameDueWhilePaused() throws IOException {
    ServicedTable table = mor("orders", Map.of("hoodie.compact.inline.max.delta.commits", "2"));
    TableState state = new TableState(table);
    poller.poll(state, false);
    state.setPaused(true);

    localTables.upsert(table, 0, 5, 2);
    assertThat(poller.poll(state, false)).isEqualTo(TablePoller.Result.PLANNED);
    assertThat(pool.snapshot()).as("nothing is scheduled while paused").isEmpty();
    assertThat(poller.poll(state, false)).isEqualTo(TablePoller.Result.UNCHANGED);

    state.setPaused(false);
    assertThat(poller.poll(state, false)).isEqualTo(TablePoller.Result.PLANNED);
    assertThat(pool.snapshot()).extracting(RunRecord::item)
        .singleElement()
        .satisfies(item -> assertThat(item.service()).isEqualTo(ServiceType.COMPACTION));
    assertThat(poller.poll(state, false)).isEqualTo(TablePoller.Result.UNCHANGED);
  }

  @Test
  void anOwnershipGainDuringAPollMakesTheNextPollPlan() throws Exception {
    ServicedTable table = mor("orders", Map.of("hoodie.compact.inline.max.delta.commits", "2"));
    ScriptedOwnership ownership = new ScriptedOwnership();
    TablePoller owningPoller = new TablePoller(hudiTables, HudiTables.defaultHadoopConfiguration(),
        new DuePlanner(hudiTables, pool), MAX_BACKOFF, TablePoller.Backlog.READ, PollObserver.NONE, ownership, clock);
    TableState state = new TableState(table);
    assertThat(owningPoller.poll(state, false)).isEqualTo(TablePoller.Result.PLANNED);
    TableSnapshot before = state.snapshot();
    // A second delta commit makes compaction due.
    localTables.upsert(table, 0, 5, 2);
    clock.advance(Duration.ofSeconds(30));

    // The replica owns the table when the poll starts and has lost it by the time the poll would plan; while the
    // poll is held there, the ZooKeeper thread hands the table back and asks for a replan.
    ownership.holdAfter(1);
    CompletableFuture<TablePoller.Result> poll = CompletableFuture.supplyAsync(() -> owningPoller.poll(state, false));
    try {
      ownership.awaitHeld();
      // Half-way through, the poll has loaded the changed table, but readers still see the last result whole.
      TableSnapshot during = state.snapshot();
      assertThat(during.metaClient().orElseThrow()).isSameAs(before.metaClient().orElseThrow());
      assertThat(during.lastPoll()).isEqualTo(before.lastPoll());
      assertThat(during.lastChange()).isEqualTo(before.lastChange());
      assertThat(during.backlog()).isEqualTo(before.backlog());
      Thread zookeeper = new Thread(state::replanOnNextPoll, "zookeeper-event");
      zookeeper.start();
      zookeeper.join();
    } finally {
      ownership.release();
    }
    assertThat(poll.get(60, TimeUnit.SECONDS)).isEqualTo(TablePoller.Result.PLANNED);
    assertThat(state.snapshot().lastChange()).contains(clock.instant());
    assertThat(pool.snapshot()).isEmpty();

    // The replan asked for during that poll is owed to the next one, though the timeline did not change since.
    assertThat(owningPoller.poll(state, false)).isEqualTo(TablePoller.Result.PLANNED);
    assertThat(pool.snapshot()).extracting(RunRecord::item)
        .singleElement()
        .satisfies(item -> assertThat(item.service()).isEqualTo(ServiceType.COMPACTION));
  }

  private static Instant nextAttempt(TableState state) {
    return state.polled().failures().nextAttempt();
  }

  /**
   * Ownership that answers "owned", except that once armed it lets a number of checks through and then answers
   * "not owned" to the next one, holding that check until {@link #release()}.
   */
  private static final class ScriptedOwnership implements Predicate<String> {
    private final CountDownLatch held = new CountDownLatch(1);
    private final CountDownLatch released = new CountDownLatch(1);
    private final AtomicInteger passesBeforeHold = new AtomicInteger(-1);

    void holdAfter(int passes) {
      passesBeforeHold.set(passes);
    }

    void awaitHeld() throws InterruptedException {
      assertThat(held.await(60, TimeUnit.SECONDS)).as("the poll reached its ownership check").isTrue();
    }

    void release() {
      released.countDown();
    }

    @Override
    public boolean test(String tableId) {
      if (passesBeforeHold.get() < 0 || passesBeforeHold.getAndDecrement() > 0) {
        return true;
      }
      held.countDown();
      try {
        assertThat(released.await(60, TimeUnit.SECONDS)).isTrue();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      return false;
    }
  }
}
