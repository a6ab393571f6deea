package io.huditsd.scheduler;

import io.huditsd.config.ServiceType;
import io.huditsd.config.ServicedTable;
import io.huditsd.executors.PlanLiveness.Heartbeat;
import io.huditsd.executors.RunRecord;
import io.huditsd.executors.RunStatus;
import io.huditsd.executors.WorkItem;
import io.huditsd.executors.WorkerPool;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;

/**
 * One pass over a set of tables, for cron and Kubernetes CronJobs: schedule what is due, execute every pending
 * plan, and repeat while a round produced new work (a finished compaction can make a clean or an archive due),
 * at most {@link #MAX_ROUNDS} rounds. The timeout is one deadline for the whole pass: a CronJob's run must end
 * within it, however many rounds the work takes.
 *
 * <p>A plan skipped because a heartbeat holds it (the run before this one was killed mid-plan, or another process
 * runs it) is watched, not retried at once: the pass waits for the holder's next renewal and then, if there was
 * none, for the heartbeat's expiry, within the deadline. Not renewed by then, the plan was abandoned, and the next round rolls it back and runs it (Hudi's
 * rule for an expired heartbeat). Renewed, a live process holds it: it is left to that process and reported as left,
 * never as serviced.
 */
public final class OncePass {
  private static final Logger LOG = LoggerFactory.getLogger(OncePass.class);
  static final int MAX_ROUNDS = 4;
  private static final long HEARTBEAT_MARGIN_MILLIS = 200;
  private static final long WATCH_STEP_MILLIS = 1_000;
  /** Rounds spent waiting for heartbeats that do not count as rounds of work. */
  private static final int MAX_WAITS = 8;

  private final TablePoller poller;
  private final WorkerPool pool;

  private final Clock clock;
  private final Function<WorkItem, Optional<Heartbeat>> heartbeats;

  /**
   * @param clock tells when the pass's deadline has passed
   * @param heartbeats the live heartbeat of a work item's plan, read from the table (empty: none, or expired)
   */
  public OncePass(TablePoller poller, WorkerPool pool, Clock clock,
                  Function<WorkItem, Optional<Heartbeat>> heartbeats) {
    this.poller = Objects.requireNonNull(poller, "poller is null");
    this.pool = Objects.requireNonNull(pool, "pool is null");
    this.clock = Objects.requireNonNull(clock, "clock is null");
    this.heartbeats = Objects.requireNonNull(heartbeats, "heartbeats is null");
  }

  /**
   * What a pass found: problems (tables or plans that failed), plans it left to the live processes holding them, and
   * what its planning decided for each table and service, and why.
   */
  public record Result(List<String> problems, List<LeftPlan> left, List<TableDecision> decisions) {
    public Result {
      problems = List.copyOf(problems);
      left = List.copyOf(left);
      decisions = List.copyOf(decisions);
    }
  }

  /** What the pass decided for one service of one table: the round that scheduled it, else the last round's word. */
  public record TableDecision(ServicedTable table, ServiceDecision decision) {
    public TableDecision {
      Objects.requireNonNull(table, "table is null");
      Objects.requireNonNull(decision, "decision is null");
    }
  }

  /** A plan the pass did not run because a live process holds it: its heartbeat was renewed while the pass watched. */
  public record LeftPlan(WorkItem item, Heartbeat heartbeat) {
    public LeftPlan {
      Objects.requireNonNull(item, "item is null");
      Objects.requireNonNull(heartbeat, "heartbeat is null");
    }

    public String reason() {
      return "held by a live process: its heartbeat was renewed at " + heartbeat.renewedAt() + " while this pass "
          + "waited for it to expire";
    }
  }

