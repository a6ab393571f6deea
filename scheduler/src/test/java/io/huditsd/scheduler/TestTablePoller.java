package io.huditsd.scheduler;

import io.huditsd.config.ServiceType;
import io.huditsd.config.ServicedTable;
import io.huditsd.executors.HudiTables;
import io.huditsd.executors.LocalTables;
import io.huditsd.executors.RunRecord;
import io.huditsd.executors.WorkerPool;
import org.apache.hudi.common.model.HoodieTableType;
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
import java.util.Map;
import java.util.Optional;

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
  private final TablePoller poller = new TablePoller(hudiTables, HudiTables.defaultHadoopConfiguration(),
      new DuePlanner(hudiTables, pool), MAX_BACKOFF);

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
  void anUnchangedTableIsNotReloaded() throws IOException {
    TableState state = new TableState(mor("orders", Map.of()));
    poller.poll(state, false);
    HoodieTableMetaClient loaded = state.metaClient;
    TableSnapshot first = state.snapshot();

    assertThat(poller.poll(state, false)).isEqualTo(TablePoller.Result.UNCHANGED);
    assertThat(poller.poll(state, false)).isEqualTo(TablePoller.Result.UNCHANGED);

    assertThat(state.metaClient).isSameAs(loaded);
    TableSnapshot later = state.snapshot();
    assertThat(later.lastChange()).isEqualTo(first.lastChange());
    assertThat(later.lastPoll().get()).isAfterOrEqualTo(first.lastPoll().get());
    assertThat(pool.snapshot()).isEmpty();
  }

  @Test
  void aNewCommitIsSeenAndTheDueCompactionScheduledAndEnqueued() throws IOException {
    ServicedTable table = mor("orders", Map.of("hoodie.compact.inline.max.delta.commits", "2"));
    TableState state = new TableState(table);
    poller.poll(state, false);
    Instant firstChange = state.snapshot().lastChange().orElseThrow();
    HoodieTableMetaClient before = state.metaClient;
    assertThat(pool.snapshot()).isEmpty();

    localTables.upsert(table, 0, 5, 2);
    assertThat(poller.poll(state, false)).isEqualTo(TablePoller.Result.PLANNED);

    assertThat(state.metaClient).isNotSameAs(before);
    assertThat(state.snapshot().lastChange().orElseThrow()).isAfter(firstChange);
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

  @Test
  void aTimeTriggeredCompactionIsEvaluatedOnEveryPollWithoutReloading() throws IOException {
    TableState state = new TableState(mor("orders", Map.of(
        "hoodie.compact.inline.trigger.strategy", "TIME_ELAPSED",
        "hoodie.compact.inline.max.delta.seconds", "3600")));
    poller.poll(state, false);
    HoodieTableMetaClient loaded = state.metaClient;

    assertThat(poller.poll(state, false)).isEqualTo(TablePoller.Result.PLANNED);

    assertThat(state.metaClient).isSameAs(loaded);
    assertThat(pool.snapshot()).isEmpty();
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
    Instant beforeFailure = Instant.now();
    assertThat(poller.poll(corruptState, false)).isEqualTo(TablePoller.Result.FAILED);

    assertThat(corruptState.consecutiveFailures).isEqualTo(1);
    assertThat(corruptState.snapshot().lastError().orElseThrow())
        .startsWith(corrupt.basePath() + ": corrupt instant file file:" + garbage + ": completed deltacommit");
    // The first failure waits two poll intervals.
    assertThat(corruptState.nextAttempt).isBetween(beforeFailure.plusSeconds(60), Instant.now().plusSeconds(60));
    assertThat(poller.poll(corruptState, false)).isEqualTo(TablePoller.Result.IN_BACKOFF);
    assertThat(corruptState.consecutiveFailures).isEqualTo(1);

    // Meanwhile the healthy table sees its own commits.
    localTables.upsert(healthy, 10, 5, 2);
    assertThat(poller.poll(healthyState, false)).isEqualTo(TablePoller.Result.PLANNED);
    assertThat(poller.poll(healthyState, false)).isEqualTo(TablePoller.Result.UNCHANGED);
    assertThat(healthyState.consecutiveFailures).isZero();

    // Each further failure doubles the wait, up to maxBackoff.
    assertThat(poller.poll(corruptState, true)).isEqualTo(TablePoller.Result.FAILED);
    assertThat(corruptState.consecutiveFailures).isEqualTo(2);
    assertThat(Duration.between(Instant.now(), corruptState.nextAttempt)).isBetween(
        Duration.ofSeconds(110), Duration.ofSeconds(120));
    assertThat(poller.poll(corruptState, true)).isEqualTo(TablePoller.Result.FAILED);
    assertThat(Duration.between(Instant.now(), corruptState.nextAttempt)).isBetween(
        MAX_BACKOFF.minusSeconds(10), MAX_BACKOFF);

    // Once repaired, the table polls again and its failures are forgotten.
    Files.delete(garbage);
    assertThat(poller.poll(corruptState, true)).isEqualTo(TablePoller.Result.PLANNED);
    assertThat(corruptState.consecutiveFailures).isZero();
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
    assertThat(state.consecutiveFailures).isEqualTo(1);
  }
}
