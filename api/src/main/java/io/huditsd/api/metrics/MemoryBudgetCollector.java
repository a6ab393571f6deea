package io.huditsd.api.metrics;

import io.huditsd.executors.WorkerPool;
import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;

import java.util.Objects;

import static io.huditsd.api.metrics.LabelledFamily.Type.GAUGE;

/**
 * The in-process memory budget ({@code workers.memoryBudget}) and what the running plans reserve of it by their
 * heap estimates, read from the pool at scrape time. Reserved near the budget with runs queued means plans wait
 * for memory rather than for workers.
 */
public final class MemoryBudgetCollector implements MultiCollector {
  private final WorkerPool pool;

  public MemoryBudgetCollector(WorkerPool pool) {
    this.pool = Objects.requireNonNull(pool, "pool is null");
  }

  @Override
  public MetricSnapshots collect() {
    return MetricSnapshots.of(
        LabelledFamily.single(GAUGE, "tsd_worker_memory_budget_bytes",
            "Heap the plans executing in the daemon may hold together by their estimates (workers.memoryBudget)",
            pool.memoryBudgetBytes()),
        LabelledFamily.single(GAUGE, "tsd_worker_memory_reserved_bytes",
            "Sum of the heap estimates of the plans executing in the daemon now", pool.reservedHeapBytes()));
  }
}
