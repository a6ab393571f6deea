package io.huditsd.scheduler;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;

/**
 * One table's polls: when the next one is due, and that two never run at once. A poll asked for while one runs
 * (its timer fired, or {@link #pollNow} was called) runs once right after it, however many were asked for, so a slow
 * table holds one thread and never builds a queue of polls. A timer that fired late, or during a long poll, is not
 * made up for: the next one is the first due time of the table's phase after now, so a stall does not end in a burst.
 */
final class TablePollSchedule {
  private final String tableId;
  private final long intervalMillis;
  private final Runnable poll;
  private final Executor executor;

  // Guarded by this. Only flags and instants: the poll itself runs outside the lock.
  private Instant nextPoll;
  private boolean running;
  private boolean again;
  private boolean cancelled;

  /**
   * @param firstPoll when the first poll is due; later ones keep its phase
   * @param poll one poll of the table; must not throw
   * @param executor runs the polls {@link #pollSoon} asks for
   */
  TablePollSchedule(String tableId, Duration interval, Instant firstPoll, Runnable poll, Executor executor) {
    this.tableId = Objects.requireNonNull(tableId, "tableId is null");
    this.intervalMillis = Objects.requireNonNull(interval, "interval is null").toMillis();
    if (intervalMillis <= 0) {
      throw new IllegalArgumentException("Poll interval of table " + tableId + " must be positive: " + interval);
    }
    this.nextPoll = Objects.requireNonNull(firstPoll, "firstPoll is null");
    this.poll = Objects.requireNonNull(poll, "poll is null");
    this.executor = Objects.requireNonNull(executor, "executor is null");
  }

  String tableId() {
    return tableId;
  }

  /** When the timer fires next; empty once cancelled. */
  synchronized Optional<Instant> nextPoll() {
    return cancelled ? Optional.empty() : Optional.of(nextPoll);
  }

  /**
   * The timer fired at {@code now}: moves the due time to the first one of the table's phase after {@code now}. The
   * caller arms the timer for it, then polls ({@link #pollNow}), so a long poll does not push the phase back.
   *
   * @return when the timer is to fire next, empty once cancelled
   */
  synchronized Optional<Instant> advance(Instant now) {
    if (cancelled) {
      return Optional.empty();
    }
    nextPoll = dueAfter(nextPoll, now, intervalMillis);
    return Optional.of(nextPoll);
  }

  /** Polls now on the calling thread, or once more right after the poll that runs. */
  void pollNow() {
    synchronized (this) {
      if (cancelled) {
        return;
      }
      if (running) {
        again = true;
        return;
      }
      running = true;
    }
    runWhileAsked();
  }

  /** Polls soon on the executor (a REST trigger or a commit callback, which must not wait for the poll). */
  void pollSoon() {
    try {
      executor.execute(this::pollNow);
    } catch (RejectedExecutionException e) {
      // Shutting down: the poll is not needed any more.
    }
  }

  /** No poll starts after this returns; one that runs finishes. */
  synchronized void cancel() {
    cancelled = true;
    again = false;
  }

  private void runWhileAsked() {
    boolean more = true;
    while (more) {
      boolean finished = false;
      try {
        poll.run();
        finished = true;
      } finally {
        // A poll that threw ends the loop too, so the table is never left marked as running.
        synchronized (this) {
          more = finished && again && !cancelled;
          again = false;
          running = more;
        }
      }
    }
  }

  /** The first time {@code previous + k * interval} (k >= 1) after {@code now}. */
  static Instant dueAfter(Instant previous, Instant now, long intervalMillis) {
    Instant next = previous.plusMillis(intervalMillis);
    if (next.isAfter(now)) {
      return next;
    }
    long behind = Duration.between(next, now).toMillis();
    return next.plusMillis((behind / intervalMillis + 1) * intervalMillis);
  }
}
