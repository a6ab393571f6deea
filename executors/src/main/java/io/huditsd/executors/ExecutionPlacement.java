package io.huditsd.executors;

import io.huditsd.config.EngineKind;
import io.huditsd.config.ServicedTable;
import org.apache.hudi.common.table.HoodieTableMetaClient;

import java.util.Objects;
import java.util.Optional;

/**
 * Decides how a pending plan executes (engine and heap estimate) when it is queued: by the table's engine policy, the
 * plan's estimate against the in-process memory budget, and what a request asked for. Reads the plan (through the
 * estimator); called by whoever makes a {@link WorkItem} of a plan (its {@link Placement}), never under the pool's lock.
 */
public class ExecutionPlacement {
  private final HeapEstimator estimator;

  public ExecutionPlacement(HeapEstimator estimator) {
    this.estimator = Objects.requireNonNull(estimator, "estimator is null");
  }

  /** Every plan in the daemon's JVM, whatever it asks: a daemon without a Spark section. */
  public static ExecutionPlacement inProcess() {
    return new ExecutionPlacement(new HeapEstimator());
  }

  /**
   * How {@code plan} executes.
   *
   * @param requested the engine a request named ({@code POST .../execute {"engine": ...}}, {@code once --engine})
   */
  public Placement place(HoodieTableMetaClient metaClient, ServicedTable table, PendingPlan plan,
                         Optional<EngineKind> requested) {
    // SKELETON: replaced by the engine policy and the budget rule.
    return new Placement(requested.orElse(EngineKind.JAVA), estimator.estimate(metaClient, table, plan));
  }
}
