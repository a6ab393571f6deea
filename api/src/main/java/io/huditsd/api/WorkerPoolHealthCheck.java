package io.huditsd.api;

import com.codahale.metrics.health.HealthCheck;
import io.huditsd.executors.WorkerPool;

/** Reports the pool's queue; unhealthy never, since a long queue is a backlog, not a fault (metrics alert on it). */
final class WorkerPoolHealthCheck extends HealthCheck {
  private final WorkerPool pool;

  WorkerPoolHealthCheck(WorkerPool pool) {
    this.pool = pool;
  }

  @Override
  protected Result check() {
    return Result.healthy("running=" + pool.runningCount() + " queued=" + pool.queuedCount());
  }
}
