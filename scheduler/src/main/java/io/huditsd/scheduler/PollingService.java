package io.huditsd.scheduler;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Polls every registered table on its interval, on a bounded thread pool. Polls of one table never overlap
 * ({@link TablePollSchedule}); a slow or failing table holds one poll thread and never delays the others beyond
 * that. First polls are spread evenly over one interval ({@link FirstPolls}) so that a thousand tables do not poll at
 * once and a store sees a steady rate of requests.
 *
 * <p>One JDK scheduled executor with a timer per table, not a Quartz job per table: at 10,000 idle tables Quartz's
 * own work per fire (job run shells, listeners, its job store's bookkeeping) was about a tenth of the polls' CPU.
 */
public final class PollingService implements TableRegistry.Listener, AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(PollingService.class);
  /**
   * How long a stop waits for the polls in flight. A poll writes no plan once the pool stops (DuePlanner), so what
   * is left of one is reading; well inside a stop's grace period, which Kubernetes ends with SIGKILL after 30 s.
   */
  private static final Duration SHUTDOWN_WAIT = Duration.ofSeconds(10);

  private final TablePoller poller;
  private final TableRegistry registry;
  private final FirstPolls firstPolls;
  private final Clock clock;
  private final ScheduledThreadPoolExecutor executor;
  private final ConcurrentMap<String, TablePollSchedule> schedules = new ConcurrentHashMap<>();
  private volatile boolean started;

  public PollingService(TablePoller poller, TableRegistry registry, int threads) {
    this(poller, registry, threads, new FirstPolls(Clock.systemUTC()));
  }

  /** @param firstPolls when each table added polls first */
  public PollingService(TablePoller poller, TableRegistry registry, int threads, FirstPolls firstPolls) {
    this.poller = Objects.requireNonNull(poller, "poller is null");
    this.registry = Objects.requireNonNull(registry, "registry is null");
    this.firstPolls = Objects.requireNonNull(firstPolls, "firstPolls is null");
    if (threads < 1) {
      throw new IllegalArgumentException("Poll threads must be at least 1: " + threads);
    }
    this.clock = Clock.systemUTC();
    this.executor = new ScheduledThreadPoolExecutor(threads, pollThreads());
    // A removed table's timer leaves the queue at once, and nothing is left to run after close.
    executor.setRemoveOnCancelPolicy(true);
    executor.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
    executor.setContinueExistingPeriodicTasksAfterShutdownPolicy(false);
  }

  /** Arms the timers of the tables added so far; tables added later are armed as they come. */
  public void start() {
    started = true;
    schedules.values().forEach(this::arm);
  }

  /** Whether polling is started and not shut down. */
  public boolean isRunning() {
    return started && !executor.isShutdown();
  }

  @Override
  public void added(TableState state) {
    String tableId = state.table().id();
    Duration interval = state.table().pollInterval();
    // Spread over one interval: with a shorter window every table would poll in the same burst, each interval.
    TablePollSchedule schedule = new TablePollSchedule(tableId, interval, firstPolls.next(interval),
        () -> poll(tableId), executor);
    TablePollSchedule previous = schedules.put(tableId, schedule);
    if (previous != null) {
      previous.cancel();
    }
    if (started) {
      arm(schedule);
    }
  }

  /** When the table's next scheduled poll is due; empty when it is not scheduled. */
  Optional<Instant> nextPoll(String tableId) {
    return Optional.ofNullable(schedules.get(tableId)).flatMap(TablePollSchedule::nextPoll);
  }

  @Override
  public void removed(TableState state) {
    TablePollSchedule schedule = schedules.remove(state.table().id());
    if (schedule != null) {
      schedule.cancel();
    }
  }

  /** Polls a table soon, outside its schedule (after a REST trigger, for instance); never two polls at once. */
  public void pollNow(String tableId) {
    TablePollSchedule schedule = schedules.get(tableId);
    if (schedule == null) {
      throw new IllegalStateException("Cannot trigger a poll of table " + tableId + ": it is not scheduled");
    }
    schedule.pollSoon();
  }

  /** Stops every timer and waits for the polls that run. */
  @Override
  public void close() {
    schedules.values().forEach(TablePollSchedule::cancel);
    executor.shutdown();
    try {
      if (!executor.awaitTermination(SHUTDOWN_WAIT.toMillis(), TimeUnit.MILLISECONDS)) {
        LOG.warn("Polls still running {} after the stop began; interrupting them", SHUTDOWN_WAIT);
        executor.shutdownNow();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private void arm(TablePollSchedule schedule) {
    schedule.nextPoll().ifPresent(due -> {
      long delay = Math.max(0, Duration.between(clock.instant(), due).toMillis());
      try {
        executor.schedule(() -> fire(schedule), delay, TimeUnit.MILLISECONDS);
      } catch (RejectedExecutionException e) {
        // Shut down: no more polls.
      }
    });
  }

  private void fire(TablePollSchedule schedule) {
    // The next timer is armed before this poll runs, so a long poll neither shifts the table's phase nor runs twice.
    if (schedule.advance(clock.instant()).isPresent()) {
      arm(schedule);
      schedule.pollNow();
    }
  }

  private void poll(String tableId) {
    try {
      registry.get(tableId).ifPresent(state -> poller.poll(state, false));
    } catch (RuntimeException e) {
      LOG.error("Poll of table {} failed", tableId, e);
    }
  }

  private static ThreadFactory pollThreads() {
    AtomicInteger count = new AtomicInteger();
    return runnable -> {
      Thread thread = new Thread(runnable, "tsd-poll-" + count.incrementAndGet());
      thread.setDaemon(true);
      return thread;
    };
  }
}
