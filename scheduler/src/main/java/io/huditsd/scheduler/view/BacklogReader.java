package io.huditsd.scheduler.view;

import io.huditsd.config.ServiceType;
import io.huditsd.executors.PendingPlan;
import io.huditsd.executors.PendingPlans;
import org.apache.hudi.common.engine.HoodieEngineContext;
import org.apache.hudi.common.table.HoodieTableMetaClient;
import org.apache.hudi.common.table.timeline.HoodieInstant;
import org.apache.hudi.common.table.timeline.HoodieTimeline;
import org.apache.hudi.common.table.timeline.TimelineUtils;
import org.apache.hudi.common.util.CompactionUtils;
import org.apache.hudi.common.util.Option;
import org.apache.hudi.common.util.collection.Pair;

import java.time.Instant;
import java.util.Date;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/** Computes a {@link TableBacklog} from the table's storage and timeline. */
public final class BacklogReader {
  private final HoodieEngineContext context;

  public BacklogReader(HoodieEngineContext context) {
    this.context = context;
  }

  public TableBacklog read(HoodieTableMetaClient metaClient, long smallFileLimitBytes) {
    List<FileSliceRow> rows = FileSliceRows.read(context, metaClient, Optional.empty(), false);
    Map<String, FileSliceRow> latestByGroup = new java.util.HashMap<>();
    for (FileSliceRow row : rows) {
      // Rows are sorted by base instant within a file group, so the last one wins.
      latestByGroup.put(row.partitionPath() + "/" + row.fileId(), row);
    }
    Set<String> groups = new HashSet<>(latestByGroup.keySet());
    long logFiles = 0;
    long scheduled = 0;
    long unscheduled = 0;
    for (FileSliceRow row : rows) {
      logFiles += row.logFileCount();
      scheduled += row.logFileScheduled();
      unscheduled += row.logFileUnscheduled();
    }
    long smallBaseFiles = latestByGroup.values().stream()
        .filter(row -> row.baseFilePath() != null && row.baseFileSize() < smallFileLimitBytes).count();

    Map<ServiceType, Integer> pending = new EnumMap<>(ServiceType.class);
    Optional<Instant> oldest = Optional.empty();
    for (PendingPlan plan : PendingPlans.list(metaClient)) {
      pending.merge(plan.service(), 1, Integer::sum);
      Optional<Instant> requested = instantOf(plan.instant());
      if (requested.isPresent() && (oldest.isEmpty() || requested.get().isBefore(oldest.get()))) {
        oldest = requested;
      }
    }
    Option<Pair<HoodieTimeline, HoodieInstant>> sinceCompaction =
        CompactionUtils.getCompletedDeltaCommitsSinceLatestCompaction(metaClient.getActiveTimeline());
    int deltaCommits = sinceCompaction.isPresent() ? sinceCompaction.get().getLeft().countInstants() : 0;
    return new TableBacklog(Instant.now(), groups.size(), logFiles, scheduled, unscheduled, smallBaseFiles, pending,
        oldest, deltaCommits, rows);
  }

  static Optional<Instant> instantOf(String instantTime) {
    Option<Date> date = TimelineUtils.parseDateFromInstantTimeSafely(instantTime);
    return date.isPresent() ? Optional.of(date.get().toInstant()) : Optional.empty();
  }
}
