package io.huditsd.api.rest;

import io.huditsd.config.MetadataIndexState;
import io.huditsd.config.ServiceType;
import io.huditsd.executors.IndexProgress;
import io.huditsd.executors.clustering.HotFileGroups;
import org.apache.hudi.avro.model.HoodieCleanFileInfo;
import org.apache.hudi.avro.model.HoodieCleanerPlan;
import org.apache.hudi.avro.model.HoodieClusteringGroup;
import org.apache.hudi.avro.model.HoodieClusteringPlan;
import org.apache.hudi.avro.model.HoodieCompactionOperation;
import org.apache.hudi.avro.model.HoodieCompactionPlan;
import org.apache.hudi.avro.model.HoodieIndexPartitionInfo;
import org.apache.hudi.avro.model.HoodieIndexPlan;
import org.apache.hudi.avro.model.HoodieSliceInfo;
import org.apache.hudi.common.model.HoodieTableType;
import org.apache.hudi.common.table.HoodieTableMetaClient;
import org.apache.hudi.common.table.timeline.HoodieInstant;
import org.apache.hudi.common.table.timeline.HoodieTimeline;
import org.apache.hudi.common.table.timeline.versioning.TimelineLayoutVersion;
import org.apache.hudi.common.util.CleanerUtils;
import org.apache.hudi.common.util.ClusteringUtils;
import org.apache.hudi.common.util.CompactionUtils;
import org.apache.hudi.common.util.Option;
import org.apache.hudi.common.util.collection.Pair;
import org.apache.hudi.table.action.compact.strategy.CompactionStrategy;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;

/** Reads plans from a table's timeline and turns Hudi's Avro plans into {@link PlanView}s. */
final class PlanViews {
  private PlanViews() {
  }

  /** Pending plans, then the {@code recent} latest completed plans of each service, newest first. */
  static List<PlanView> list(HoodieTableMetaClient metaClient, int recent) {
    List<PlanView> views = new ArrayList<>();
    for (HoodieInstant instant : candidates(metaClient, recent)) {
      read(metaClient, instant).ifPresent(views::add);
    }
    return views;
  }

  static Optional<PlanView> find(HoodieTableMetaClient metaClient, String instantTime) {
    return candidates(metaClient, Integer.MAX_VALUE).stream()
        .filter(instant -> instant.requestedTime().equals(instantTime))
        .findFirst()
        .flatMap(instant -> read(metaClient, instant));
  }

  private static List<HoodieInstant> candidates(HoodieTableMetaClient metaClient, int recent) {
    HoodieTimeline timeline = metaClient.getActiveTimeline();
    List<HoodieInstant> instants = new ArrayList<>();
    instants.addAll(timeline.filterPendingCompactionTimeline().getReverseOrderedInstants().toList());
    instants.addAll(timeline.filterPendingClusteringTimeline().getReverseOrderedInstants().toList());
    instants.addAll(timeline.getCleanerTimeline().filterInflightsAndRequested().getReverseOrderedInstants().toList());
    instants.addAll(timeline.filterPendingIndexTimeline().getReverseOrderedInstants().toList());
    if (metaClient.getTableType() == HoodieTableType.MERGE_ON_READ) {
      // On MOR tables a completed "commit" is a completed compaction.
      instants.addAll(limit(timeline.getCommitTimeline().filterCompletedInstants().getReverseOrderedInstants(),
          recent));
    }
    instants.addAll(limit(timeline.getCompletedReplaceTimeline().getReverseOrderedInstants()
        .filter(instant -> ClusteringUtils.isCompletedClusteringInstant(instant, timeline)), recent));
    instants.addAll(limit(timeline.getCleanerTimeline().filterCompletedInstants().getReverseOrderedInstants(),
        recent));
    instants.addAll(limit(timeline.filterCompletedIndexTimeline().getReverseOrderedInstants(), recent));
    return instants;
  }

  private static List<HoodieInstant> limit(Stream<HoodieInstant> instants, int count) {
    return instants.limit(count).toList();
  }

  private static Optional<PlanView> read(HoodieTableMetaClient metaClient, HoodieInstant instant) {
    String state = instant.isCompleted() ? "completed" : instant.isInflight() ? "inflight" : "requested";
    String time = instant.requestedTime();
    String action = instant.getAction();
    try {
      if (HoodieTimeline.COMPACTION_ACTION.equals(action) || HoodieTimeline.COMMIT_ACTION.equals(action)) {
        HoodieCompactionPlan plan = CompactionUtils.getCompactionPlan(metaClient, time);
        return Optional.of(compaction(time, state, plan));
      }
      if (HoodieTimeline.INDEXING_ACTION.equals(action)) {
        return Optional.of(index(metaClient, instant, state));
      }
      if (HoodieTimeline.CLEAN_ACTION.equals(action)) {
        HoodieInstant requested = metaClient.getInstantGenerator().getCleanRequestedInstant(time);
        return Optional.of(clean(time, state, CleanerUtils.getCleanerPlan(metaClient, requested)));
      }
      Option<Pair<HoodieInstant, HoodieClusteringPlan>> plan = ClusteringUtils.getClusteringPlan(metaClient,
          requestedClustering(metaClient, instant));
      return plan.isPresent() ? Optional.of(clustering(time, state, plan.get().getRight())) : Optional.empty();
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read the plan of " + instant + " of " + metaClient.getBasePath(), e);
    } catch (RuntimeException e) {
      // A completed commit whose requested plan was archived or never written (not a compaction) has no plan.
      return Optional.empty();
    }
  }