  /**
   * Runs the pass.
   *
   * @param timeout how long the whole pass may take, every round included
   */
  public Result run(List<ServicedTable> tables, Duration timeout, List<RunRecord> finishedRuns)
      throws InterruptedException {
    Instant deadline = clock.instant().plus(timeout);
    List<TableState> states = tables.stream().map(TableState::new).toList();
    List<String> problems = new ArrayList<>();
    // The heartbeat each held plan had when the pass last saw it, by work item key; live once seen renewed.
    Map<String, Watched> watched = new LinkedHashMap<>();
    Map<String, LeftPlan> live = new LinkedHashMap<>();
    // Rounds that only waited for heartbeats do not count against MAX_ROUNDS: each held plan is waited for at most
    // twice (its next renewal, then its expiry), and the deadline bounds them all.
    int waits = 0;
    Map<TableState, Map<ServiceType, ServiceDecision>> decided = new LinkedHashMap<>();
    for (int round = 1; round <= MAX_ROUNDS; round++) {
      int before = finishedRuns.size();
      if (!clock.instant().isBefore(deadline)) {
        problems.add(timedOut(timeout));
        return result(problems, live, decided);
      }
      for (TableState state : states) {
        if (state.snapshot().consecutiveFailures() == 0) {
          poller.poll(state, true);
          keepDecisions(decided, state);
        }
      }
      if (!pool.awaitIdle(Duration.between(clock.instant(), deadline))) {
        problems.add(timedOut(timeout));
        return result(problems, live, decided);
      }
      List<RunRecord> ran;
      synchronized (finishedRuns) {
        ran = List.copyOf(finishedRuns.subList(before, finishedRuns.size()));
      }
      // Skipped runs are no progress: a pass that only found plans held by heartbeats has done nothing yet.
      boolean progress = ran.stream().anyMatch(run -> run.status() != RunStatus.SKIPPED);
      Optional<Instant> wakeAt = Optional.empty();
      for (RunRecord run : ran) {
        String key = run.item().key();
        if (run.status() != RunStatus.SKIPPED || run.item().instant().isEmpty() || live.containsKey(key)) {
          continue;
        }
        Optional<Heartbeat> heartbeat = heartbeats.apply(run.item());
        Watched seen = watched.get(key);
        if (heartbeat.isEmpty()) {
          // Expired, or gone with the plan, since the run was skipped: the next round runs it or finds it done.
          progress |= seen != null;
        } else if (seen != null && heartbeat.get().renewedAt().isAfter(seen.heartbeat().renewedAt())) {
          LeftPlan left = new LeftPlan(run.item(), heartbeat.get());
          live.put(key, left);
          LOG.info("Leaving {}: {}", run.item().describe(), left.reason());
        } else {
          // First seen: look again when a live holder renews it next (a live plan is told apart within one
          // interval). Seen before and not renewed: its expiry, after which Hudi counts it abandoned.
          Instant at = seen == null && heartbeat.get().renewalDue().isAfter(clock.instant())
              ? heartbeat.get().renewalDue() : heartbeat.get().expiresAt();
          watched.put(key, new Watched(run.item(), heartbeat.get()));
          wakeAt = Optional.of(wakeAt.filter(earlier -> earlier.isBefore(at)).orElse(at));
        }
      }
      if (wakeAt.isPresent()) {
        if (!wakeAt.get().isBefore(deadline)) {
          problems.add("timed out after " + timeout.toSeconds() + "s: plans held by heartbeats that expire at "
              + wakeAt.get() + " at the earliest were left undone");
          return result(problems, live, decided);
        }
        waitForHeartbeats(watched.values(), wakeAt.get());
        if (waits++ < MAX_WAITS) {
          round--;
        }
      } else if (!progress) {
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
    return result(problems, live, decided);
  }

  private static Result result(List<String> problems, Map<String, LeftPlan> live,
                               Map<TableState, Map<ServiceType, ServiceDecision>> decided) {
    List<TableDecision> decisions = new ArrayList<>();
    decided.forEach((state, byService) -> byService.values()
        .forEach(decision -> decisions.add(new TableDecision(state.table(), decision))));
    return new Result(problems, List.copyOf(live.values()), decisions);
  }

  /**
   * Keeps what the round just planned decided: a later round's decision replaces an earlier one, except a plan
   * scheduled, which stays the pass's decision for that service (the rounds after it find the plan done).
   */
  private static void keepDecisions(Map<TableState, Map<ServiceType, ServiceDecision>> decided, TableState state) {
    Map<ServiceType, ServiceDecision> kept = decided.computeIfAbsent(state, any -> new EnumMap<>(ServiceType.class));
    for (ServiceDecision decision : state.snapshot().decisions().values()) {
      ServiceDecision earlier = kept.get(decision.service());
      if (earlier == null || earlier.reason() != ServiceDecision.Reason.SCHEDULED) {
        kept.put(decision.service(), decision);
      }
    }
  }

  /** A plan held by a heartbeat, as the pass last saw it. */
  private record Watched(WorkItem item, Heartbeat heartbeat) {
  }

  /**
   * Waits until {@code wakeAt}, or less: looking every {@value #WATCH_STEP_MILLIS} ms, it stops as soon as a watched
   * heartbeat was renewed (a live process) or is gone (the plan finished, or its holder stopped).
   */
  private void waitForHeartbeats(Collection<Watched> watched, Instant wakeAt) throws InterruptedException {
    LOG.info("Waiting until {} at most for the heartbeats of {}: a plan whose heartbeat is renewed is left to the "
        + "live process holding it; one not renewed until it expires was abandoned (its run died) and is rolled "
        + "back and run", wakeAt, watched.stream().map(plan -> plan.item().describe()).toList());
    // A little past the time: the holder's renewal and this check read file times written by two clocks.
    Instant until = wakeAt.plusMillis(HEARTBEAT_MARGIN_MILLIS);
    while (clock.instant().isBefore(until)) {
      Thread.sleep(Math.min(WATCH_STEP_MILLIS, Math.max(1, Duration.between(clock.instant(), until).toMillis())));
      for (Watched plan : watched) {
        Optional<Heartbeat> now = heartbeats.apply(plan.item());
        if (now.isEmpty() || now.get().renewedAt().isAfter(plan.heartbeat().renewedAt())) {
          return;
        }
      }
    }
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
