package io.huditsd.scheduler.view;

import io.huditsd.config.ServiceType;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * How far a table's services are behind, as of its last changed poll.
 *
 * @param computedAt when the figures were computed
 * @param fileGroups file groups in the latest view
 * @param logFiles log files in latest file slices
 * @param logFileScheduledBytes log bytes covered by a pending compaction plan
 * @param logFileUnscheduledBytes log bytes no pending compaction plan covers
 * @param smallBaseFiles latest base files below {@code hoodie.parquet.small.file.limit}
 * @param pendingPlans pending plans by service
 * @param oldestPendingPlan requested time of the oldest pending plan, if any
 * @param deltaCommitsSinceCompaction completed delta commits since the last completed compaction (MOR)
 * @param liveSlices the live file slices the figures were summed from, so the file-groups endpoint serves exactly
 *     what the gauges count without listing storage per request
 * @param cleanBlocker the pending instant holding Hudi's clean boundary back, if one does
 * @param metadataDeltaCommitsSinceCompaction completed delta commits on the table's metadata table since its last
 *     compaction; empty without a metadata table, or when it could not be read
 * @param cleanable what the next clean would delete now; empty when it could not be computed
 */
public record TableBacklog(Instant computedAt, long fileGroups, long logFiles, long logFileScheduledBytes,
                           long logFileUnscheduledBytes, long smallBaseFiles, Map<ServiceType, Integer> pendingPlans,
                           Optional<Instant> oldestPendingPlan, int deltaCommitsSinceCompaction,
                           List<FileSliceRow> liveSlices, Optional<CleanBlocker> cleanBlocker,
                           Optional<Integer> metadataDeltaCommitsSinceCompaction,
                           Optional<CleanableFiles> cleanable) {
  public TableBacklog {
    Objects.requireNonNull(cleanable, "cleanable is null");
    Objects.requireNonNull(cleanBlocker, "cleanBlocker is null");
    Objects.requireNonNull(metadataDeltaCommitsSinceCompaction, "metadataDeltaCommitsSinceCompaction is null");
    pendingPlans = Map.copyOf(pendingPlans);
    liveSlices = List.copyOf(liveSlices);
  }
}
