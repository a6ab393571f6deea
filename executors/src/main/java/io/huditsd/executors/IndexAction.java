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

  /** Hudi keeps no heartbeat for an index build; this action keeps one while it builds (see the class comment). */
  @Override
  public boolean keepsHeartbeat() {
    return true;
  }

  @Override
  public ActionResult execute(HoodieJavaWriteClient<HoodieAvroPayload> client, Optional<String> instant) {
    String indexInstant = instant.orElseThrow(() -> new IllegalArgumentException("index needs an instant"));
    HoodieTableMetaClient metaClient = ClientMetaClients.of(client);
    MetadataIndexState.PendingIndexPlan plan = pendingPlan(metaClient, indexInstant);
    long start = System.nanoTime();
    if (plan.inflight()) {
      throw skipInflight(client, metaClient, indexInstant);
    }
    Build build = build(client, metaClient, plan, start);
    dropIfIncomplete(client, metaClient, plan, build.startedAt());
    int partitions = build.committed().getIndexPartitionInfos().size();
    return new ActionResult(service(), instant, partitions, 0, 0, Duration.ofNanos(System.nanoTime() - start));
  }

  /** The plan as the timeline holds it now; a run of a plan that is gone is skipped. */
  private static MetadataIndexState.PendingIndexPlan pendingPlan(HoodieTableMetaClient metaClient,
                                                                 String indexInstant) {
    MetadataIndexState.PendingIndexPlan plan = MetadataIndexState.read(metaClient).pendingPlans().get(indexInstant);
    if (plan == null) {
      throw new PlanSkippedException("indexing plan " + indexInstant + " is no longer pending");
    }
    return plan;
  }

  /**
   * An inflight build that reached this run: PlanRunner skips plans whose heartbeat is alive, so this one has none
   * (another process's, left to it) or an expired one (this daemon died mid-build: rolled back here).
   *
   * @return the skip to throw: nothing was built by this run, and the next poll plans the index anew
   */
  private static PlanSkippedException skipInflight(HoodieJavaWriteClient<HoodieAvroPayload> client,
                                                   HoodieTableMetaClient metaClient, String indexInstant) {
    if (!PlanLiveness.hasHeartbeat(metaClient, indexInstant)) {
      return new PlanSkippedException("index build " + indexInstant + " is inflight without a heartbeat: another "
          + "process (Hudi's HoodieIndexer) runs it; hudi-tsd leaves it to that process");
    }
    List<String> removed = IndexRollback.rollback(client.getConfig(), client.getEngineContext(), metaClient,
        indexInstant);
    return new PlanSkippedException("index build " + indexInstant + " was abandoned (heartbeat expired); rolled back "
        + "partitions " + removed + ", the next poll plans it anew");
  }

  /**
   * What Hudi's indexer committed.
   *
   * @param committed the index commit's metadata
   * @param startedAt an instant time taken just before the build started: the writer commits since then must be in
   *     the index (see {@link IndexCompleteness})
   */
  private record Build(HoodieIndexCommitMetadata committed, String startedAt) {
  }

  /**
   * Builds the plan's partitions with Hudi's indexer, keeping the plan's heartbeat and logging progress while it
   * runs; a build that fails is rolled back at once (see {@link #rollbackAfterFailure}).
   */
  private static Build build(HoodieJavaWriteClient<HoodieAvroPayload> client, HoodieTableMetaClient metaClient,
                             MetadataIndexState.PendingIndexPlan plan, long start) {
    HoodieWriteConfig config = client.getConfig();
    String indexInstant = plan.instant();
    ScheduledExecutorService progress = progressLogger(indexInstant);
    try (PlanHeartbeat heartbeat = PlanHeartbeat.start(metaClient.getStorage(), config, indexInstant)) {
      progress.scheduleWithFixedDelay(() -> logProgress(metaClient, plan, start), PROGRESS_INTERVAL.toMillis(),
          PROGRESS_INTERVAL.toMillis(), TimeUnit.MILLISECONDS);
      LOG.info("Building index table={} instant={} partitions={} baseInstant={}", config.getBasePath(), indexInstant,
          plan.partitions(), plan.baseInstant());
      Option<HoodieIndexCommitMetadata> committed;
      String startedAt;
      try {
        startedAt = client.createNewInstantTime(false);
        committed = client.index(indexInstant);
      } catch (RuntimeException e) {
        // Still under the heartbeat, so no other process takes the build for abandoned meanwhile.
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
      return new Build(committed.get(), startedAt);
    }
  }

  /**
   * Drops a committed index that lacks the entries of writer commits that landed during the build, and fails the
   * run: Hudi's catch-up skips a commit whose writer had not seen the new partition yet.
   */
  private static void dropIfIncomplete(HoodieJavaWriteClient<HoodieAvroPayload> client,
                                       HoodieTableMetaClient metaClient, MetadataIndexState.PendingIndexPlan plan,
                                       String buildStartedAt) {
    Map<String, List<String>> missed = IndexCompleteness.missedCommits(HoodieTableMetaClient.reload(metaClient),
        buildStartedAt, plan.partitions());
    if (missed.isEmpty()) {
      return;
    }
    HoodieWriteConfig config = client.getConfig();
    IndexRollback.dropIncomplete(config, client.getEngineContext(), metaClient, List.copyOf(missed.keySet()));
    throw new IllegalStateException("Index build " + plan.instant() + " of " + config.getBasePath()
        + " committed without the entries of writer commits " + missed + " (Hudi's catch-up skips a commit"
        + " whose writer had not seen the new partition yet); the incomplete index was dropped and is built anew");
  }

  private static ScheduledExecutorService progressLogger(String indexInstant) {
    return Executors.newSingleThreadScheduledExecutor(runnable -> {
      Thread thread = new Thread(runnable, "tsd-index-progress-" + indexInstant);
      thread.setDaemon(true);
      return thread;
    });
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
