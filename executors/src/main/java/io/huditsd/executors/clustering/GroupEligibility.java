package io.huditsd.executors.clustering;

import org.apache.hudi.avro.model.HoodieClusteringGroup;
import org.apache.hudi.avro.model.HoodieSliceInfo;
import org.apache.hudi.common.table.HoodieTableConfig;
import org.apache.hudi.config.HoodieClusteringConfig;
import org.apache.hudi.metadata.HoodieTableMetadataUtil;

import java.util.Map;
import java.util.Optional;

/**
 * The checks a clustering group must pass before its footers are read: only base files, in one partition, no sort
 * order, meta columns preserved, no index that needs per-record write results. The checks on file contents (schema,
 * bloom filter type) are {@link GroupLayout}'s.
 */
final class GroupEligibility {
  private GroupEligibility() {
  }

  static Optional<GroupLayout.Ineligible> check(HoodieClusteringGroup group, Map<String, String> strategyParams,
                                                boolean preserveMetadata, HoodieTableConfig table) {
    if (!preserveMetadata) {
      return ineligible(FallbackReason.METADATA_NOT_PRESERVED, "the plan does not preserve Hudi's meta columns");
    }
    String sortColumns = strategyParams == null ? null
        : strategyParams.get(HoodieClusteringConfig.PLAN_STRATEGY_SORT_COLUMNS.key());
    if (sortColumns != null && !sortColumns.isBlank()) {
      return ineligible(FallbackReason.SORT_COLUMNS, "the plan sorts by " + sortColumns);
    }
    for (String partition : table.getMetadataPartitions()) {
      // The record index is not in the list: Hudi 1.2.0 computes a commit's record-index updates by reading the keys
      // of the base files its write stats name (HoodieTableMetadataUtil.convertMetadataToRecordIndexRecords), which
      // works for copied files as for rewritten ones. Secondary and expression indexes are updated from records.
      if (partition.startsWith(HoodieTableMetadataUtil.PARTITION_NAME_SECONDARY_INDEX)
          || partition.startsWith(HoodieTableMetadataUtil.PARTITION_NAME_EXPRESSION_INDEX)) {
        return ineligible(FallbackReason.SECONDARY_OR_EXPRESSION_INDEX, "the table's metadata table has a " + partition
            + " index");
      }
    }
    String partitionPath = null;
    for (HoodieSliceInfo slice : group.getSlices()) {
      if (partitionPath == null) {
        partitionPath = slice.getPartitionPath();
      } else if (!partitionPath.equals(slice.getPartitionPath())) {
        return ineligible(FallbackReason.MULTIPLE_PARTITIONS, "file groups in partitions '" + partitionPath
            + "' and '" + slice.getPartitionPath() + "'");
      }
      if (slice.getDeltaFilePaths() != null && !slice.getDeltaFilePaths().isEmpty()) {
        return ineligible(FallbackReason.LOG_FILES, "file group " + slice.getFileId() + " has "
            + slice.getDeltaFilePaths().size() + " log file(s)");
      }
      String base = slice.getDataFilePath();
      if (base == null || base.isEmpty() || !base.endsWith(".parquet")) {
        return ineligible(FallbackReason.NOT_PARQUET_BASE_FILE, "file group " + slice.getFileId()
            + " has no Parquet base file" + (base == null || base.isEmpty() ? "" : " (" + base + ")"));
      }
      if (slice.getBootstrapFilePath() != null && !slice.getBootstrapFilePath().isEmpty()) {
        return ineligible(FallbackReason.NOT_PARQUET_BASE_FILE, "file group " + slice.getFileId()
            + " has a bootstrap base file");
      }
    }
    return Optional.empty();
  }

  private static Optional<GroupLayout.Ineligible> ineligible(FallbackReason reason, String detail) {
    return Optional.of(new GroupLayout.Ineligible(reason, detail));
  }
}
