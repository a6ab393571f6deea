package io.huditsd.scheduler;

import io.huditsd.config.ServicedTable;
import io.huditsd.executors.RunRecord;
import io.huditsd.executors.RunStatus;
import io.huditsd.executors.WorkerPool;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * One pass over a set of tables, for cron and Kubernetes CronJobs: schedule what is due, execute every pending
 * plan, and repeat while a round produced new work (a finished compaction can make a clean or an archive due),
 * at most {@link #MAX_ROUNDS} rounds.
 */
public final class OncePass {
  private static final Logger LOG = LoggerFactory.getLogger(OncePass.class);
  static final int MAX_ROUNDS = 4;

  private final TablePoller poller;
  private final WorkerPool pool;

  public OncePass(TablePoller poller, WorkerPool pool) {
    this.poller = Objects.requireNonNull(poller, "poller is null");
    this.pool = Objects.requireNonNull(pool, "pool is null");
  }

  /** Problems found, one message per table or failed run; empty when every table was serviced. */
  public List<String> run(List<ServicedTable> tables, Duration timeout, List<RunRecord> finishedRuns)
      throws InterruptedException {
    List<TableState> states = tables.stream().map(TableState::new).toList();
    List<String> problems = new ArrayList<>();
    for (int round = 1; round <= MAX_ROUNDS; round++) {
      int before = finishedRuns.size();
      for (TableState state : states) {
        if (state.snapshot().consecutiveFailures() == 0) {
          poller.poll(state, true);
        }
      }
      if (!pool.awaitIdle(timeout)) {
        problems.add("timed out after " + timeout.toSeconds() + "s waiting for plans to finish");
        return problems;
      }
      if (finishedRuns.size() == before) {
        LOG.info("Pass complete after {} round(s)", round);
        break;
      }
    }
    for (TableState state : states) {
      state.snapshot().lastError().ifPresent(problems::add);
    }
    synchronized (finishedRuns) {
      for (RunRecord run : finishedRuns) {
        if (run.status() == RunStatus.FAILED) {
          problems.add(run.item().describe() + " failed: " + run.error().orElse("unknown error"));
        }
      }
    }
    return problems;
  }
}
