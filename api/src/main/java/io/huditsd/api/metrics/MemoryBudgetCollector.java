package io.huditsd.api.metrics;

import io.huditsd.executors.WorkerPool;
import io.prometheus.client.Collector;
import io.prometheus.client.GaugeMetricFamily;

import java.util.List;
import java.util.Objects;

/**
 * The in-process memory budget ({@code workers.memoryBudget}) and what the running plans reserve of it by their
 * heap estimates, read from the pool at scrape time. Reserved near the budget with runs queued means plans wait
 * for memory rather than for workers.
 */
public final class MemoryBudgetCollector extends Collector {
  private final WorkerPool pool;

  public MemoryBudgetCollector(WorkerPool pool) {
    this.pool = Objects.requireNonNull(pool, "pool is null");
  }

  @Override
  public List<MetricFamilySamples> collect() {
    return List.of(
        new GaugeMetricFamily("tsd_worker_memory_budget_bytes",
            "Heap the plans executing in the daemon may hold together by their estimates (workers.memoryBudget)",
            pool.memoryBudgetBytes()),
        new GaugeMetricFamily("tsd_worker_memory_reserved_bytes",
            "Sum of the heap estimates of the plans executing in the daemon now", pool.reservedHeapBytes()));
  }
}
