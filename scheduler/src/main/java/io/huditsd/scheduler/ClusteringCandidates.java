package io.huditsd.scheduler;

import io.huditsd.config.ServiceType;
import io.huditsd.executors.ByteSize;
import io.huditsd.executors.PendingPlan;
import io.huditsd.executors.PendingPlans;
import io.huditsd.executors.clustering.HotAwareClusteringPlanStrategy;
import io.huditsd.executors.clustering.HotFileGroups;
import org.apache.hudi.common.config.HoodieMetadataConfig;
import org.apache.hudi.common.engine.HoodieLocalEngineContext;
import org.apache.hudi.common.fs.FSUtils;
import org.apache.hudi.common.model.FileSlice;
import org.apache.hudi.common.model.HoodieFileGroupId;
import org.apache.hudi.common.table.HoodieTableMetaClient;
import org.apache.hudi.common.table.view.FileSystemViewManager;
import org.apache.hudi.common.table.view.HoodieTableFileSystemView;
import org.apache.hudi.config.HoodieWriteConfig;

import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Why a due clustering wrote no plan, counted as Hudi's size-based planner counts: the latest file slices of every
 * partition, those below {@code hoodie.clustering.plan.strategy.small.file.limit}, of those the ones under another
 * pending plan (Hudi leaves them out) and the ones the daemon's planner left out as hot ({@link HotFileGroups}).
 * Hudi drops a partition's group of one file slice (nothing to merge it with), so a partition with fewer than two
 * candidates left contributes none. Read only when Hudi planned nothing, so an idle table pays nothing for it.
 *
 * @param fileGroups latest file slices of the table
 * @param small those below the small-file limit
 * @param underPlan small ones under a pending compaction or clustering plan
 * @param hot small ones not under a plan that the planner leaves out as hot
 * @param left small ones neither under a plan nor hot, in partitions with at least two of them
 */
record ClusteringCandidates(int fileGroups, int small, int underPlan, int hot, int left, long smallFileLimit,
                            boolean hotAware, HotFileGroups hotSettings) {
  static final String SMALL_FILE_LIMIT_KEY = "hoodie.clustering.plan.strategy.small.file.limit";

  static ClusteringCandidates read(HoodieTableMetaClient metaClient, HoodieWriteConfig config, Instant now) {
    long limit = config.getClusteringSmallFileLimit();
    boolean hotAware = hotAware(config.getClusteringPlanStrategyClass());
    HotFileGroups settings = HotFileGroups.of(config);
    Set<HoodieFileGroupId> hotGroups = hotAware && !settings.disabled() ? settings.find(metaClient, now) : Set.of();
    Set<String> planned = new HashSet<>();
    for (PendingPlan plan : PendingPlans.list(metaClient)) {
      planned.addAll(plan.fileGroupIds());
    }
    HoodieLocalEngineContext context = new HoodieLocalEngineContext(metaClient.getStorageConf());
    // Listed as Hudi's planner lists them: from the metadata table where the table has one, not a LIST per partition.
    HoodieMetadataConfig listing = config.getMetadataConfig();
    List<String> partitions = FSUtils.getAllPartitionPaths(context, metaClient, listing);
    int fileGroups = 0;
    int small = 0;
    int underPlan = 0;
    int hot = 0;
    int left = 0;
    try (HoodieTableFileSystemView view = FileSystemViewManager.createInMemoryFileSystemViewWithTimeline(context,
        metaClient, listing,
        metaClient.getActiveTimeline().getWriteTimeline().filterCompletedAndCompactionInstants())) {
      for (String partition : partitions) {
        int leftHere = 0;
        for (FileSlice slice : view.getLatestFileSlices(partition).toList()) {
          fileGroups++;
          if (slice.getBaseFile().isPresent() && slice.getBaseFile().get().getFileSize() >= limit) {
            continue;
          }
          small++;
          if (planned.contains(slice.getPartitionPath() + "/" + slice.getFileId())) {
            underPlan++;
          } else if (hotAware && !settings.disabled()
              && (hotGroups.contains(slice.getFileGroupId()) || settings.recentlyWritten(slice, now))) {
            hot++;
          } else {
            leftHere++;
          }
        }
        left += leftHere > 1 ? leftHere : 0;
      }
    }
    return new ClusteringCandidates(fileGroups, small, underPlan, hot, left, limit, hotAware, settings);
  }

  /** Whether the plan strategy leaves hot file groups out (the daemon's default, and the binary-copy one). */
  private static boolean hotAware(String strategyClass) {
    try {
      return HotAwareClusteringPlanStrategy.class.isAssignableFrom(Class.forName(strategyClass));
    } catch (ClassNotFoundException | LinkageError e) {
      return false;
    }
  }

  /** The one line that says why nothing was planned, naming the keys that change it. */
  ServiceDecision decision() {
    if (fileGroups == 0) {
      return decision(ServiceDecision.Reason.NOTHING_TO_PLAN, "the table has no file groups yet");
    }
    if (small == 0) {
      return decision(ServiceDecision.Reason.NO_SMALL_FILES, "nothing below the small-file limit (" + fileGroups
          + " files >= " + ByteSize.format(smallFileLimit) + "; " + SMALL_FILE_LIMIT_KEY + ")");
    }
    if (left == 0 && hot > 0) {
      return decision(ServiceDecision.Reason.HOT_FILE_GROUPS, "hot file groups left out: " + hot + " of " + small
          + " small ones (written by the last " + hotSettings.commits() + " writer commits or in the last "
          + hotSettings.window().toMinutes() + " min; " + HotFileGroups.COMMITS_KEY + ", " + HotFileGroups.MINUTES_KEY
          + " change it, both 0 turn it off)" + (underPlan > 0 ? "; " + underPlan + " under a pending plan" : ""));
    }
    if (left == 0 && underPlan > 0) {
      return decision(ServiceDecision.Reason.UNDER_PENDING_PLAN, "every candidate is under a pending plan ("
          + underPlan + " of " + small + " small file groups" + (underPlan < small ? ", the others alone in their"
          + " partitions" : "") + "); they are planned again once it completes");
    }
    if (left == 0) {
      return decision(ServiceDecision.Reason.NOTHING_TO_PLAN, "no partition has two small file groups to merge ("
          + (small - underPlan - hot) + " alone in their partitions, " + underPlan + " under a pending plan, " + hot
          + " hot; " + SMALL_FILE_LIMIT_KEY + " = " + ByteSize.format(smallFileLimit) + ")");
    }
    return decision(ServiceDecision.Reason.NOTHING_TO_PLAN, "Hudi's plan strategy planned nothing over " + left
        + " candidate file groups (" + hot + " hot, " + underPlan + " under a pending plan left out); check"
        + " hoodie.clustering.plan.partition.filter.mode and hoodie.clustering.plan.strategy.* of the table");
  }

  private static ServiceDecision decision(ServiceDecision.Reason reason, String message) {
    return ServiceDecision.of(ServiceType.CLUSTERING, reason, message);
  }
}
