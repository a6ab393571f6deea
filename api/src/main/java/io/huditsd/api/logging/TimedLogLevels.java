package io.huditsd.api.logging;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import io.dropwizard.lifecycle.Managed;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

import static java.util.Objects.requireNonNull;

/**
 * Changes a logger's level, for good or for a while. A change for a while puts back the level the logger had before
 * it: its configured level, none (so that it inherits again) if it had none, and the root logger's previous level.
 * A later change of the same logger replaces its pending reset and keeps the level from before the first change, so
 * raising a logger twice still ends where it started. Resets run on one thread of their own; one that fails is
 * logged and the next still runs (Dropwizard's task reset with a {@link java.util.Timer}, whose thread died on the
 * first failure, the root logger's, and every later timed change failed with it).
 */
public final class TimedLogLevels implements Managed {
  private static final org.slf4j.Logger LOG = LoggerFactory.getLogger(TimedLogLevels.class);

  private final LoggerContext loggers;
  private final ScheduledExecutorService resets;
  // Guarded by this: the level each logger had before its first pending change, and that change's reset.
  private final Map<String, PendingReset> pending = new HashMap<>();

  private record PendingReset(Optional<Level> previous, Object change, ScheduledFuture<?> reset) {
  }

  public TimedLogLevels(LoggerContext loggers) {
    this.loggers = requireNonNull(loggers, "loggers is null");
    ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(1, runnable -> {
      Thread thread = new Thread(runnable, "tsd-log-level-reset");
      thread.setDaemon(true);
      return thread;
    });
    // A replaced reset is cancelled; it need not wait in the queue until its time.
    executor.setRemoveOnCancelPolicy(true);
    this.resets = executor;
  }

  /** The logging system's own context (logback's, as Dropwizard configures it). */
  public static TimedLogLevels ofLogback() {
    return new TimedLogLevels((LoggerContext) LoggerFactory.getILoggerFactory());
  }

  /**
   * Sets {@code loggerName} to {@code level} (empty: no level of its own, so it inherits), for {@code duration} if
   * given and for good otherwise.
   *
   * @throws IllegalArgumentException for the root logger without a level: it has no parent to inherit from
   */
  public synchronized void change(String loggerName, Optional<Level> level, Optional<Duration> duration) {
    requireNonNull(loggerName, "loggerName is null");
    requireNonNull(level, "level is null");
    requireNonNull(duration, "duration is null");
    checkChange(loggerName, level);
    Logger logger = loggers.getLogger(loggerName);
    PendingReset replaced = pending.remove(logger.getName());
    if (replaced != null) {
      replaced.reset().cancel(false);
    }
    if (duration.isPresent()) {
      Optional<Level> previous = replaced != null ? replaced.previous() : Optional.ofNullable(logger.getLevel());
      Object change = new Object();
      ScheduledFuture<?> reset = resets.schedule(() -> reset(logger.getName(), change), duration.get().toNanos(),
          TimeUnit.NANOSECONDS);
      pending.put(logger.getName(), new PendingReset(previous, change, reset));
    }
    logger.setLevel(level.orElse(null));
  }

  /**
   * Fails as {@link #change} would for this logger and level, so that a caller changing several loggers can check
   * them all before it changes any.
   */
  public static void checkChange(String loggerName, Optional<Level> level) {
    if (level.isEmpty() && isRoot(loggerName)) {
      throw new IllegalArgumentException("The root logger has no parent to inherit a level from: name a level");
    }
  }

  /**
   * Puts back the level {@code loggerName} had before its timed change, unless a later change replaced this one
   * (it may have done so while this reset waited for the lock, too late to cancel it).
   */
  private synchronized void reset(String loggerName, Object change) {
    PendingReset due = pending.get(loggerName);
    if (due == null || due.change() != change) {
      return;
    }
    pending.remove(loggerName);
    try {
      restore(loggers.getLogger(loggerName), due.previous());
    } catch (RuntimeException e) {
      // INVARIANT: a reset never throws out of the executor's thread, so later resets still run.
      LOG.error("Could not put back the level of logger {} ({}) after its timed change", loggerName,
          due.previous().map(Level::toString).orElse("inherited"), e);
    }
  }

  private static void restore(Logger logger, Optional<Level> previous) {
    // The root logger always has a level; nothing can have taken it away.
    if (previous.isPresent() || !isRoot(logger.getName())) {
      logger.setLevel(previous.orElse(null));
    }
  }

  private static boolean isRoot(String loggerName) {
    return org.slf4j.Logger.ROOT_LOGGER_NAME.equalsIgnoreCase(loggerName);
  }

  @Override
  public void start() {
  }

  /** Stops the reset thread and puts back at once every level still due to be put back. */
  @Override
  public synchronized void stop() {
    resets.shutdownNow();
    for (Map.Entry<String, PendingReset> due : pending.entrySet()) {
      restore(loggers.getLogger(due.getKey()), due.getValue().previous());
    }
    pending.clear();
  }
}
