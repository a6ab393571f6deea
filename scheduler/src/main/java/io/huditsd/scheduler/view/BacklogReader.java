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
import org.apache.hudi.config.HoodieWriteConfig;
import org.apache.hudi.metadata.HoodieTableMetadata;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Instant;
import java.util.Date;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/** Computes a {@link TableBacklog} from the table's storage and timeline. */
public final class BacklogReader {
  private static final Logger LOG = LoggerFactory.getLogger(BacklogReader.class);

  private final HoodieEngineContext context;

  public BacklogReader(HoodieEngineContext context) {
    this.context = context;
  }

  /**
   * @param config the table's write config: {@code hoodie.parquet.small.file.limit}, its clean policy and
   *     retention ({@code hoodie.clean.commits.retained} and the others) apply
   */
  public TableBacklog read(HoodieTableMetaClient metaClient, HoodieWriteConfig config) {
    long smallFileLimitBytes = config.getParquetSmallFileLimit();
    List<FileSliceRow> rows = FileSliceRows.read(context, metaClient, Optional.empty(), false);
    Map<String, FileSliceRow> latestByGroup = new HashMap<>();
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
        oldest, deltaCommits, rows, cleanBlocker(metaClient.getActiveTimeline(), config.getCleanerCommitsRetained()),
        metadataDeltaCommitsSinceCompaction(metaClient), CleanableFiles.read(context, metaClient, config));
  }

  /**
   * Completed delta commits on the table's metadata table since its last compaction: what Hudi compares with
   * {@code hoodie.metadata.compact.max.delta.commits}, and what grows while a pending instant on the data table holds
   * the metadata table's compaction back. Costs one read of the metadata table's properties and timeline, on polls
   * that saw the data timeline change only (idle polls keep the last backlog). A metadata table that cannot be read
   * leaves the figure out rather than failing the poll: servicing the table does not depend on it.
   */
  static Optional<Integer> metadataDeltaCommitsSinceCompaction(HoodieTableMetaClient metaClient) {
    if (!metaClient.getTableConfig().isMetadataTableAvailable()) {
      return Optional.empty();
    }
    try {
      HoodieTableMetaClient metadata = HoodieTableMetaClient.builder().setConf(metaClient.getStorageConf())
          .setBasePath(HoodieTableMetadata.getMetadataTableBasePath(metaClient.getBasePath())).build();
      Option<Pair<HoodieTimeline, HoodieInstant>> since =
          CompactionUtils.getCompletedDeltaCommitsSinceLatestCompaction(metadata.getActiveTimeline());
      return Optional.of(since.isPresent() ? since.get().getLeft().countInstants() : 0);
    } catch (RuntimeException e) {
      LOG.warn("Could not read the metadata table of {} for its compaction lag: {}", metaClient.getBasePath(),
          e.toString());
      return Optional.empty();
    }
  }

  /** The earliest pending instant, if it holds Hudi's clean boundary back (see {@link CleanBlocker}). */
  static Optional<CleanBlocker> cleanBlocker(HoodieTimeline timeline, int commitsRetained) {
    // The timeline Hudi's clean planner bounds the commits to retain with (CleanPlanner.getEarliestCommitToRetain).
    HoodieTimeline commits = timeline.getCommitsAndCompactionTimeline();
    Option<HoodieInstant> earliestPending = commits.filter(instant -> !instant.isCompleted()).firstInstant();
    if (!earliestPending.isPresent()) {
      return Optional.empty();
    }
    HoodieInstant pending = earliestPending.get();
    int after = commits.filterCompletedInstants().findInstantsAfter(pending.requestedTime(), Integer.MAX_VALUE)
        .countInstants();
    if (after <= commitsRetained) {
      return Optional.empty();
    }
    return instantOf(pending.requestedTime())
        .map(at -> new CleanBlocker(pending.requestedTime(), pending.getAction(), at, after));
  }

  static Optional<Instant> instantOf(String instantTime) {
    Option<Date> date = TimelineUtils.parseDateFromInstantTimeSafely(instantTime);
    return date.isPresent() ? Optional.of(date.get().toInstant()) : Optional.empty();
  }
}
