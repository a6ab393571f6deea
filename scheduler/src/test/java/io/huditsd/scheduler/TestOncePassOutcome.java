package io.huditsd.scheduler;

import io.huditsd.config.ServiceType;
import io.huditsd.config.ServicedTable;
import io.huditsd.executors.ActionResult;
import io.huditsd.executors.HudiTables;
import io.huditsd.executors.LocalTables;
import io.huditsd.executors.RunRecord;
import io.huditsd.executors.RunStatus;
import io.huditsd.executors.WorkItem;
import io.huditsd.executors.WorkerPool;
import org.apache.hudi.common.model.HoodieTableType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.InstanceOfAssertFactories.STRING;

/**
 * {@code once} judges each plan by its last run in the pass. The runners here leave the compaction plan pending,
 * so every round of the pass finds it and runs it again: a plan that failed in the first round and succeeded in the
 * next is no problem of the pass (CI once saw a clustering lose its lock to a concurrent plan and succeed on the
 * next round, and the pass exit 1); a plan that failed every round is one problem, not one a round.
 */
class TestOncePassOutcome {
  private final LocalTables localTables = new LocalTables();
  private final HudiTables hudiTables = localTables.hudiTables();
  private final List<RunRecord> finished = Collections.synchronizedList(new ArrayList<>());
  private final AtomicInteger calls = new AtomicInteger();
  private WorkerPool pool;

  @TempDir
  Path directory;

  @AfterEach
  void stopPool() throws InterruptedException {
    pool.shutdown(Duration.ofSeconds(10));
  }

  @Test
  void aPlanThatFailedOnceAndSucceededInALaterRoundLeavesThePassServiced() throws Exception {
    List<String> problems = passWith(item -> {
      if (calls.incrementAndGet() == 1) {
        throw new IllegalStateException("lost the lock");
      }
      return new ActionResult(item.service(), item.instant(), 0, 0, 0, Duration.ZERO);
    });

    assertThat(finished).extracting(RunRecord::status).as("runs of the pending plan, one a round")
        .startsWith(RunStatus.FAILED, RunStatus.SUCCEEDED);
    assertThat(problems).isEmpty();
  }

  @Test
  void aPlanWhoseLastRunFailedIsOneProblemHoweverManyRoundsFailedIt() throws Exception {
    List<String> problems = passWith(item -> {
      calls.incrementAndGet();
      throw new IllegalStateException("disk full");
    });

    assertThat(finished).as("runs of the pending plan, one a round").hasSize(OncePass.MAX_ROUNDS)
        .allMatch(run -> run.status() == RunStatus.FAILED);
    assertThat(problems).singleElement(STRING)
        .contains("service=compaction").endsWith("failed: IllegalStateException: disk full");
  }

  private List<String> passWith(Function<WorkItem, ActionResult> runner) throws Exception {
    pool = new WorkerPool(1, 1, Duration.ZERO, runner, run -> {
      if (run.status().isFinal()) {
        finished.add(run);
      }
    });
    TablePoller poller = new TablePoller(hudiTables, HudiTables.defaultHadoopConfiguration(),
        new DuePlanner(hudiTables, pool), Duration.ofMinutes(3), TablePoller.Backlog.SKIPPED, PollObserver.NONE,
        tableId -> true, Clock.systemUTC());
    ServicedTable table = localTables.create(directory.resolve("orders"), HoodieTableType.MERGE_ON_READ, 9,
        Map.of("hoodie.compact.inline.max.delta.commits", "1")).withServices(Set.of(ServiceType.COMPACTION));
    localTables.upsert(table, 0, 20, 1);
    localTables.upsert(table, 0, 10, 2);
    return new OncePass(poller, pool, Clock.systemUTC(), item -> Optional.empty())
        .run(List.of(table), Duration.ofMinutes(10), finished).problems();
  }
}
