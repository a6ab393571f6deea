package io.huditsd.executors;

import org.apache.hudi.common.model.HoodieCommitMetadata;
import org.apache.hudi.common.model.HoodieWriteStat;
import org.apache.hudi.common.model.WriteOperationType;
import org.apache.hudi.common.table.HoodieTableMetaClient;
import org.apache.hudi.common.table.timeline.HoodieInstant;
import org.apache.hudi.common.table.timeline.HoodieTimeline;
import org.apache.hudi.common.table.timeline.InstantComparison;
import org.apache.hudi.metadata.HoodieTableMetadata;
import org.apache.hudi.metadata.HoodieTableMetadataUtil;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Finds the data commits a just-built metadata index missed. Hudi 1.2.0's catch-up skips every commit after the
 * build's base instant that already has a metadata-table commit, trusting that its writer updated the new partition
 * too (AbstractIndexingCatchupTask.awaitInstantCaughtUp). A writer only does so when it saw the partition inflight
 * in hoodie.properties, which the indexer sets without the table lock once the build starts: a writer commit that
 * read the table config before then and completed after the build loaded the table's timeline is in neither the
 * initial build (the latest file slices of that timeline) nor the catch-up (seen here: 30 inserted keys absent from a
 * record index built beside a live writer).
 *
 * <p>Such a commit is recognizable in the metadata table: its deltacommit at the commit's instant has no write
 * statistics for the new partition although the commit wrote what that partition indexes. Checked for
 * {@code record_index} (inserts and deletes) and {@code column_stats} (any written file) on writers' commits;
 * compaction and clustering commits are left out (the record index has nothing to change for them).
 */
final class IndexCompleteness {
  private IndexCompleteness() {
  }

  /**
   * @param metaClient the data table, freshly loaded
   * @param buildStartedAt an instant time taken just before the build started: commits completed before it are in
   *     the build's initial snapshot, so only those completed after it are checked (none on table version 6, whose
   *     timeline records no completion times)
   * @param partitions the metadata partitions just built
   * @return per partition, the writer commits it missed; empty when none was missed
   */
  static Map<String, List<String>> missedCommits(HoodieTableMetaClient metaClient, String buildStartedAt,
                                                 List<String> partitions) {
    HoodieTableMetaClient metadata = HoodieTableMetaClient.builder()
        .setConf(metaClient.getStorageConf().newInstance())
        .setBasePath(HoodieTableMetadata.getMetadataTableBasePath(metaClient.getBasePath()))
        .build();
    HoodieTimeline metadataCommits = metadata.getActiveTimeline().getCommitsTimeline().filterCompletedInstants();
    HoodieTimeline dataCommits = metaClient.getActiveTimeline().getCommitsTimeline().filterCompletedInstants();
    Map<String, List<String>> missed = new HashMap<>();
    for (HoodieInstant commit : dataCommits.getInstants()) {
      String completed = commit.getCompletionTime();
      if (completed == null || !InstantComparison.compareTimestamps(completed, InstantComparison.GREATER_THAN,
          buildStartedAt)) {
        continue;
      }
      HoodieCommitMetadata written = read(metaClient.getActiveTimeline(), commit);
      WriteOperationType operation = written.getOperationType();
      if (WriteOperationType.isCompactionOrClustering(operation) || operation == WriteOperationType.LOG_COMPACT) {
        continue;
      }
      Set<String> updated = metadataPartitionsUpdated(metadataCommits, commit.requestedTime());
      if (updated == null) {
        // No metadata-table commit at this instant in the active timeline: the catch-up wrote it or it was
        // archived; nothing to compare with.
        continue;
      }
      for (String partition : partitions) {
        if (shouldHaveUpdated(partition, written) && !updated.contains(partition)) {
          missed.computeIfAbsent(partition, p -> new ArrayList<>()).add(commit.requestedTime());
        }
      }
    }
    return missed;
  }

  private static boolean shouldHaveUpdated(String partition, HoodieCommitMetadata written) {
    long inserts = 0;
    long deletes = 0;
    long files = 0;
    for (List<HoodieWriteStat> stats : written.getPartitionToWriteStats().values()) {
      for (HoodieWriteStat stat : stats) {
        inserts += stat.getNumInserts();
        deletes += stat.getNumDeletes();
        files += stat.getNumWrites() > 0 || stat.getNumDeletes() > 0 ? 1 : 0;
      }
    }
    if (partition.equals(HoodieTableMetadataUtil.PARTITION_NAME_RECORD_INDEX)) {
      return inserts > 0 || deletes > 0;
    }
    if (partition.equals(HoodieTableMetadataUtil.PARTITION_NAME_COLUMN_STATS)) {
      return files > 0;
    }
    return false;
  }

  /** The metadata partitions the metadata-table commit at {@code instant} wrote to; null when there is none. */
  private static Set<String> metadataPartitionsUpdated(HoodieTimeline metadataCommits, String instant) {
    for (HoodieInstant commit : metadataCommits.getInstants()) {
      if (commit.requestedTime().equals(instant)) {
        return read(metadataCommits, commit).getPartitionToWriteStats().keySet();
      }
    }
    return null;
  }

  private static HoodieCommitMetadata read(HoodieTimeline timeline, HoodieInstant instant) {
    try {
      return timeline.readCommitMetadata(instant);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read the commit metadata of " + instant, e);
    }
  }
}
