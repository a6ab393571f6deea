package io.huditsd.executors;

import io.huditsd.config.MetadataIndexState;
import io.huditsd.config.ServiceType;
import org.apache.hudi.avro.model.HoodieIndexCommitMetadata;
import org.apache.hudi.client.HoodieJavaWriteClient;
import org.apache.hudi.common.model.HoodieAvroPayload;
import org.apache.hudi.common.table.HoodieTableMetaClient;
import org.apache.hudi.common.util.Option;
import org.apache.hudi.config.HoodieWriteConfig;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Executes a pending indexing plan with Hudi's indexer ({@code index}): builds the planned metadata partitions up to
 * the plan's base instant while writers go on, catches up with the commits that landed meanwhile, and commits
 * ({@code hoodie.table.metadata.partitions} then lists them).
 *
 * <p>Hudi keeps no heartbeat for an index build, so the action keeps one, as for clustering. A build that fails is
 * rolled back at once ({@link IndexRollback}); one whose heartbeat expired (the daemon died) is rolled back when
 * found; an inflight build without any heartbeat was started by another process (Hudi's {@code HoodieIndexer}),
 * which keeps none, and is left to it.
 */
public final class IndexAction implements ServiceAction {
  private static final Logger LOG = LoggerFactory.getLogger(IndexAction.class);
  private static final Duration PROGRESS_INTERVAL = Duration.ofSeconds(30);

  @Override
  public ServiceType service() {
    return ServiceType.INDEX;
  }

  @Override
  public ActionResult execute(HoodieJavaWriteClient<HoodieAvroPayload> client, Optional<String> instant) {
    String indexInstant = instant.orElseThrow(() -> new IllegalArgumentException("index needs an instant"));
    HoodieWriteConfig config = client.getConfig();
    HoodieTableMetaClient metaClient = ClientMetaClients.of(client);
    MetadataIndexState.PendingIndexPlan plan = MetadataIndexState.read(metaClient).pendingPlans().get(indexInstant);
    if (plan == null) {
      throw new PlanSkippedException("indexing plan " + indexInstant + " is no longer pending");
    }
    long start = System.nanoTime();
    if (plan.inflight()) {
      // PlanRunner skips plans whose heartbeat is alive; this one has none or an expired one.
      if (!PlanLiveness.hasHeartbeat(metaClient, indexInstant)) {
        throw new PlanSkippedException("index build " + indexInstant + " is inflight without a heartbeat: another "
            + "process (Hudi's HoodieIndexer) runs it; hudi-tsd leaves it to that process");
      }
      List<String> removed = IndexRollback.rollback(config, client.getEngineContext(), metaClient, indexInstant);
      // Nothing was built by this run: it reports skipped, and the next poll plans the index anew.
      throw new PlanSkippedException("index build " + indexInstant + " was abandoned (heartbeat expired); rolled back "
          + "partitions " + removed + ", the next poll plans it anew");
    }
    ScheduledExecutorService progress = Executors.newSingleThreadScheduledExecutor(runnable -> {
      Thread thread = new Thread(runnable, "tsd-index-progress-" + indexInstant);
      thread.setDaemon(true);
      return thread;
    });
    try (PlanHeartbeat heartbeat = PlanHeartbeat.start(metaClient.getStorage(), config, indexInstant)) {
      progress.scheduleWithFixedDelay(() -> logProgress(metaClient, plan, start), PROGRESS_INTERVAL.toMillis(),
          PROGRESS_INTERVAL.toMillis(), TimeUnit.MILLISECONDS);
      LOG.info("Building index table={} instant={} partitions={} baseInstant={}", config.getBasePath(), indexInstant,
          plan.partitions(), plan.baseInstant());
      Option<HoodieIndexCommitMetadata> committed;
      String buildStartedAt;
      try {
        buildStartedAt = client.createNewInstantTime(false);
        committed = client.index(indexInstant);
      } catch (RuntimeException e) {
        rollbackAfterFailure(client, metaClient, indexInstant, e);
        throw e;
      } finally {
        progress.shutdownNow();
        // The build is over: stop the heartbeat before the completeness check, as a finished build has none.
        heartbeat.close();
      }
      if (!committed.isPresent()) {
        throw new IllegalStateException("Hudi's indexer returned no commit for plan " + indexInstant);
      }
      Map<String, List<String>> missed = IndexCompleteness.missedCommits(HoodieTableMetaClient.reload(metaClient),
          buildStartedAt, plan.partitions());
      if (!missed.isEmpty()) {
        IndexRollback.dropIncomplete(config, client.getEngineContext(), metaClient, List.copyOf(missed.keySet()));
        throw new IllegalStateException("Index build " + indexInstant + " of " + config.getBasePath()
            + " committed without the entries of writer commits " + missed + " (Hudi's catch-up skips a commit"
            + " whose writer had not seen the new partition yet); the incomplete index was dropped and is built anew");
      }
      int partitions = committed.get().getIndexPartitionInfos().size();
      return new ActionResult(service(), instant, partitions, 0, 0, Duration.ofNanos(System.nanoTime() - start));
    }
  }

  private static void rollbackAfterFailure(HoodieJavaWriteClient<HoodieAvroPayload> client,
                                           HoodieTableMetaClient metaClient, String indexInstant, RuntimeException e) {
    try {
      MetadataIndexState.PendingIndexPlan now = MetadataIndexState.read(HoodieTableMetaClient.reload(metaClient))
          .pendingPlans().get(indexInstant);
      // Still requested: Hudi refused before starting (nothing to undo). Inflight: this run started it.
      if (now != null && now.inflight()) {
        IndexRollback.rollback(client.getConfig(), client.getEngineContext(), metaClient, indexInstant);
      }
    } catch (RuntimeException rollbackFailure) {
      // The heartbeat expires and the next run finds and rolls back the build.
      e.addSuppressed(rollbackFailure);
    }
  }

  private static void logProgress(HoodieTableMetaClient metaClient, MetadataIndexState.PendingIndexPlan plan,
                                  long start) {
    try {
      HoodieTableMetaClient fresh = HoodieTableMetaClient.reload(metaClient);
      MetadataIndexState.PendingIndexPlan now = MetadataIndexState.read(fresh).pendingPlans().get(plan.instant());
      if (now == null) {
        return;
      }
      IndexProgress progress = IndexProgress.of(fresh, now);
      LOG.info("Index build table={} instant={} partitions={} phase={} commitsSinceBase={} runningSeconds={}",
          metaClient.getBasePath(), plan.instant(), plan.partitions(), progress.phase(), progress.commitsToCatchUp(),
          Duration.ofNanos(System.nanoTime() - start).toSeconds());
    } catch (RuntimeException e) {
      LOG.debug("Cannot read the progress of index build {}", plan.instant(), e);
    }
  }
}