  /**
   * The requested instant that holds a clustering plan. A completed clustering is a {@code replacecommit}; its plan
   * sits in {@code <t>.clustering.requested} on timeline layout 2 (table version 8+) and in
   * {@code <t>.replacecommit.requested} before.
   */
  private static HoodieInstant requestedClustering(HoodieTableMetaClient metaClient, HoodieInstant instant) {
    if (!instant.isCompleted()) {
      return instant;
    }
    return TimelineLayoutVersion.LAYOUT_VERSION_2.equals(metaClient.getTimelineLayoutVersion())
        ? metaClient.getInstantGenerator().getClusteringCommitRequestedInstant(instant.requestedTime())
        : metaClient.getInstantGenerator().getReplaceCommitRequestedInstant(instant.requestedTime());
  }

  static PlanView compaction(String instant, String state, HoodieCompactionPlan plan) {
    List<PlanView.CompactionOperationView> operations = new ArrayList<>();
    if (plan.getOperations() != null) {
      for (HoodieCompactionOperation operation : plan.getOperations()) {
        Map<String, Double> metrics = operation.getMetrics() == null ? Map.of() : operation.getMetrics();
        Double logBytes = metrics.get(CompactionStrategy.TOTAL_LOG_FILE_SIZE);
        operations.add(new PlanView.CompactionOperationView(operation.getPartitionPath(), operation.getFileId(),
            operation.getBaseInstantTime(), operation.getDataFilePath(),
            operation.getDeltaFilePaths() == null ? List.of() : List.copyOf(operation.getDeltaFilePaths()),
            logBytes == null ? 0 : logBytes.longValue(), new LinkedHashMap<>(metrics)));
      }
    }
    return new PlanView(ServiceType.COMPACTION.configName(), instant, state, operations, null, null);
  }

  static PlanView clustering(String instant, String state, HoodieClusteringPlan plan) {
    List<PlanView.ClusteringGroupView> groups = new ArrayList<>();
    for (HoodieClusteringGroup group : plan.getInputGroups()) {
      List<PlanView.ClusteringSliceView> slices = new ArrayList<>();
      for (HoodieSliceInfo slice : group.getSlices()) {
        slices.add(new PlanView.ClusteringSliceView(slice.getPartitionPath(), slice.getFileId(),
            slice.getDataFilePath(),
            slice.getDeltaFilePaths() == null ? List.of() : List.copyOf(slice.getDeltaFilePaths())));
      }
      groups.add(new PlanView.ClusteringGroupView(group.getNumOutputFileGroups(), slices,
          group.getMetrics() == null ? Map.of() : new LinkedHashMap<>(group.getMetrics())));
    }
    String strategyClass = plan.getStrategy() == null ? null : plan.getStrategy().getStrategyClassName();
    Map<String, String> params = plan.getStrategy() == null || plan.getStrategy().getStrategyParams() == null
        ? Map.of() : new LinkedHashMap<>(plan.getStrategy().getStrategyParams());
    return new PlanView(ServiceType.CLUSTERING.configName(), instant, state, null,
        new PlanView.ClusteringView(strategyClass, params, groups, HotFileGroups.skippedIn(plan)), null);
  }

  private static PlanView index(HoodieTableMetaClient metaClient, HoodieInstant instant, String state)
      throws IOException {
    String time = instant.requestedTime();
    MetadataIndexState.PendingIndexPlan pending = MetadataIndexState.read(metaClient).pendingPlans().get(time);
    if (pending != null) {
      IndexProgress progress = IndexProgress.of(metaClient, pending);
      return new PlanView(ServiceType.INDEX.configName(), time, state, null, null, null, new PlanView.IndexView(
          pending.partitions(), pending.baseInstant(), progress.phase(), progress.commitsToCatchUp()));
    }
    HoodieIndexPlan plan = metaClient.getActiveTimeline().readIndexPlan(
        metaClient.getInstantGenerator().getIndexRequestedInstant(time));
    List<String> partitions = new ArrayList<>();
    String base = null;
    for (HoodieIndexPartitionInfo info : plan.getIndexPartitionInfos()) {
      partitions.add(info.getMetadataPartitionPath());
      base = info.getIndexUptoInstant();
    }
    return new PlanView(ServiceType.INDEX.configName(), time, state, null, null, null,
        new PlanView.IndexView(partitions, base, state, null));
  }

  /** What a dry run of index scheduling shows: the wanted indexes the table lacks, which a plan would build. */
  static PlanView indexPreview(List<String> partitions) {
    return new PlanView(ServiceType.INDEX.configName(), null, "preview", null, null, null,
        new PlanView.IndexView(partitions, null, "preview", null));
  }

  static PlanView clean(String instant, String state, HoodieCleanerPlan plan) {
    Map<String, List<String>> files = new LinkedHashMap<>();
    long count = 0;
    if (plan.getFilePathsToBeDeletedPerPartition() != null) {
      for (Map.Entry<String, List<HoodieCleanFileInfo>> entry : plan.getFilePathsToBeDeletedPerPartition().entrySet()) {
        List<String> paths = entry.getValue().stream().map(HoodieCleanFileInfo::getFilePath).toList();
        files.put(entry.getKey(), paths);
        count += paths.size();
      }
    }
    String earliest = plan.getEarliestInstantToRetain() == null ? null
        : plan.getEarliestInstantToRetain().getTimestamp();
    return new PlanView(ServiceType.CLEAN.configName(), instant, state, null, null,
        new PlanView.CleanView(plan.getPolicy() == null ? null : plan.getPolicy().toLowerCase(Locale.ROOT), earliest,
            files, count));
  }
}
