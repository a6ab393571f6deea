package io.huditsd.executors;

import io.huditsd.config.EngineKind;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * A bounded pool of worker threads over a priority queue of work items.
 *
 * <p>Order: the item with the largest backlog first, then the one queued longest. An item is only handed out when
 * no other item of the same table and service is running and none running touches one of its file groups. A failed
 * item waits {@code retryBackoff * 2^(attempt-1)} and is retried until {@code maxAttempts}; a failing item never
 * kills its worker thread.
 *
 * <p>Admission: an item that executes in the daemon (engine {@code java}) takes one of {@code workers} in-process
 * slots, and starts only while the heap estimates of the running in-process items
 * ({@link Placement#reservedHeapBytes()}) plus its own stay within {@code memoryBudgetBytes}. An in-process item
 * whose estimate alone is more than the budget could never start: it finishes {@code FAILED} when it is submitted,
 * without running. An item waiting for budget holds back the items ordered after it (they start only if they fit
 * beside it), so a large plan is not starved by a stream of small ones. An item placed on Spark takes one of
 * {@code sparkSlots} threads of its own, since it only waits on its application: it takes neither an in-process
 * slot nor budget. With no Spark slots (tests, a daemon without a {@code spark} section) a Spark item takes an
 * in-process slot, and the runner says that no Spark engine is configured.
 *
 * <p>Listeners are told of every change under the pool's lock, so they see each run's changes in order (never a
 * {@code QUEUED} after the {@code RUNNING} it led to); that is why they must not block.
 */
public final class WorkerPool implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(WorkerPool.class);
  private static final Comparator<Entry> ORDER = Comparator
      .comparingLong((Entry entry) -> -entry.item.backlogBytes())
      .thenComparing(entry -> entry.item.enqueuedAt())
      .thenComparingLong(entry -> entry.record.runId());

  private final Function<WorkItem, ActionResult> runner;
  private final RunListener listener;
  private final Predicate<String> pausedTables;
  private final int workers;
  private final int sparkSlots;
  private final long memoryBudgetBytes;
  private final int maxAttempts;
  private final Duration retryBackoff;
  private final List<Thread> threads = new ArrayList<>();
  private final AtomicLong runIds = new AtomicLong();
  private final AtomicLong rejected = new AtomicLong();

  private final ReentrantLock lock = new ReentrantLock();
  private final Condition changed = lock.newCondition();
  // INVARIANT (guarded by lock): every key in byKey is either in queue or in running, never both.
  private final List<Entry> queue = new ArrayList<>();
  private final Map<String, Entry> byKey = new HashMap<>();
  private final Map<String, Entry> running = new HashMap<>();
  private final Set<String> runningExclusivityKeys = new HashSet<>();
  private final Map<String, Set<String>> runningFileGroupsByTable = new HashMap<>();
  // INVARIANT (guarded by lock): the sums over the entries in running of reservedHeapBytes and of each slot kind.
  private long reservedHeapBytes;
  private int runningInProcess;
  private int runningOnSpark;
  private boolean closed;

  private static final class Entry {
    private final WorkItem item;
    private RunRecord record;
    private Instant notBefore = Instant.MIN;
    /** Still running when the stop's grace period ended; its record is final already (guarded by lock). */
    private boolean abandoned;

    private Entry(WorkItem item, RunRecord record) {
      this.item = item;
      this.record = record;
    }
  }

  public WorkerPool(int workers, int maxAttempts, Duration retryBackoff, Function<WorkItem, ActionResult> runner,
                    RunListener listener) {
    this(workers, maxAttempts, retryBackoff, runner, listener, tableId -> false);
  }

  /**
   * A pool without a memory budget and without Spark slots (tests, and callers that predate them).
   *
   * @param pausedTables tells whether a table is held back (paused, or owned by another replica); its queued items
   *     stay queued until {@link #wake()} after it is resumed
   */
  public WorkerPool(int workers, int maxAttempts, Duration retryBackoff, Function<WorkItem, ActionResult> runner,
                    RunListener listener, Predicate<String> pausedTables) {
    this(workers, 0, Long.MAX_VALUE, maxAttempts, retryBackoff, runner, listener, pausedTables);
  }

  /**
   * @param workers in-process slots ({@code workers.count})
   * @param sparkSlots Spark runs at once ({@code spark.maxApplications}); 0 without a {@code spark} section
   * @param memoryBudgetBytes heap the running in-process items may hold together by their estimates
   *     ({@code workers.memoryBudget}); {@link Long#MAX_VALUE} for no limit
   * @param pausedTables tells whether a table is held back (paused, or owned by another replica); its queued items
   *     stay queued until {@link #wake()} after it is resumed
   */
  public WorkerPool(int workers, int sparkSlots, long memoryBudgetBytes, int maxAttempts, Duration retryBackoff,
                    Function<WorkItem, ActionResult> runner, RunListener listener, Predicate<String> pausedTables) {
    if (workers < 1) {
      throw new IllegalArgumentException("workers must be at least 1, got " + workers);
    }
    if (sparkSlots < 0) {
      throw new IllegalArgumentException("sparkSlots must not be negative, got " + sparkSlots);
    }
    if (memoryBudgetBytes < 1) {
      throw new IllegalArgumentException("memoryBudgetBytes must be positive, got " + memoryBudgetBytes);
    }
    this.workers = workers;
    this.sparkSlots = sparkSlots;
    this.memoryBudgetBytes = memoryBudgetBytes;
    if (maxAttempts < 1) {
      throw new IllegalArgumentException("maxAttempts must be at least 1, got " + maxAttempts);
    }
    this.maxAttempts = maxAttempts;
    this.retryBackoff = Objects.requireNonNull(retryBackoff, "retryBackoff is null");
    this.runner = Objects.requireNonNull(runner, "runner is null");
    this.listener = Objects.requireNonNull(listener, "listener is null");
    this.pausedTables = Objects.requireNonNull(pausedTables, "pausedTables is null");
    for (int i = 0; i < workers; i++) {
      Thread thread = new Thread(this::work, "tsd-worker-" + i);
      thread.setDaemon(true);
      threads.add(thread);
    }
    if (memoryBudgetBytes != Long.MAX_VALUE || sparkSlots > 0) {
      LOG.info("Worker pool: {} in-process workers, memory budget {} ({} bytes), {} Spark slots", workers,
          ByteSize.format(memoryBudgetBytes), memoryBudgetBytes, sparkSlots);
    }
    for (int i = 0; i < sparkSlots; i++) {
      Thread thread = new Thread(this::work, "tsd-spark-" + i);
      thread.setDaemon(true);
      threads.add(thread);
    }
    threads.forEach(Thread::start);
  }

  /**
   * Queues {@code item} unless the same work (table, service, instant) is already queued or running.
   *
   * @return the run's record, or empty when the work was already there or the pool is closed
   */
  public Optional<RunRecord> submit(WorkItem item) {
    RunRecord refused;
    lock.lock();
    try {
      if (closed || byKey.containsKey(item.key())) {
        rejected.incrementAndGet();
        return Optional.empty();
      }
      Entry entry = new Entry(item, RunRecord.queued(runIds.incrementAndGet(), item));
      listener.onChange(entry.record);
      if (item.placement().reservedHeapBytes() <= memoryBudgetBytes) {
        queue.add(entry);
        byKey.put(item.key(), entry);
        changed.signalAll();
        return Optional.of(entry.record);
      }
      // It could never start: failing it now tells the operator at once, rather than a queue that never moves.
      entry.record = entry.record.finished(RunStatus.FAILED, Optional.empty(), Optional.of(overBudget(item)));
      listener.onChange(entry.record);
      changed.signalAll();
      refused = entry.record;
    } finally {
      lock.unlock();
    }
    LOG.error("Finished {} result=failed attempts=0: {}", item.describe(), refused.error().orElseThrow());
    return Optional.of(refused);
  }

  private String overBudget(WorkItem item) {
    HeapEstimate estimate = item.placement().estimate();
    return "Not starting " + item.service().configName() + " plan " + item.instant().orElse("-") + " of table "
        + item.table().id() + " in the daemon: its heap estimate " + ByteSize.format(estimate.bytes()) + " ("
        + estimate.basis() + ") is more than workers.memoryBudget " + ByteSize.format(memoryBudgetBytes)
        + "; a spark section in tsd.yml would run it on Spark (or raise -Xmx and workers.memoryBudget)";
  }

  /** What {@link #cancel(long)} found: decided under the pool's lock, so a run cannot start in between. */
  public sealed interface Cancellation {
    /** The run was queued and is removed; {@code run} is its final record. */
    record Cancelled(RunRecord run) implements Cancellation {
    }

    /** The run is executing and stays so: a running plan is never interrupted. */
    record Running(RunRecord run) implements Cancellation {
    }

    /** No queued or running run has this id: never queued, or finished or cancelled already. */
    record NotQueued(long runId) implements Cancellation {
    }
  }

  /** Removes run {@code runId} if it is queued (or waiting to retry); a running one is left to finish. */
  public Cancellation cancel(long runId) {
    lock.lock();
    try {
      for (Iterator<Entry> iterator = queue.iterator(); iterator.hasNext(); ) {
        Entry entry = iterator.next();
        if (entry.record.runId() == runId) {
          iterator.remove();
          byKey.remove(entry.item.key());
          entry.record = entry.record.finished(RunStatus.CANCELLED, Optional.empty(), entry.record.error());
          listener.onChange(entry.record);
          changed.signalAll();
          return new Cancellation.Cancelled(entry.record);
        }
      }
      for (Entry entry : running.values()) {
        if (entry.record.runId() == runId) {
          return new Cancellation.Running(entry.record);
        }
      }
      return new Cancellation.NotQueued(runId);
    } finally {
      lock.unlock();
    }
  }

  /** Removes every queued (not running) run of {@code tableId}, e.g. once another replica owns the table. */
  public List<RunRecord> cancelQueued(String tableId) {
    List<RunRecord> cancelled = new ArrayList<>();
    lock.lock();
    try {
      for (Iterator<Entry> iterator = queue.iterator(); iterator.hasNext(); ) {
        Entry entry = iterator.next();
        if (entry.item.table().id().equals(tableId)) {
          iterator.remove();
          byKey.remove(entry.item.key());
          entry.record = entry.record.finished(RunStatus.CANCELLED, Optional.empty(), entry.record.error());
          cancelled.add(entry.record);
          listener.onChange(entry.record);
        }
      }
      changed.signalAll();
    } finally {
      lock.unlock();
    }
    return cancelled;
  }

  /** Whether a run of {@code tableId} is executing now. */
  public boolean isRunning(String tableId) {
    lock.lock();
    try {
      return running.values().stream().anyMatch(entry -> entry.item.table().id().equals(tableId));
    } finally {
      lock.unlock();
    }
  }

  /** Worker threads alive; fewer than configured means a worker died, which the pool is built never to allow. */
  public int aliveWorkers() {
    return (int) threads.stream().filter(Thread::isAlive).count();
  }

  public int workerCount() {
    return threads.size();
  }

  /** The in-process memory budget in bytes; {@link Long#MAX_VALUE} when the pool has no limit. */
  public long memoryBudgetBytes() {
    return memoryBudgetBytes;
  }

  /** The heap estimates of the in-process items running now, summed: what they reserve of the budget. */
  public long reservedHeapBytes() {
    lock.lock();
    try {
      return reservedHeapBytes;
    } finally {
      lock.unlock();
    }
  }

  /** Makes workers look at the queue again, e.g. after a table was resumed. */
  public void wake() {
    lock.lock();
    try {
      changed.signalAll();
    } finally {
      lock.unlock();
    }
  }

  /** The queued or running run of {@code key}, if any. */
  public Optional<RunRecord> find(String key) {
    lock.lock();
    try {
      Entry entry = byKey.get(key);
      return entry == null ? Optional.empty() : Optional.of(entry.record);
    } finally {
      lock.unlock();
    }
  }

  public boolean isQueuedOrRunning(String key) {
    lock.lock();
    try {
      return byKey.containsKey(key);
    } finally {
      lock.unlock();
    }
  }

  /** Queued and running runs, running first. */
  public List<RunRecord> snapshot() {
    lock.lock();
    try {
      List<RunRecord> records = new ArrayList<>();
      running.values().forEach(entry -> records.add(entry.record));
      queue.stream().sorted(ORDER).forEach(entry -> records.add(entry.record));
      return records;
    } finally {
      lock.unlock();
    }
  }

  /** Submissions refused because the same work was already queued or running, or the pool was closed. */
  public long rejectedCount() {
    return rejected.get();
  }

  public int queuedCount() {
    lock.lock();
    try {
      return queue.size();
    } finally {
      lock.unlock();
    }
  }

  public int runningCount() {
    lock.lock();
    try {
      return running.size();
    } finally {
      lock.unlock();
    }
  }

  /** Waits until nothing is queued or running. */
  public boolean awaitIdle(Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    lock.lock();
    try {
      while (!queue.isEmpty() || !running.isEmpty()) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          return false;
        }
        changed.awaitNanos(left);
      }
      return true;
    } finally {
      lock.unlock();
    }
  }

  private void work() {
    while (true) {
      Entry entry;
      try {
        entry = take();
      } catch (InterruptedException e) {
        return;
      }
      if (entry == null) {
        return;
      }
      execute(entry);
    }
  }

  /** The next eligible entry, marked running; null once the pool is closed. */
  private Entry take() throws InterruptedException {
    lock.lock();
    try {
      while (true) {
        if (closed) {
          return null;
        }
        Instant now = Instant.now();
        List<Entry> ready = new ArrayList<>();
        Instant earliestWait = null;
        for (Entry candidate : queue) {
          if (candidate.notBefore.isAfter(now)) {
            earliestWait = earliestWait == null || candidate.notBefore.isBefore(earliestWait)
                ? candidate.notBefore : earliestWait;
            continue;
          }
          if (isRunnable(candidate.item)) {
            ready.add(candidate);
          }
        }
        Entry best = admit(ready);
        if (best != null) {
          queue.remove(best);
          int attempt = best.record.status() == RunStatus.RETRY_WAIT ? best.record.attempt() + 1
              : best.record.attempt();
          best.record = best.record.running(attempt);
          // Before the listener hears of it: a listener that looks sees the run running, not gone (INVARIANT above).
          running.put(best.item.key(), best);
          listener.onChange(best.record);
          runningExclusivityKeys.add(best.item.exclusivityKey());
          runningFileGroupsByTable.computeIfAbsent(best.item.table().id(), id -> new HashSet<>())
              .addAll(best.item.fileGroupIds());
          if (onSpark(best.item)) {
            runningOnSpark++;
          } else {
            runningInProcess++;
            reservedHeapBytes += best.item.placement().reservedHeapBytes();
          }
          return best;
        }
        if (earliestWait != null) {
          changed.await(Math.max(1, Duration.between(now, earliestWait).toMillis()), TimeUnit.MILLISECONDS);
        } else {
          changed.await();
        }
      }
    } finally {
      lock.unlock();
    }
  }

  /**
   * The first of {@code ready} in order that a free slot and the budget admit. An in-process item that waits for
   * budget keeps its share from the items after it, so that they do not hold it back for ever.
   */
  private Entry admit(List<Entry> ready) {
    ready.sort(ORDER);
    long headroom = memoryBudgetBytes - reservedHeapBytes;
    for (Entry candidate : ready) {
      if (onSpark(candidate.item)) {
        if (runningOnSpark < sparkSlots) {
          return candidate;
        }
        continue;
      }
      if (runningInProcess >= workers) {
        continue;
      }
      long needed = candidate.item.placement().reservedHeapBytes();
      if (needed <= headroom) {
        return candidate;
      }
      headroom = Math.max(0, headroom - needed);
    }
    return null;
  }

  /** Whether {@code item} runs on one of the Spark threads; with none, a Spark item takes an in-process slot. */
  private boolean onSpark(WorkItem item) {
    return sparkSlots > 0 && item.placement().engine() == EngineKind.SPARK;
  }

  private boolean isRunnable(WorkItem item) {
    if (runningExclusivityKeys.contains(item.exclusivityKey()) || pausedTables.test(item.table().id())) {
      return false;
    }
    Set<String> busy = runningFileGroupsByTable.get(item.table().id());
    if (busy == null || item.fileGroupIds().isEmpty()) {
      return true;
    }
    for (String fileGroup : item.fileGroupIds()) {
      if (busy.contains(fileGroup)) {
        return false;
      }
    }
    return true;
  }

  private void execute(Entry entry) {
    int attempt = entry.record.attempt();
    HeapEstimate estimate = entry.item.placement().estimate();
    LOG.info("Started {} attempt={} backlogBytes={} fileGroups={} heapEstimate={} ({})", entry.item.describe(),
        attempt, entry.item.backlogBytes(), entry.item.fileGroupIds().size(), ByteSize.format(estimate.bytes()),
        estimate.basis());
    RunRecord outcome;
    boolean requeue = false;
    try {
      ActionResult result = runner.apply(entry.item);
      outcome = entry.record.finished(RunStatus.SUCCEEDED, Optional.of(result), Optional.empty());
      LOG.info("Finished {} result=succeeded fileGroups={} bytesIn={} bytesOut={} durationMs={}",
          entry.item.describe(), result.fileGroups(), result.bytesIn(), result.bytesOut(),
          result.duration().toMillis());
    } catch (RunCancelledException e) {
      outcome = entry.record.finished(RunStatus.CANCELLED, Optional.empty(), Optional.of(e.getMessage()));
      LOG.info("Finished {} result=cancelled reason={}", entry.item.describe(), e.getMessage());
    } catch (PlanSkippedException e) {
      outcome = entry.record.finished(RunStatus.SKIPPED, Optional.empty(), Optional.of(e.getMessage()));
      LOG.info("Finished {} result=skipped reason={}", entry.item.describe(), e.getMessage());
    } catch (Exception | Error e) {
      // Exception, not RuntimeException: a checked exception thrown sneakily (as some libraries do) would
      // otherwise end the worker thread and leave the entry marked running forever.
      String message = describe(e);
      if (isAbandoned(entry)) {
        // The stop went on without it (its locks and file systems may be closed by now): not a failure of the plan.
        outcome = entry.record;
        LOG.info("Abandoned {} ended after the stop: {}", entry.item.describe(), message);
      } else if (attempt < maxAttempts && !(e instanceof VirtualMachineError)) {
        outcome = entry.record.retryWait(message);
        requeue = true;
        Duration wait = retryBackoff.multipliedBy(1L << Math.min(20, attempt - 1));
        entry.notBefore = Instant.now().plus(wait);
        LOG.warn("Failed {} attempt={} of {}, retrying in {}s: {}", entry.item.describe(), attempt, maxAttempts,
            wait.toSeconds(), message, e);
      } else {
        outcome = entry.record.finished(RunStatus.FAILED, Optional.empty(), Optional.of(message));
        LOG.error("Finished {} result=failed attempts={}: {}", entry.item.describe(), attempt, message, e);
      }
    }
    lock.lock();
    try {
      entry.record = outcome;
      running.remove(entry.item.key());
      if (onSpark(entry.item)) {
        runningOnSpark--;
      } else {
        runningInProcess--;
        reservedHeapBytes -= entry.item.placement().reservedHeapBytes();
      }
      runningExclusivityKeys.remove(entry.item.exclusivityKey());
      Set<String> busy = runningFileGroupsByTable.get(entry.item.table().id());
      if (busy != null) {
        busy.removeAll(entry.item.fileGroupIds());
        if (busy.isEmpty()) {
          runningFileGroupsByTable.remove(entry.item.table().id());
        }
      }
      if (requeue && !closed) {
        queue.add(entry);
      } else {
        byKey.remove(entry.item.key());
      }
      if (!entry.abandoned) {
        // An abandoned run's final record was told when it was abandoned.
        listener.onChange(outcome);
      }
      changed.signalAll();
    } finally {
      lock.unlock();
    }
  }

  private static String describe(Throwable error) {
    StringBuilder message = new StringBuilder(error.getClass().getSimpleName());
    if (error.getMessage() != null) {
      message.append(": ").append(error.getMessage());
    }
    Throwable cause = error.getCause();
    int depth = 0;
    while (cause != null && cause != error && depth++ < 3) {
      message.append(" <- ").append(cause.getClass().getSimpleName());
      if (cause.getMessage() != null) {
        message.append(": ").append(cause.getMessage());
      }
      error = cause;
      cause = cause.getCause();
    }
    return message.toString();
  }

  private boolean isAbandoned(Entry entry) {
    lock.lock();
    try {
      return entry.abandoned;
    } finally {
      lock.unlock();
    }
  }

  /**
   * Takes no more work, at once: submissions are refused and no queued item starts; running items go on. The first
   * step of a stop, so that nothing starts while the rest of the daemon stops.
   */
  public void stopTakingWork() {
    lock.lock();
    try {
      closed = true;
      changed.signalAll();
    } finally {
      lock.unlock();
    }
  }

  /** Whether the pool takes no more work ({@link #stopTakingWork()}). */
  public boolean isStopping() {
    lock.lock();
    try {
      return closed;
    } finally {
      lock.unlock();
    }
  }

  /**
   * Takes no more work, lets the running items finish for up to {@code gracePeriod}, then abandons the rest: the
   * items still queued and those still running finish {@code CANCELLED} at once. Their plans stay pending on the
   * timeline, for the next process to execute (a plan still running here is rolled back there once its heartbeat
   * has expired). A thread still running an abandoned item is left to end on its own; whatever it ends with is
   * only logged, never retried.
   *
   * @return the runs abandoned
   */
  public List<RunRecord> shutdown(Duration gracePeriod) throws InterruptedException {
    long deadline = System.nanoTime() + gracePeriod.toNanos();
    List<RunRecord> abandoned = new ArrayList<>();
    lock.lock();
    try {
      closed = true;
      changed.signalAll();
      while (!running.isEmpty()) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          break;
        }
        changed.awaitNanos(left);
      }
      for (Entry entry : queue) {
        byKey.remove(entry.item.key());
        entry.record = entry.record.finished(RunStatus.CANCELLED, Optional.empty(),
            Optional.of("Not started: the daemon stopped; the plan stays pending for the next process"));
        abandoned.add(entry.record);
        listener.onChange(entry.record);
      }
      queue.clear();
      for (Entry entry : running.values()) {
        if (entry.abandoned) {
          // By an earlier shutdown (once's pass and its signal's stop both shut its pool down).
          continue;
        }
        entry.abandoned = true;
        entry.record = entry.record.finished(RunStatus.CANCELLED, Optional.empty(), Optional.of("Abandoned: still "
            + "running when the daemon's stop grace period (workers.shutdownGracePeriod, " + gracePeriod.toSeconds()
            + "s) ended; the plan stays pending for the next process"));
        abandoned.add(entry.record);
        listener.onChange(entry.record);
        LOG.warn("Abandoned {}: still running after the stop's grace period of {}s; its plan stays pending for the "
            + "next process", entry.item.describe(), gracePeriod.toSeconds());
      }
    } finally {
      lock.unlock();
    }
    return abandoned;
  }

  @Override
  public void close() throws InterruptedException {
    shutdown(Duration.ofSeconds(30));
  }
}
