package io.huditsd.executors;

import io.huditsd.config.EngineKind;

import java.util.Objects;

/**
 * How one work item executes: on which engine, and what it is expected to hold of the daemon's heap (zero for work
 * that runs elsewhere, since only in-process runs take from {@code workers.memoryBudget}).
 *
 * @param engine where the plan runs
 * @param estimate the plan's heap estimate, whatever the engine (shown on the run either way)
 */
public record Placement(EngineKind engine, HeapEstimate estimate) {
  public Placement {
    Objects.requireNonNull(engine, "engine is null");
    Objects.requireNonNull(estimate, "estimate is null");
  }

  public static Placement inProcess(HeapEstimate estimate) {
    return new Placement(EngineKind.JAVA, estimate);
  }

  /** Heap this run reserves from the daemon's budget while it runs. */
  public long reservedHeapBytes() {
    return engine == EngineKind.JAVA ? estimate.bytes() : 0;
  }
}
