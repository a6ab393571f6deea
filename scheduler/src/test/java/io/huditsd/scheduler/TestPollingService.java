package io.huditsd.scheduler;

import io.huditsd.config.MetadataIndexes;
import io.huditsd.config.ServiceType;
import io.huditsd.config.ServicedTable;
import io.huditsd.executors.HudiTables;
import io.huditsd.executors.LocalTables;
import io.huditsd.executors.RunRecord;
import io.huditsd.executors.WorkerPool;
import org.apache.hudi.common.model.HoodieTableType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/** Timed polls of registered tables on a short interval, and polls asked for outside it. */
class TestPollingService {
  private static final Duration INTERVAL = Duration.ofMillis(200);

  private final LocalTables localTables = new LocalTables();
  private final HudiTables hudiTables = localTables.hudiTables();
  private final HoldingPool holdingPool = new HoldingPool();
  private final WorkerPool pool = holdingPool.pool();
  private final TableRegistry registry = new TableRegistry();
  private PollingService polling;

  @TempDir
  Path directory;

  @BeforeEach
  void startPolling() throws Exception {
    TablePoller poller = new TablePoller(hudiTables, HudiTables.defaultHadoopConfiguration(),
        new DuePlanner(hudiTables, pool), Duration.ofSeconds(1), TablePoller.Backlog.READ, PollObserver.NONE, tableId -> true,
        Clock.systemUTC());
    polling = new PollingService(poller, registry, 2);
    registry.addListener(polling);
    polling.start();
  }

  @AfterEach
  void stop() throws InterruptedException {
    polling.close();
    holdingPool.close();
  }

  private ServicedTable withShortInterval(ServicedTable table) {
    return table.withPollInterval(INTERVAL);
  }

  @Test
  void pollsEveryTableOnItsIntervalAndSchedulesWhatANewCommitMakesDue() throws IOException {
    ServicedTable table = withShortInterval(localTables.create(directory.resolve("orders"),
        HoodieTableType.MERGE_ON_READ, 9, Map.of("hoodie.compact.inline.max.delta.commits", "2")));
    localTables.upsert(table, 0, 10, 1);
    ServicedTable missing = new ServicedTable("missing", "file:" + directory.resolve("missing"),
        Set.of(ServiceType.values()), INTERVAL, Map.of(), MetadataIndexes.none());
    registry.add(table);
    registry.add(missing);
    TableState state = registry.get(table.id()).orElseThrow();
    TableState missingState = registry.get("missing").orElseThrow();

    await().atMost(Duration.ofSeconds(20)).until(() -> state.snapshot().lastPoll().isPresent());
    Instant firstPoll = state.snapshot().lastPoll().orElseThrow();
    await().atMost(Duration.ofSeconds(10)).until(() -> state.snapshot().lastPoll().orElseThrow().isAfter(firstPoll));
    // The missing table fails, and keeps failing on its backoff, without holding up the other.
    await().atMost(Duration.ofSeconds(10)).until(() -> missingState.snapshot().consecutiveFailures() >= 2);
    assertThat(state.snapshot().consecutiveFailures()).isZero();
    assertThat(pool.snapshot()).isEmpty();

    localTables.upsert(table, 0, 5, 2);

    await().atMost(Duration.ofSeconds(20)).until(() -> !pool.snapshot().isEmpty());
    assertThat(pool.snapshot()).extracting(RunRecord::item)
        .singleElement()
        .satisfies(item -> assertThat(item.service()).isEqualTo(ServiceType.COMPACTION));
  }

  @Test
  void aRemovedTableIsNoLongerPolled() throws IOException {
    ServicedTable table = withShortInterval(localTables.create(directory.resolve("orders"),
        HoodieTableType.COPY_ON_WRITE, 9, Map.of()));
    registry.add(table);
    TableState state = registry.get(table.id()).orElseThrow();
    await().atMost(Duration.ofSeconds(20)).until(() -> state.snapshot().lastPoll().isPresent());

    registry.remove(table.id(), "test");
    Instant removedAt = Instant.now();

    // A poll takes its time stamp when it starts, so no poll started after the removal while this holds; five
    // intervals give the scheduler ample chance to show otherwise.
    await().atMost(Duration.ofSeconds(5)).during(INTERVAL.multipliedBy(5))
        .until(() -> state.snapshot().lastPoll().orElseThrow().isBefore(removedAt));
  }

  @Test
  void aPollAskedForRunsWithoutWaitingForTheInterval() throws IOException {
    ServicedTable table = localTables.create(directory.resolve("orders"), HoodieTableType.COPY_ON_WRITE, 9, Map.of())
        .withPollInterval(Duration.ofHours(1));
    registry.add(table);
    TableState state = registry.get(table.id()).orElseThrow();
    // The first table registered polls first at once (FirstPolls), the next timed poll is an hour away.
    await().atMost(Duration.ofSeconds(20)).until(() -> state.snapshot().lastPoll().isPresent());
    Instant firstPoll = state.snapshot().lastPoll().orElseThrow();
    assertThat(polling.nextPoll(table.id())).hasValueSatisfying(next -> assertThat(next).isAfter(firstPoll.plusSeconds(3000)));

    polling.pollNow(table.id());

    await().atMost(Duration.ofSeconds(20)).until(() -> state.snapshot().lastPoll().orElseThrow().isAfter(firstPoll));
  }

  @Test
  void aPollOfATableNotScheduledIsRefusedNamingIt() {
    assertThatThrownBy(() -> polling.pollNow("nowhere"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("nowhere");
  }
}
