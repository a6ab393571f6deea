package io.huditsd.lock;

import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * Turns at one table's lock among this process's own holders, so that they wait for each other on a monitor that a
 * release wakes, not on the table lock's polling interval.
 *
 * <p>Why: Hudi's storage lock is polled. A holder that finds it taken sleeps a fixed second before trying again
 * ({@code StorageBasedLockProvider.tryLock(time, unit)}, a constant in Hudi 1.2.0), so when two of the daemon's plans
 * on one table meet at the lock (a clean committing while a compaction starts or commits), the second lost up to a
 * second to a lock its own process held: in the demo about half of a tiny plan's wall time (docs/benchmarks.md, "A
 * warm daemon's fixed cost per plan"). Here the second waits for the first's release and tries the table lock at
 * that moment. Writers in other processes see no change: each of the daemon's holders still takes the table lock
 * the same way, and the daemon holds it no longer and no more often than before.
 *
 * <p>A turn is reentrant per thread, so that a nested acquisition on the holding thread never waits on itself: the
 * table lock then answers it as it did without turns (Hudi's storage and in-process locks refuse it, a reentrant one
 * grants it). A turn may be released from another thread than the one that took it (a client closed elsewhere); the
 * provider that took it releases it, once.
 */
public final class LockTurns {
  // Static, and so released by forget rather than owned by the table's state: Hudi builds each lock provider by
  // reflection from a class name, so a provider cannot be handed its turns, only find them by the table id in its
  // keys; and this module runs in writers' JVMs too, where no registry exists.
  private static final Map<String, LockTurns> BY_TABLE = new ConcurrentHashMap<>();

  private Thread owner;
  private int holds;
  private int waiting;

  LockTurns() {
  }

  /** The turns at the lock of the table the daemon calls {@code tableId}, shared by every holder in this process. */
  static LockTurns of(String tableId) {
    return BY_TABLE.computeIfAbsent(tableId, id -> new LockTurns());
  }

  /**
   * Forgets the turns of a table this process no longer services (the daemon's registry calls this when the table
   * leaves). A provider still open keeps the turns it found; a provider made later gets new ones, which only costs
   * the wait this class saves, and only should the table come back while a plan of its earlier life still commits.
   */
  public static void forget(String tableId) {
    BY_TABLE.remove(tableId);
  }

  /** The tables with turns in this process; for tests and diagnostics. */
  public static Set<String> tables() {
    return Set.copyOf(BY_TABLE.keySet());
  }

  /** Takes the turn if it is free or this thread has it already. */
  synchronized boolean tryAcquire() {
    Thread me = Thread.currentThread();
    if (owner == null || owner == me) {
      owner = me;
      holds++;
      return true;
    }
    return false;
  }

  /** Takes the turn, waiting at most {@code timeout} for the holder to release it; false when it did not. */
  synchronized boolean tryAcquire(long timeout, TimeUnit unit) throws InterruptedException {
    long deadline = System.nanoTime() + unit.toNanos(timeout);
    waiting++;
    try {
      while (!tryAcquire()) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          return false;
        }
        TimeUnit.NANOSECONDS.timedWait(this, left);
      }
      return true;
    } finally {
      waiting--;
    }
  }

  /** Takes the turn, however long the holder keeps it. */
  synchronized void acquireUninterruptibly() {
    boolean interrupted = false;
    waiting++;
    try {
      while (!tryAcquire()) {
        try {
          wait();
        } catch (InterruptedException e) {
          interrupted = true;
        }
      }
    } finally {
      waiting--;
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /** Gives back one hold of the turn; the last wakes the waiters. */
  synchronized void release() {
    if (holds == 0) {
      throw new IllegalStateException("the lock turn is not held");
    }
    holds--;
    if (holds == 0) {
      owner = null;
      notifyAll();
    }
  }

  /** How many holders wait for the turn now. */
  synchronized int waiting() {
    return waiting;
  }
}
