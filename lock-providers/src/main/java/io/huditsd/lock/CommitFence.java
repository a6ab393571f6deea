package io.huditsd.lock;

import java.util.Optional;

/**
 * Which fenced lock the calling thread holds. Hudi takes the table lock and writes the commit under it on the same
 * thread ({@code TransactionManager.beginStateChange}, the timeline write, {@code endStateChange}), so the providers
 * register themselves here when they acquire and {@link FencedHadoopStorage} checks before every timeline write.
 *
 * <p>INVARIANT: a registration outlives its lock only when the lock is released on another thread; such a stale
 * registration is harmless, because {@link FencedLock#checkStillHeld} does nothing for a lock that is not held.
 */
public final class CommitFence {
  private static final ThreadLocal<FencedLock> HELD = new ThreadLocal<>();

  private CommitFence() {
  }

  static void acquired(FencedLock lock) {
    HELD.set(lock);
  }

  static void released(FencedLock lock) {
    if (HELD.get() == lock) {
      HELD.remove();
    }
  }

  /**
   * Fails with {@link LockLostException} if the calling thread acquired a fenced lock that it has lost since. A
   * thread holding no fenced lock passes: writes outside a transaction, or under a lock that cannot be lost
   * (in-process), are not fenced.
   */
  public static void check(String write) {
    FencedLock lock = HELD.get();
    if (lock != null) {
      lock.checkStillHeld(write);
    }
  }

  /** The fenced lock registered by the calling thread, for tests and diagnostics. */
  public static Optional<FencedLock> current() {
    return Optional.ofNullable(HELD.get());
  }
}
