package io.huditsd.executors.clustering;

import org.apache.hudi.avro.model.HoodieClusteringGroup;
import org.apache.hudi.avro.model.HoodieClusteringPlan;
import org.apache.hudi.common.table.HoodieTableConfig;

import java.util.Map;

/**
 * What {@link JavaBinaryCopyClusteringExecutionStrategy} holds of the heap, for the daemon's heap estimate: a copied
 * group streams its row groups through one buffer that grows to the largest source file, up to
 * {@link #bufferCapBytes()} (larger files are read as streams, one row group at a time); a group that cannot be
 * copied is rewritten record by record.
 */
public final class CopyHeap {
  private CopyHeap() {
  }

  /**
   * The most the copier buffers of one source file: a file read whole is read in whole checksum chunks, up to one
   * chunk past what is copied.
   */
  public static long bufferCapBytes() {
    return (long) RowGroupCopier.MAX_BUFFERED + LocalChecksummedRead.MAX_BYTES_PER_CHECKSUM;
  }

  /**
   * Whether {@code group} passes the checks made before its footers are read (no log files, no sort columns, meta
   * columns preserved, one partition, Parquet base files, no secondary or expression index). A group that passes
   * can still be rewritten for what only its footers show (schema or bloom filter mismatch, unreadable footer).
   */
  public static boolean copyable(HoodieClusteringPlan plan, HoodieClusteringGroup group, HoodieTableConfig table) {
    Map<String, String> params = plan.getStrategy() == null ? Map.of() : plan.getStrategy().getStrategyParams();
    boolean preserveMetadata = plan.getPreserveHoodieMetadata() == null || plan.getPreserveHoodieMetadata();
    return GroupEligibility.check(group, params, preserveMetadata, table).isEmpty();
  }
}
