package io.huditsd.scheduler;

import io.huditsd.executors.ActionResult;
import io.huditsd.executors.RunListener;
import io.huditsd.executors.WorkerPool;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A one-worker pool whose runner holds every item until {@link #close()}, so that what the scheduler enqueued stays
 * visible in {@link WorkerPool#snapshot()}.
 */
final class HoldingPool implements AutoCloseable {
  private final CountDownLatch release = new CountDownLatch(1);
  private final WorkerPool pool;

  HoldingPool() {
    this(RunListener.NONE);
  }

  /** @param listener told about every run's changes, as a daemon's listeners are */
  HoldingPool(RunListener listener) {
    this.pool = new WorkerPool(1, 1, Duration.ZERO, item -> {
      try {
        release.await(60, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      return new ActionResult(item.service(), item.instant(), 0, 0, 0, Duration.ZERO);
    }, listener);
  }

  WorkerPool pool() {
    return pool;
  }

  @Override
  public void close() throws InterruptedException {
    release.countDown();
    pool.shutdown(Duration.ofSeconds(10));
  }
}
