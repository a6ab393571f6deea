package io.huditsd.executors;

import io.huditsd.config.ServiceType;
import org.apache.hudi.avro.model.HoodieClusteringPlan;
import org.apache.hudi.client.HoodieJavaWriteClient;
import org.apache.hudi.common.model.HoodieAvroPayload;
import org.apache.hudi.common.table.HoodieTableMetaClient;
import org.apache.hudi.common.util.ClusteringUtils;
import org.apache.hudi.config.HoodieWriteConfig;
import org.apache.hudi.exception.HoodieWriteConflictException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.Map;
import java.util.Optional;

/**
 * Executes a clustering plan and commits the replacecommit. Unlike compaction, Hudi does not keep a heartbeat while
 * clustering runs, so the action keeps one itself: that is how another process, or this daemon after a restart,
 * tells a running plan from an abandoned one.
 *
 * <p>When the commit conflicts with a writer (see {@code IngestionFirstConflictResolutionStrategy}), the plan is
 * rolled back rather than retried, and the run ends {@code skipped}: the writer's commit stands.
 */
public final class ClusteringAction implements ServiceAction {
  private static final Logger LOG = LoggerFactory.getLogger(ClusteringAction.class);

  @Override
  public ServiceType service() {
    return ServiceType.CLUSTERING;
  }

  /** Hudi keeps no heartbeat for clustering; this action keeps one while it runs (see the class comment). */
  @Override
  public boolean keepsHeartbeat() {
    return true;
  }

  /**
   * The Java execution strategy matching the one the plan names (see {@link ClusteringStrategyMatch}), whatever the
   * table's {@code hoodie.clustering.execution.strategy.class} says.
   */
  @Override
  public Map<String, String> clientOverrides(WorkItem item, HoodieTableMetaClient metaClient) {
    if (item.instant().isEmpty()) {
      return Map.of();
    }
    HoodieClusteringPlan plan = ClusteringUtils.getPendingClusteringPlan(metaClient, item.instant().get());
    String named = plan.getStrategy() == null ? null : plan.getStrategy().getStrategyClassName();
    ClusteringStrategyMatch.Choice choice = ClusteringStrategyMatch.forPlan(named);
    LOG.info("Clustering {} of table {}: execution strategy {} ({})", item.instant().get(), item.table().id(),
        choice.className().orElse("as configured"), choice.reason());
    return choice.className()
        .map(className -> Map.of(ClusteringStrategyMatch.EXECUTION_STRATEGY_KEY, className))
        .orElse(Map.of());
  }

  @Override
  public ActionResult execute(HoodieJavaWriteClient<HoodieAvroPayload> client, Optional<String> instant) {
    String clusteringInstant = instant.orElseThrow(() -> new IllegalArgumentException("clustering needs an instant"));
    HoodieWriteConfig config = client.getConfig();
    HoodieTableMetaClient metaClient = ClientMetaClients.of(client);
    long bytesIn = PlanSizes.clusteringInputBytes(metaClient,
        ClusteringUtils.getPendingClusteringPlan(metaClient, clusteringInstant));
    long start = System.nanoTime();
    HoodieWriteConflictException conflict;
    try (PlanHeartbeat heartbeat = PlanHeartbeat.claimClustering(config, metaClient, clusteringInstant)) {
      WriteStatsTotals totals = WriteStatsTotals.of(client.cluster(clusteringInstant, true));
      return new ActionResult(service(), instant, totals.fileGroups(), bytesIn, totals.bytesWritten(),
          Duration.ofNanos(System.nanoTime() - start));
    } catch (PlanSkippedException e) {
      throw e;
    } catch (RuntimeException e) {
      conflict = writeConflict(e).orElseThrow(() -> e);
    }
    // A writer updated a file group of this plan (or is about to): the writer wins. Executing the same plan again
    // would conflict again, and a plan left pending keeps its file groups from the next plan, so the plan goes.
    // The rollback removes the plan and its partial output under the table lock; the next poll plans anew, around
    // the file groups the writer just wrote.
    client.rollback(clusteringInstant);
    throw new YieldedToWriterException("clustering " + clusteringInstant + " yielded to a writer and was rolled back"
        + " (planned anew at the next poll): " + conflict.getMessage());
  }

  /** The write conflict behind a failed clustering commit, if that is why it failed. */
  static Optional<HoodieWriteConflictException> writeConflict(Throwable failure) {
    for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
      if (cause instanceof HoodieWriteConflictException conflict) {
        return Optional.of(conflict);
      }
    }
    return Optional.empty();
  }

  /** A clustering run that gave way to a writer: not a failure of the daemon, and not to be retried as it was. */
  public static final class YieldedToWriterException extends PlanSkippedException {
    public YieldedToWriterException(String message) {
      super(message);
    }
  }
}
