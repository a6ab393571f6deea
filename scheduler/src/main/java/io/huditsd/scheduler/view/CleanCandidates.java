package io.huditsd.scheduler.view;

import org.apache.hudi.common.engine.HoodieEngineContext;
import org.apache.hudi.common.model.CleanFileInfo;
import org.apache.hudi.common.table.timeline.HoodieInstant;
import org.apache.hudi.common.util.Option;
import org.apache.hudi.config.HoodieWriteConfig;
import org.apache.hudi.table.HoodieTable;
import org.apache.hudi.table.action.clean.CleanPlanner;

import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * The files Hudi's clean planner would delete now, by partition: the same {@code CleanPlanner} calls a clean's
 * scheduling makes (its policy, retention, savepoints, pending compactions and clustering, replaced file groups,
 * incremental partitions since the last clean), minus the trigger check and the write to the timeline.
 *
 * @param earliestCommitToRetain the instant the clean retains from, when the policy names one
 * @param lastCompletedCommit the last completed commit the plan was computed against
 * @param filesByPartition the files to delete, partitions with none left out
 */
public record CleanCandidates(Optional<HoodieInstant> earliestCommitToRetain, String lastCompletedCommit,
                              Map<String, List<CleanFileInfo>> filesByPartition) {
  public CleanCandidates {
    Objects.requireNonNull(earliestCommitToRetain, "earliestCommitToRetain is null");
    filesByPartition = Map.copyOf(filesByPartition);
  }

  public static CleanCandidates of(HoodieEngineContext context, HoodieTable<?, ?, ?, ?> table,
                                   HoodieWriteConfig config) throws IOException {
    CleanPlanner<?, ?, ?, ?> planner = new CleanPlanner<>(context, table, config);
    Option<HoodieInstant> earliest = planner.getEarliestCommitToRetain();
    Map<String, List<CleanFileInfo>> files = new LinkedHashMap<>();
    for (String partition : planner.getPartitionPathsToClean(earliest)) {
      List<CleanFileInfo> deletes = planner.getDeletePaths(partition, earliest).getRight();
      if (!deletes.isEmpty()) {
        files.put(partition, List.copyOf(deletes));
      }
    }
    return new CleanCandidates(earliest.isPresent() ? Optional.of(earliest.get()) : Optional.empty(),
        planner.getLastCompletedCommitTimestamp(), files);
  }

  public boolean isEmpty() {
    return filesByPartition.isEmpty();
  }
}
