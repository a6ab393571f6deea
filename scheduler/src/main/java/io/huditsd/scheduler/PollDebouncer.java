package io.huditsd.scheduler;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * Turns a burst of requests for one table into few actions: the first request acts at once and opens a window;
 * requests inside the window are coalesced, and when it closes one more action runs if any came (opening the next
 * window). A flood over {@code T} thus acts about {@code T / window + 1} times, and the last request of a burst is
 * never left without an action after it. Used for writers' commit callbacks: the action is a poll of the table,
 * or asking its owner for one.
 */
public final class PollDebouncer {
  private static final Logger LOG = LoggerFactory.getLogger(PollDebouncer.class);

  /** What became of a request. */
  public enum Decision {
    /** Acted on at once. */
    NOW,
    /** Inside an open window: the window's end acts for it. */
    COALESCED
  }

  /** Runs a task after a delay, off the caller's thread. */
  @FunctionalInterface
  public interface Timer {
    void schedule(Runnable task, Duration delay);

    static Timer of(ScheduledExecutorService executor) {
      Objects.requireNonNull(executor, "executor is null");
      return (task, delay) -> executor.schedule(task, delay.toNanos(), TimeUnit.NANOSECONDS);
    }
  }

  private final Duration window;
  private final Consumer<String> action;
  private final Timer timer;
  /** Tables with an open window, and whether a request came in it. */
  private final Map<String, Boolean> open = new HashMap<>();

  /**
   * @param window how long requests after an action are coalesced; zero acts on every request
   * @param action what a request (or a window of them) does for a table; must not block for long
   */
  public PollDebouncer(Duration window, Consumer<String> action, Timer timer) {
    this.window = Objects.requireNonNull(window, "window is null");
    this.action = Objects.requireNonNull(action, "action is null");
    this.timer = Objects.requireNonNull(timer, "timer is null");
    if (window.isNegative()) {
      throw new IllegalArgumentException("window must not be negative, got " + window);
    }
  }

  public Decision request(String tableId) {
    Objects.requireNonNull(tableId, "tableId is null");
    if (window.isZero()) {
      act(tableId);
      return Decision.NOW;
    }
    synchronized (open) {
      if (open.containsKey(tableId)) {
        open.put(tableId, true);
        return Decision.COALESCED;
      }
      open.put(tableId, false);
    }
    actAndWait(tableId);
    return Decision.NOW;
  }

  /** Tables with an open window right now. */
  public int openWindows() {
    synchronized (open) {
      return open.size();
    }
  }

  private void actAndWait(String tableId) {
    act(tableId);
    try {
      timer.schedule(() -> windowClosed(tableId), window);
    } catch (RuntimeException e) {
      // Timer shut down (the daemon stops): nothing more to act on; forget the window so requests act again.
      synchronized (open) {
        open.remove(tableId);
      }
    }
  }

  private void windowClosed(String tableId) {
    boolean more;
    synchronized (open) {
      more = Boolean.TRUE.equals(open.get(tableId));
      if (more) {
        open.put(tableId, false);
      } else {
        open.remove(tableId);
      }
    }
    if (more) {
      actAndWait(tableId);
    }
  }

  private void act(String tableId) {
    try {
      action.accept(tableId);
    } catch (RuntimeException e) {
      // A table removed meanwhile, or the scheduler stopping: the table's own schedule still polls it.
      LOG.warn("Requested poll of table {} not started: {}", tableId, e.getMessage());
    }
  }
}
