package io.huditsd.executors;

import io.huditsd.config.ServicedTable;
import org.apache.hudi.common.table.HoodieTableMetaClient;

/**
 * Estimates the heap a pending plan needs when it executes in the daemon (issue 14 §1). May read the plan and the
 * sizes of its files; never called under another class's lock.
 */
public class HeapEstimator {
  /** The estimate for {@code plan} of {@code table}. */
  public HeapEstimate estimate(HoodieTableMetaClient metaClient, ServicedTable table, PendingPlan plan) {
    // SKELETON: replaced by the per-service estimate (compaction slices, rewrite groups, binary-copy source files).
    return new HeapEstimate(plan.inputBytes(), "input bytes");
  }
}
