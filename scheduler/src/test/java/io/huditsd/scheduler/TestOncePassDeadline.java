package io.huditsd.scheduler;

import io.huditsd.config.ServiceType;
import io.huditsd.config.ServicedTable;
import io.huditsd.executors.ActionResult;
import io.huditsd.executors.HudiTables;
import io.huditsd.executors.LocalTables;
import io.huditsd.executors.RunRecord;
import io.huditsd.executors.WorkerPool;
import org.apache.hudi.common.model.HoodieTableType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code once --timeout-minutes} bounds the whole pass, not each of its rounds. The runner here takes 40 minutes of
 * a clock the test advances and leaves the compaction plan pending, so every round finds it again: two rounds stay
 * under a 60-minute timeout each but not together.
 */
class TestOncePassDeadline {
  private static final Duration RUN_TAKES = Duration.ofMinutes(40);

  private final LocalTables localTables = new LocalTables();
  private final HudiTables hudiTables = localTables.hudiTables();
  private final SettableClock clock = new SettableClock(Instant.parse("2026-12-01T00:00:00Z"));
  private final List<RunRecord> finished = Collections.synchronizedList(new ArrayList<>());
  private final WorkerPool pool = new WorkerPool(1, 1, Duration.ZERO, item -> {
    clock.advance(RUN_TAKES);
    return new ActionResult(item.service(), item.instant(), 0, 0, 0, RUN_TAKES);
  }, run -> {
    if (run.status().isFinal()) {
      finished.add(run);
    }
  });
  private final TablePoller poller = new TablePoller(hudiTables, HudiTables.defaultHadoopConfiguration(),
      new DuePlanner(hudiTables, pool), Duration.ofMinutes(3), TablePoller.Backlog.READ, PollObserver.NONE, tableId -> true,
      Clock.systemUTC());

  @TempDir
  Path directory;

  @AfterEach
  void stopPool() throws InterruptedException {
    pool.shutdown(Duration.ofSeconds(10));
  }

  @Test
  void theTimeoutIsOneDeadlineForEveryRoundOfThePass() throws Exception {
    ServicedTable table = localTables.create(directory.resolve("orders"), HoodieTableType.MERGE_ON_READ, 9,
        Map.of("hoodie.compact.inline.max.delta.commits", "1")).withServices(Set.of(ServiceType.COMPACTION));
    localTables.upsert(table, 0, 20, 1);
    localTables.upsert(table, 0, 10, 2);

    List<String> problems = new OncePass(poller, pool, clock, item -> Optional.empty())
        .run(List.of(table), Duration.ofMinutes(60), finished).problems();

    assertThat(problems).containsExactly("timed out after 3600s waiting for plans to finish");
    assertThat(finished).as("runs before the deadline passed").hasSize(2);
  }
}
