package io.huditsd.executors;

import io.huditsd.config.ServiceType;
import org.apache.hudi.avro.model.HoodieClusteringPlan;
import org.apache.hudi.client.HoodieJavaWriteClient;
import org.apache.hudi.common.model.HoodieAvroPayload;
import org.apache.hudi.common.table.HoodieTableMetaClient;
import org.apache.hudi.common.util.ClusteringUtils;
import org.apache.hudi.exception.HoodieLockException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;

/**
 * Runs one work item: checks that the table's instant files are readable (see {@link InstantFileCheck}) and that its
 * plan is still pending and not held by a live process, then executes it with a fresh write client. A clustering
 * plan is executed with the Java strategy matching the one it names (see {@link ClusteringStrategyMatch}), whatever
 * the table's {@code hoodie.clustering.execution.strategy.class} says.
 */
public final class PlanRunner implements Function<WorkItem, ActionResult> {
  private static final Logger LOG = LoggerFactory.getLogger(PlanRunner.class);
  private final HudiTables tables;
  private final PlanLiveness liveness;
  private final Map<ServiceType, ServiceAction> actions = new EnumMap<>(ServiceType.class);

  public PlanRunner(HudiTables tables, List<ServiceAction> actions) {
    this.tables = Objects.requireNonNull(tables, "tables is null");
    this.liveness = new PlanLiveness(tables.heartbeat());
    for (ServiceAction action : actions) {
      this.actions.put(action.service(), action);
    }
  }

  public static PlanRunner withDefaultActions(HudiTables tables) {
    return new PlanRunner(tables, List.of(new CompactionAction(), new ClusteringAction(), new CleanAction(),
        new ArchiveAction(), new IndexAction()));
  }

  @Override
  public ActionResult apply(WorkItem item) {
    ServiceAction action = actions.get(item.service());
    if (action == null) {
      throw new IllegalStateException("No action for service " + item.service());
    }
    HoodieTableMetaClient metaClient = tables.metaClient(item.table().basePath());
    // The poll that enqueued this item may predate a corrupt instant file: nothing runs over a timeline Hudi misreads.
    tables.instantFiles().verify(metaClient);
    if (item.instant().isPresent() && item.service() != ServiceType.ARCHIVE) {
      checkStillPending(item, metaClient);
    }
    try (HoodieJavaWriteClient<HoodieAvroPayload> client = tables.writeClient(item.table(), overrides(item))) {
      return action.execute(client, item.instant());
    } catch (HoodieLockException e) {
      // Two processes that both found the plan requested race to start it; Hudi decides under the table lock
      // (BaseHoodieTableServiceClient.validateHeartBeat: the winner's heartbeat is alive) and the loser gets this.
      // The plan is being executed, which is what this run was for.
      if (item.instant().isPresent() && String.valueOf(e.getMessage()).contains(CONCURRENT_HEARTBEAT)) {
        throw new PlanSkippedException("plan " + item.instant().get() + " is being executed by another process "
            + "(Hudi found its heartbeat when this run started)");
      }
      throw e;
    }
  }

  /** The message of Hudi 1.2.0's HoodieLockException when another process's heartbeat holds the instant. */
  static final String CONCURRENT_HEARTBEAT = "due to heartbeat by concurrent writer/job";

  /** Keys that this item's client needs on top of the table's: for clustering, the strategy its plan names. */
  private Map<String, String> overrides(WorkItem item) {
    if (item.service() != ServiceType.CLUSTERING || item.instant().isEmpty()) {
      return Map.of();
    }
    HoodieTableMetaClient metaClient = tables.metaClient(item.table().basePath());
    HoodieClusteringPlan plan = ClusteringUtils.getPendingClusteringPlan(metaClient, item.instant().get());
    String named = plan.getStrategy() == null ? null : plan.getStrategy().getStrategyClassName();
    ClusteringStrategyMatch.Choice choice = ClusteringStrategyMatch.forPlan(named);
    LOG.info("Clustering {} of table {}: execution strategy {} ({})", item.instant().get(), item.table().id(),
        choice.className().orElse("as configured"), choice.reason());
    return choice.className()
        .map(className -> Map.of(ClusteringStrategyMatch.EXECUTION_STRATEGY_KEY, className))
        .orElse(Map.of());
  }

  private void checkStillPending(WorkItem item, HoodieTableMetaClient metaClient) {
    String instant = item.instant().orElseThrow();
    Optional<PendingPlan> plan = PendingPlans.find(metaClient, instant)
        .filter(pending -> pending.service() == item.service());
    if (plan.isEmpty()) {
      throw new PlanSkippedException("plan " + instant + " is no longer pending (completed or rolled back elsewhere)");
    }
    if (plan.get().inflight() && item.service() != ServiceType.CLEAN && liveness.isAlive(metaClient, instant)) {
      throw new PlanSkippedException("plan " + instant + " is being executed by a live process (heartbeat within "
          + tables.heartbeat().expiryMillis() + " ms)");
    }
  }
}
