package io.huditsd.lock;

import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.curator.test.KillSession;
import org.apache.hudi.common.config.LockConfiguration;
import org.apache.hudi.common.lock.LockProvider;
import org.apache.hudi.storage.StorageConfiguration;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The daemon's ZooKeeper lock, whose ZooKeeper session a test makes expire right after the lock was acquired by a
 * caller of a given method (Hudi's {@code completeCompaction}, say): the holder then writes under a lost lock.
 */
public final class ExpiringZookeeperLockProvider implements LockProvider<InterProcessMutex> {
  /** The method whose lock acquisition loses the session; null: none. */
  public static final AtomicReference<String> EXPIRE_WHEN_ACQUIRED_BY = new AtomicReference<>();

  private final ZookeeperFencedLockProvider lock;

  public ExpiringZookeeperLockProvider(LockConfiguration configuration, StorageConfiguration<?> storage) {
    this.lock = new ZookeeperFencedLockProvider(configuration, storage);
  }

  @Override
  public boolean tryLock(long time, TimeUnit unit) {
    boolean acquired = lock.tryLock(time, unit);
    String method = EXPIRE_WHEN_ACQUIRED_BY.get();
    if (acquired && method != null && StackWalker.getInstance()
        .walk(frames -> frames.anyMatch(frame -> frame.getMethodName().equals(method)))) {
      try {
        KillSession.kill(lock.client().getZookeeperClient().getZooKeeper());
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!lost() && System.nanoTime() < deadline) {
          Thread.sleep(20);
        }
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    }
    return acquired;
  }

  private boolean lost() {
    try {
      lock.checkStillHeld("probe");
      return false;
    } catch (LockLostException e) {
      return true;
    }
  }

  @Override
  public void unlock() {
    lock.unlock();
  }

  @Override
  public InterProcessMutex getLock() {
    return lock.getLock();
  }

  @Override
  public void close() {
    lock.close();
  }
}
