package io.huditsd.lock;

import org.apache.hudi.client.transaction.lock.metrics.HoodieLockMetrics;
import org.apache.hudi.common.config.LockConfiguration;
import org.apache.hudi.common.lock.LockProvider;
import org.apache.hudi.common.util.ReflectionUtils;
import org.apache.hudi.storage.StorageConfiguration;

import java.util.concurrent.TimeUnit;

/**
 * The lock provider the daemon hands Hudi: it delegates every call to the provider the table is configured with
 * ({@value #DELEGATE_KEY}) and times waits and holds, labelled with {@value #TABLE_KEY}. The delegate is built the
 * way Hudi's LockManager builds providers, so any provider that works in Hudi works here.
 */
public final class MeteredLockProvider<T> implements LockProvider<T> {
  public static final String DELEGATE_KEY = "hoodie.write.lock.tsd.delegate.provider";
  public static final String TABLE_KEY = "hoodie.write.lock.tsd.table.id";

  private final LockProvider<T> delegate;
  private final String table;
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
      acquired = delegate.tryLock(time, unit);
      return acquired;
    } finally {
      long now = System.nanoTime();
      LockMetrics.WAIT.labelValues(table).observe((now - start) / 1e9);
      if (acquired) {
        acquiredAtNanos = now;
      } else {
        LockMetrics.FAILURES.labelValues(table).inc();
      }
    }
  }

  @Override
  public boolean tryLock() {
    boolean acquired = delegate.tryLock();
    if (acquired) {
      acquiredAtNanos = System.nanoTime();
    } else {
      LockMetrics.FAILURES.labelValues(table).inc();
    }
    return acquired;
  }

  @Override
  public void lock() {
    delegate.lock();
    acquiredAtNanos = System.nanoTime();
  }

  @Override
  public void lockInterruptibly() {
    delegate.lockInterruptibly();
    acquiredAtNanos = System.nanoTime();
  }

  @Override
  public void unlock() {
    long acquiredAt = acquiredAtNanos;
    delegate.unlock();
    if (acquiredAt != 0) {
      LockMetrics.HELD.labelValues(table).observe((System.nanoTime() - acquiredAt) / 1e9);
      acquiredAtNanos = 0;
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

  @Override
  public void close() {
    delegate.close();
  }
}
