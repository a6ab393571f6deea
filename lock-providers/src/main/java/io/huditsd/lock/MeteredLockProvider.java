package io.huditsd.lock;

import org.apache.hudi.client.transaction.lock.metrics.HoodieLockMetrics;
import org.apache.hudi.common.config.LockConfiguration;
import org.apache.hudi.common.lock.LockProvider;
import org.apache.hudi.common.util.ReflectionUtils;
import org.apache.hudi.storage.StorageConfiguration;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The lock provider the daemon hands Hudi: it delegates every call to the provider the table is configured with
 * ({@value #DELEGATE_KEY}) and times waits and holds, labelled with {@value #TABLE_KEY}. The delegate is built the
 * way Hudi's LockManager builds providers, so any provider that works in Hudi works here.
 *
 * <p>Before the delegate is asked, the daemon's own holders of one table take turns in process ({@link LockTurns}):
 * a plan waiting for another plan of the same table to release the lock tries it the moment that one lets go, not
 * after the delegate's polling interval.
 */
public final class MeteredLockProvider<T> implements LockProvider<T> {
  public static final String DELEGATE_KEY = "hoodie.write.lock.tsd.delegate.provider";
  public static final String TABLE_KEY = "hoodie.write.lock.tsd.table.id";

  private final LockProvider<T> delegate;
  private final String table;
  private final LockTurns turns;
  /** Whether this provider holds its turn: taken before the delegate's lock, given back after it. */
  private final AtomicBoolean holdsTurn = new AtomicBoolean();
  private volatile long acquiredAtNanos;

  public MeteredLockProvider(LockConfiguration configuration, StorageConfiguration<?> storage) {
    this(configuration, storage, null);
  }

  @SuppressWarnings("unchecked")
  public MeteredLockProvider(LockConfiguration configuration, StorageConfiguration<?> storage,
                             HoodieLockMetrics metrics) {
    String className = configuration.getConfig().getString(DELEGATE_KEY, null);
    if (className == null || className.isBlank()) {
      throw new IllegalArgumentException(DELEGATE_KEY + " must name the lock provider to delegate to");
    }
    this.table = configuration.getConfig().getString(TABLE_KEY, "unknown");
    this.turns = LockTurns.of(table);
    // The table's failure series exists at 0 from its first lock, so that increase() in an alert sees the first
    // failure (a counter's series otherwise appears only at its first increment).
    LockMetrics.FAILURES.initLabelValues(table);
    Class<?>[] withMetrics = {LockConfiguration.class, StorageConfiguration.class, HoodieLockMetrics.class};
    if (metrics != null && ReflectionUtils.hasConstructor(className, withMetrics)) {
      this.delegate = (LockProvider<T>) ReflectionUtils.loadClass(className, withMetrics, configuration, storage,
          metrics);
    } else {
      this.delegate = (LockProvider<T>) ReflectionUtils.loadClass(className,
          new Class<?>[] {LockConfiguration.class, StorageConfiguration.class}, configuration, storage);
    }
  }

  @Override
  public boolean tryLock(long time, TimeUnit unit) throws InterruptedException {
    long start = System.nanoTime();
    boolean acquired = false;
    try {
      if (!takeTurn(time, unit)) {
        return false;
      }
      long left = unit.toNanos(time) - (System.nanoTime() - start);
      acquired = delegate.tryLock(Math.max(0, left), TimeUnit.NANOSECONDS);
      return acquired;
    } finally {
      long now = System.nanoTime();
      LockMetrics.WAIT.labelValues(table).observe((now - start) / 1e9);
      if (acquired) {
        acquiredAtNanos = now;
      } else {
        giveBackTurn();
        LockMetrics.FAILURES.labelValues(table).inc();
      }
    }
  }

  @Override
  public boolean tryLock() {
    boolean acquired = false;
    try {
      acquired = takeTurn() && delegate.tryLock();
    } finally {
      if (acquired) {
        acquiredAtNanos = System.nanoTime();
      } else {
        giveBackTurn();
        LockMetrics.FAILURES.labelValues(table).inc();
      }
    }
    return acquired;
  }

  @Override
  public void lock() {
    lockAfterTurn(delegate::lock);
  }

  @Override
  public void lockInterruptibly() {
    lockAfterTurn(delegate::lockInterruptibly);
  }

  /** Takes the turn, then the delegate's lock by {@code lock}; gives the turn back when that throws. */
  private void lockAfterTurn(Runnable lock) {
    takeTurnUninterruptibly();
    boolean acquired = false;
    try {
      lock.run();
      acquired = true;
    } finally {
      if (!acquired) {
        giveBackTurn();
      }
    }
    acquiredAtNanos = System.nanoTime();
  }

  @Override
  public void unlock() {
    long acquiredAt = acquiredAtNanos;
    try {
      delegate.unlock();
    } finally {
      giveBackTurn();
    }
    if (acquiredAt != 0) {
      LockMetrics.HELD.labelValues(table).observe((System.nanoTime() - acquiredAt) / 1e9);
      acquiredAtNanos = 0;
    }
  }

  /** A provider takes its turn once: Hudi's LockManager asks one provider again only after it released. */
  private boolean takeTurn(long time, TimeUnit unit) throws InterruptedException {
    if (holdsTurn.get()) {
      return true;
    }
    boolean taken = turns.tryAcquire(time, unit);
    holdsTurn.set(taken);
    return taken;
  }

  private boolean takeTurn() {
    if (holdsTurn.get()) {
      return true;
    }
    boolean taken = turns.tryAcquire();
    holdsTurn.set(taken);
    return taken;
  }

  private void takeTurnUninterruptibly() {
    if (!holdsTurn.get()) {
      turns.acquireUninterruptibly();
      holdsTurn.set(true);
    }
  }

  private void giveBackTurn() {
    if (holdsTurn.compareAndSet(true, false)) {
      turns.release();
    }
  }

  @Override
  public T getLock() {
    return delegate.getLock();
  }

  @Override
  public String getCurrentOwnerLockInfo() {
    return delegate.getCurrentOwnerLockInfo();
  }

  /** Closing releases the delegate's lock if it is still held (Hudi's providers do), so the turn goes too. */
  @Override
  public void close() {
    try {
      delegate.close();
    } finally {
      giveBackTurn();
    }
  }
}
