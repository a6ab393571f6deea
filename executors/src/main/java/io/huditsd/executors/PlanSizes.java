package io.huditsd.executors;

import io.huditsd.config.ServiceType;
import org.apache.hudi.avro.model.HoodieClusteringGroup;
import org.apache.hudi.avro.model.HoodieClusteringPlan;
import org.apache.hudi.avro.model.HoodieSliceInfo;
import org.apache.hudi.common.table.HoodieTableMetaClient;
import org.apache.hudi.common.util.ClusteringUtils;
import org.apache.hudi.storage.StoragePath;

import java.io.IOException;

/**
 * A pending plan's size counted as its run's {@link ActionResult} will count it, so that the "Scheduled" and
 * "Finished" log lines of one plan compare: file groups written and bytes read. For compaction these are the plan's
 * file groups and log bytes. A clustering plan lists the file slices it reads (many small file groups) and how many
 * file groups it writes; its input bytes are the sizes of those slices' files, which the plan does not record.
 *
 * @param fileGroups file groups the plan writes
 * @param bytesIn bytes the plan reads
 */
public record PlanSizes(long fileGroups, long bytesIn) {
  /** The sizes of {@code plan}; reads a clustering plan and the sizes of its input files. */
  public static PlanSizes of(HoodieTableMetaClient metaClient, PendingPlan plan) {
    if (plan.service() != ServiceType.CLUSTERING) {
      return new PlanSizes(plan.fileGroupIds().size(), plan.inputBytes());
    }
    HoodieClusteringPlan clustering;
    try {
      clustering = ClusteringUtils.getPendingClusteringPlan(metaClient, plan.instant());
    } catch (RuntimeException e) {
      // Only a log line depends on it; the plan's own run reports the problem.
      return new PlanSizes(plan.fileGroupIds().size(), plan.inputBytes());
    }
    long outputGroups = 0;
    if (clustering.getInputGroups() != null) {
      for (HoodieClusteringGroup group : clustering.getInputGroups()) {
        outputGroups += group.getNumOutputFileGroups() == null ? 0 : group.getNumOutputFileGroups();
      }
    }
    return new PlanSizes(outputGroups, clusteringInputBytes(metaClient, clustering));
  }

  /** Bytes of the base and log files of every slice a clustering plan reads; a file gone since counts 0. */
  static long clusteringInputBytes(HoodieTableMetaClient metaClient, HoodieClusteringPlan plan) {
    long bytes = 0;
    if (plan.getInputGroups() == null) {
      return 0;
    }
    for (HoodieClusteringGroup group : plan.getInputGroups()) {
      for (HoodieSliceInfo slice : group.getSlices()) {
        if (slice.getDataFilePath() != null && !slice.getDataFilePath().isEmpty()) {
          bytes += fileSize(metaClient, slice.getPartitionPath(), slice.getDataFilePath());
        }
        if (slice.getDeltaFilePaths() != null) {
          for (String log : slice.getDeltaFilePaths()) {
            bytes += fileSize(metaClient, slice.getPartitionPath(), log);
          }
        }
      }
    }
    return bytes;
  }

  /** The length of a file a plan names, by Hudi's conventions for plan paths; 0 when it is gone. */
  static long fileSize(HoodieTableMetaClient metaClient, String partition, String file) {
    StoragePath path = file.contains("/")
        ? new StoragePath(file) : new StoragePath(new StoragePath(metaClient.getBasePath(), partition), file);
    if (!path.isAbsolute()) {
      path = new StoragePath(metaClient.getBasePath(), file);
    }
    try {
      return metaClient.getStorage().getPathInfo(path).getLength();
    } catch (IOException e) {
      return 0;
    }
  }

  /** As the log lines print it. */
  @Override
  public String toString() {
    return "fileGroups=" + fileGroups + " bytesIn=" + bytesIn;
  }
}
