package io.huditsd.scheduler;

import io.huditsd.config.ServicedTable;
import io.huditsd.executors.RunRecord;
import io.huditsd.executors.RunStatus;
import io.huditsd.executors.WorkerPool;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * One pass over a set of tables, for cron and Kubernetes CronJobs: schedule what is due, execute every pending
 * plan, and repeat while a round produced new work (a finished compaction can make a clean or an archive due),
 * at most {@link #MAX_ROUNDS} rounds. The timeout is one deadline for the whole pass: a CronJob's run must end
 * within it, however many rounds the work takes.
 */
public final class OncePass {
  private static final Logger LOG = LoggerFactory.getLogger(OncePass.class);
  static final int MAX_ROUNDS = 4;

  private final TablePoller poller;
  private final WorkerPool pool;

  private final Clock clock;

  /** @param clock tells when the pass's deadline has passed */
  public OncePass(TablePoller poller, WorkerPool pool, Clock clock) {
    this.poller = Objects.requireNonNull(poller, "poller is null");
    this.pool = Objects.requireNonNull(pool, "pool is null");
    this.clock = Objects.requireNonNull(clock, "clock is null");
  }

  /**
   * Problems found, one message per table or plan whose last run failed; empty when every table was serviced.
   *
   * @param timeout how long the whole pass may take, every round included
   */
  public List<String> run(List<ServicedTable> tables, Duration timeout, List<RunRecord> finishedRuns)
      throws InterruptedException {
    Instant deadline = clock.instant().plus(timeout);
    List<TableState> states = tables.stream().map(TableState::new).toList();
    List<String> problems = new ArrayList<>();
    for (int round = 1; round <= MAX_ROUNDS; round++) {
      int before = finishedRuns.size();
      if (!clock.instant().isBefore(deadline)) {
        problems.add(timedOut(timeout));
        return problems;
      }
      for (TableState state : states) {
        if (state.snapshot().consecutiveFailures() == 0) {
          poller.poll(state, true);
        }
      }
      if (!pool.awaitIdle(Duration.between(clock.instant(), deadline))) {
        problems.add(timedOut(timeout));
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
    for (RunRecord run : lastRunOfEachPlan(finishedRuns)) {
      if (run.status() == RunStatus.FAILED) {
        problems.add(run.item().describe() + " failed: " + run.error().orElse("unknown error"));
      }
    }
    return problems;
  }

  /**
   * The pass is judged by where each plan ended, not by every attempt on the way: a plan that failed in one round
   * (a lock lost to a concurrent writer, a conflict it yielded on) and succeeded when a later round ran it again left
   * the table serviced. Its failure stays in the printed runs and the log; a plan whose last run failed is reported
   * once, however many rounds failed it.
   */
  private static Collection<RunRecord> lastRunOfEachPlan(List<RunRecord> finishedRuns) {
    Map<String, RunRecord> last = new LinkedHashMap<>();
    synchronized (finishedRuns) {
      for (RunRecord run : finishedRuns) {
        last.put(run.item().key(), run);
      }
    }
    return last.values();
  }

  private static String timedOut(Duration timeout) {
    return "timed out after " + timeout.toSeconds() + "s waiting for plans to finish";
  }
}
