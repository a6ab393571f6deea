package io.huditsd.executors;

import io.huditsd.config.MetadataIndexState;
import io.huditsd.config.ServiceType;
import org.apache.hudi.avro.model.HoodieClusteringPlan;
import org.apache.hudi.avro.model.HoodieCompactionOperation;
import org.apache.hudi.avro.model.HoodieCompactionPlan;
import org.apache.hudi.common.model.HoodieFileGroupId;
import org.apache.hudi.common.table.HoodieTableMetaClient;
import org.apache.hudi.common.table.timeline.HoodieInstant;
import org.apache.hudi.common.table.timeline.HoodieTimeline;
import org.apache.hudi.common.util.ClusteringUtils;
import org.apache.hudi.common.util.CompactionUtils;
import org.apache.hudi.common.util.Option;
import org.apache.hudi.common.util.collection.Pair;
import org.apache.hudi.table.action.compact.strategy.CompactionStrategy;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

/** Reads the pending plans of a table from its active timeline. */
public final class PendingPlans {
  private static final Logger LOG = LoggerFactory.getLogger(PendingPlans.class);

  private PendingPlans() {
  }

  public static List<PendingPlan> list(HoodieTableMetaClient metaClient) {
    HoodieTimeline timeline = metaClient.getActiveTimeline();
    List<PendingPlan> plans = new ArrayList<>();
    for (HoodieInstant instant : timeline.filterPendingCompactionTimeline().getInstants()) {
      HoodieCompactionPlan plan = CompactionUtils.getCompactionPlan(metaClient, instant.requestedTime());
      plans.add(new PendingPlan(ServiceType.COMPACTION, instant.requestedTime(), instant.isInflight(),
          compactionFileGroups(plan), compactionLogBytes(plan)));
    }
    for (HoodieInstant instant : timeline.filterPendingClusteringTimeline().getInstants()) {
      Option<Pair<HoodieInstant, HoodieClusteringPlan>> plan = ClusteringUtils.getClusteringPlan(metaClient, instant);
      Set<String> fileGroups = plan.isPresent()
          ? ClusteringUtils.getFileGroupsFromClusteringPlan(plan.get().getRight())
              .map(PendingPlans::fileGroupKey).collect(Collectors.toSet())
          : Set.of();
      plans.add(new PendingPlan(ServiceType.CLUSTERING, instant.requestedTime(), instant.isInflight(), fileGroups, 0));
    }
    for (HoodieInstant instant : timeline.getCleanerTimeline().filterInflightsAndRequested().getInstants()) {
      plans.add(new PendingPlan(ServiceType.CLEAN, instant.requestedTime(), instant.isInflight(), Set.of(), 0));
    }
    for (MetadataIndexState.PendingIndexPlan plan : MetadataIndexState.read(metaClient).pendingPlans().values()) {
      // The partitions being built stand in for file groups: two builds of one partition never run together.
      plans.add(new PendingPlan(ServiceType.INDEX, plan.instant(), plan.inflight(),
          plan.partitions().stream().map(partition -> ".metadata/" + partition).collect(Collectors.toSet()), 0));
    }
    if (!timeline.filterPendingLogCompactionTimeline().empty()) {
      // Written by a writer with log compaction on; the Java engine cannot execute it, so it is left to that writer.
      LOG.warn("Table {} has pending log compaction plans {}; hudi-tsd does not execute log compaction",
          metaClient.getBasePath(), timeline.filterPendingLogCompactionTimeline().getInstants());
    }
    return plans;
  }

  /**
   * The pending plan at {@code instant}, of whichever service: the one lookup of "is this plan still pending" for
   * REST, the table service manager endpoint, the runner and the scheduler. An instant names one plan on a
   * timeline; callers that expect a service check {@link PendingPlan#service()}.
   */
  public static Optional<PendingPlan> find(HoodieTableMetaClient metaClient, String instant) {
    return list(metaClient).stream().filter(plan -> plan.instant().equals(instant)).findFirst();
  }

  static Set<String> compactionFileGroups(HoodieCompactionPlan plan) {
    if (plan.getOperations() == null) {
      return Set.of();
    }
    return plan.getOperations().stream()
        .map(operation -> operation.getPartitionPath() + "/" + operation.getFileId())
        .collect(Collectors.toSet());
  }

  static long compactionLogBytes(HoodieCompactionPlan plan) {
    if (plan.getOperations() == null) {
      return 0;
    }
    long bytes = 0;
    for (HoodieCompactionOperation operation : plan.getOperations()) {
      Map<String, Double> metrics = operation.getMetrics();
      if (metrics != null && metrics.get(CompactionStrategy.TOTAL_LOG_FILE_SIZE) != null) {
        bytes += metrics.get(CompactionStrategy.TOTAL_LOG_FILE_SIZE).longValue();
      }
    }
    return bytes;
  }

  static String fileGroupKey(HoodieFileGroupId id) {
    return id.getPartitionPath() + "/" + id.getFileId();
  }
}
