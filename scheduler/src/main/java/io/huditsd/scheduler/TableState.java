package io.huditsd.scheduler;

import io.huditsd.config.ServicedTable;

import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * What the daemon knows about one table, in three parts with one writer each:
 * <ul>
 *   <li>the last {@link PollResult}, written only by the poll of this table ({@link TablePoller}; polls of one table
 *       never overlap) and published whole;</li>
 *   <li>whether the table is paused, set from REST;</li>
 *   <li>a count of replan requests (a resume, an ownership gain), made from REST and ZooKeeper threads. A poll reads
 *       the count when it starts and records it in its result, so a request made during a poll is served by the
 *       next one rather than overwritten by the poll in flight.</li>
 * </ul>
 * Readers get all of it at once through {@link #snapshot()}.
 */
public final class TableState {
  private final ServicedTable table;
  private final AtomicReference<PollResult> polled = new AtomicReference<>(PollResult.NONE);
  private final AtomicBoolean paused = new AtomicBoolean();
  private final AtomicLong replanRequests = new AtomicLong();

  public TableState(ServicedTable table) {
    this.table = Objects.requireNonNull(table, "table is null");
  }

  public ServicedTable table() {
    return table;
  }

  public boolean isPaused() {
    return paused.get();
  }

  /** While paused the table is polled and reported, but nothing is scheduled or executed. */
  public void setPaused(boolean paused) {
    boolean wasPaused = this.paused.getAndSet(paused);
    if (wasPaused && !paused) {
      // Plans that arrived while paused were never enqueued; the next poll must plan even if nothing changes.
      replanOnNextPoll();
    }
  }

  /**
   * Makes the next poll plan and enqueue even if the timeline did not change, e.g. once this replica owns the table
   * again: plans that arrived meanwhile were never enqueued here. A poll in flight does not count: it may have
   * decided already.
   */
  public void replanOnNextPoll() {
    replanRequests.incrementAndGet();
  }

  /** The replan requests made so far; a poll that served fewer plans again. */
  long replanRequests() {
    return replanRequests.get();
  }

  /** The last poll's result. */
  PollResult polled() {
    return polled.get();
  }

  // INVARIANT: only the poll of this table calls this, and polls of one table never overlap (TablePollSchedule,
  // OncePass's one thread), so a result is never replaced by an older one.
  void publish(PollResult result) {
    polled.set(Objects.requireNonNull(result, "result is null"));
  }

  public TableSnapshot snapshot() {
    PollResult result = polled.get();
    return new TableSnapshot(table, result.table().map(PollResult.LoadedTable::metaClient), result.lastPoll(),
        result.lastChange(), result.failures().count(), result.failures().lastError(), paused.get(),
        result.backlog(), result.failedWrites(), result.decisions());
  }
}
