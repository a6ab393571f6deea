package io.huditsd.scheduler;

import io.huditsd.config.ServiceType;
import io.huditsd.config.ServicedTable;
import io.huditsd.executors.ClusteringAction;
import io.huditsd.executors.PendingPlan;
import io.huditsd.executors.ServiceAction;
import io.huditsd.executors.clustering.HotFileGroups;
import org.apache.hudi.client.HoodieJavaWriteClient;
import org.apache.hudi.common.model.HoodieAvroPayload;
import org.apache.hudi.common.table.HoodieTableMetaClient;
import org.apache.hudi.common.table.timeline.HoodieActiveTimeline;
import org.apache.hudi.common.table.timeline.HoodieInstant;
import org.apache.hudi.common.util.ClusteringUtils;
import org.apache.hudi.common.util.Option;
import org.apache.hudi.config.HoodieWriteConfig;

import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Clustering: rewrites (or, with the binary-copy strategy, stitches) small files of a file-group set into fewer,
 * larger ones.
 *
 * <ul>
 *   <li>Due: by Hudi's trigger {@code hoodie.clustering.inline.max.commits}, commits counted since the last
 *       clustering.</li>
 *   <li>Scheduled: {@code scheduleClustering} with the table's plan strategy (by default the daemon's
 *       {@code HotAwareClusteringPlanStrategy}, which leaves out file groups writers wrote recently). Where the plan
 *       would execute in the daemon, its groups are kept small enough that one group's rewrite fits the memory
 *       budget ({@link GroupCap}).</li>
 *   <li>Run: {@link ClusteringAction}, with the Java execution strategy matching the plan's; Hudi keeps no heartbeat
 *       for clustering, so the action keeps one.</li>
 * </ul>
 */
public final class ClusteringService implements PlannedService {
  private static final String MAX_COMMITS_KEY = "hoodie.clustering.inline.max.commits";
  private static final Map<String, String> FORCE_NOW = Map.of(MAX_COMMITS_KEY, "1");

  private final ClusteringAction action = new ClusteringAction();
  private final GroupCap groupCap;

  /** @param memoryBudgetBytes {@code workers.memoryBudget} in bytes; {@link Long#MAX_VALUE} for none */
  public ClusteringService(long memoryBudgetBytes) {
    this.groupCap = new GroupCap(memoryBudgetBytes);
  }

  /** Forgets a table no longer serviced. */
  void forget(String tableId) {
    groupCap.forget(tableId);
  }

  /** The tables whose group cap was announced. */
  Set<String> tables() {
    return groupCap.tables();
  }

  @Override
  public ServiceType type() {
    return ServiceType.CLUSTERING;
  }

  @Override
  public ServiceAction action() {
    return action;
  }

  @Override
  public Due due(ServicedTable table, HoodieTableMetaClient metaClient, HoodieWriteConfig config, long nowMillis) {
    Optional<ServiceDecision> notDue = notDue(metaClient, config);
    return notDue.<Due>map(Due.No::new).orElseGet(() -> Due.yes(client -> schedule(table, client)));
  }

  /** What Hudi's plan strategy left out, counted again on the timeline the round planned against. */
  @Override
  public ServiceDecision nothingPlanned(ServicedTable table, HoodieTableMetaClient metaClient,
                                        HoodieWriteConfig config) {
    return ClusteringCandidates.read(metaClient, config, Instant.now()).decision();
  }

  @Override
  public Optional<Scheduling> onRequest(ServicedTable table, HoodieTableMetaClient metaClient) {
    return Optional.of(client -> schedule(table, client));
  }

  @Override
  public Map<String, String> forceNowKeys() {
    return FORCE_NOW;
  }

  /**
   * " skippedHot=K": the file groups the planner left out because writers wrote them recently (see
   * HotAwareClusteringPlanStrategy), also counted in {@code tsd_clustering_file_groups_skipped_hot_total}.
   */
  @Override
  public String scheduledDetail(ServicedTable table, HoodieTableMetaClient metaClient, PendingPlan plan) {
    int skipped = HotFileGroups.skippedIn(ClusteringUtils.getPendingClusteringPlan(metaClient, plan.instant()));
    IngestionMetrics.SKIPPED_HOT.labelValues(table.id()).inc(skipped);
    return " skippedHot=" + skipped;
  }

  private Option<String> schedule(ServicedTable table, HoodieJavaWriteClient<HoodieAvroPayload> client) {
    return groupCap.whilePlanning(table, client.getConfig(), () -> client.scheduleClustering(Option.empty()));
  }

  /** Hudi's clustering trigger, evaluated on the loaded timeline. */
  static boolean triggerDue(HoodieTableMetaClient metaClient, HoodieWriteConfig config) {
    return notDue(metaClient, config).isEmpty();
  }

  /** Why Hudi's clustering trigger is not reached on the loaded timeline; empty when it is. */
  static Optional<ServiceDecision> notDue(HoodieTableMetaClient metaClient, HoodieWriteConfig config) {
    HoodieActiveTimeline timeline = metaClient.getActiveTimeline();
    Option<HoodieInstant> lastClustering = timeline.getLastClusteringInstant();
    int commitsSince = timeline.getCommitsTimeline().filterCompletedInstants()
        .findInstantsAfter(lastClustering.map(HoodieInstant::requestedTime).orElse("0"), Integer.MAX_VALUE)
        .countInstants();
    int wanted = config.getInlineClusterMaxCommits();
    return commitsSince >= wanted ? Optional.empty()
        : Optional.of(ServiceDecision.of(ServiceType.CLUSTERING, ServiceDecision.Reason.BELOW_TRIGGER,
            "below the trigger (" + commitsSince + " of " + wanted + " commits since the last clustering; "
                + MAX_COMMITS_KEY + ")"));
  }
}
