package io.huditsd.api;

import com.codahale.metrics.health.HealthCheck;
import io.huditsd.executors.WorkerPool;

/**
 * Unhealthy only if a worker thread died (the pool never lets a failed plan kill one). A long queue is a backlog,
 * not a fault: metrics and alerts cover it.
 */
final class WorkerPoolHealthCheck extends HealthCheck {
  private final WorkerPool pool;

  WorkerPoolHealthCheck(WorkerPool pool) {
    this.pool = pool;
  }

  @Override
  protected Result check() {
    String figures = "workers=" + pool.aliveWorkers() + "/" + pool.workerCount() + " running="
        + pool.runningCount() + " queued=" + pool.queuedCount();
    return pool.aliveWorkers() == pool.workerCount() ? Result.healthy(figures) : Result.unhealthy(figures);
  }
}
