package io.huditsd.executors;

import io.huditsd.config.ServicedTable;
import io.huditsd.config.WriterHeartbeat;
import org.apache.hudi.client.HoodieJavaWriteClient;
import org.apache.hudi.common.model.HoodieAvroPayload;
import org.apache.hudi.common.table.HoodieTableMetaClient;
import org.apache.hudi.common.table.timeline.HoodieInstant;
import org.apache.hudi.common.table.timeline.HoodieTimeline;
import org.apache.hudi.common.util.ClusteringUtils;
import org.apache.hudi.config.HoodieWriteConfig;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * Rolls back writer commits that failed, as Hudi's clean would, but without waiting for a clean to run.
 *
 * <p>With {@code hoodie.cleaner.policy.failed.writes=LAZY} (what multi-writer setups use) only a clean rolls back
 * failed writes, and Hudi's clean planner never retains past the earliest pending instant: once a writer commit
 * failed, every clean plan comes back empty, no clean runs, the failed instant is never rolled back, and cleaning
 * and archival stop for good. A poll therefore calls this before it plans a clean.
 *
 * <p>The rule is Hudi's own ({@code BaseHoodieTableServiceClient.getInstantsToRollback} for LAZY): a pending
 * instant on the commits timeline, compactions and clustering excluded, whose heartbeat file was last touched more
 * than {@code hoodie.client.heartbeat.interval_in_ms * hoodie.client.heartbeat.tolerable.misses} ago, by the
 * writers' keys among the table's ({@link WriterHeartbeat}; Hudi's 60 s * 2 when unset), never by the daemon's own
 * plan heartbeat, which may be much shorter than the writers' renewal. A write
 * whose heartbeat is alive is never touched.
 *
 * <p>An instant with no heartbeat file at all is not judged failed, unlike Hudi (which reads its last heartbeat as
 * 0): a LAZY writer writes its heartbeat before it creates the requested instant and deletes it only after the
 * commit completed or was rolled back, so a pending instant without one is a writer's on the EAGER policy, outside
 * Hudi's multi-writer mode, and its write may well be in progress. Hudi's rollback cannot be told to leave one
 * instant alone, so while such an instant is pending nothing is rolled back, and it is reported
 * ({@link FailedWrites#withoutHeartbeat}) for the table's services to be refused. The rollback itself is Hudi's
 * ({@code rollbackFailedWrites}), which takes the table lock to schedule each rollback, to claim it with a rollback
 * heartbeat and to commit it.
 */
public final class FailedWritesRollback {
  private static final Logger LOG = LoggerFactory.getLogger(FailedWritesRollback.class);

  private final HudiTables tables;

  public FailedWritesRollback(HudiTables tables) {
    this.tables = Objects.requireNonNull(tables, "tables is null");
  }

  /**
   * Finds the table's failed writes and, if {@code rollBack}, rolls them back. Never throws for a failed rollback:
   * it is logged and reported in the result, so the table's other services are still planned.
   *
   * @param metaClient the table's meta client; its timeline is reloaded when anything was rolled back
   * @param config the table's write config (its failed-writes policy applies)
   * @param rollBack whether to roll back (the daemon cleans this table); otherwise failed writes are only found
   */
  public FailedWrites run(ServicedTable table, HoodieTableMetaClient metaClient, HoodieWriteConfig config,
                          boolean rollBack) {
    long window = WriterHeartbeat.of(table.hoodieKeys()).expiryMillis();
    Scan before = scan(metaClient, window);
    List<String> withoutHeartbeat = withoutHeartbeat(metaClient, before.withoutHeartbeat());
    if (before.expired().isEmpty() || !rollBack || !config.getFailedWritesCleanPolicy().isLazy()
        || !withoutHeartbeat.isEmpty()) {
      // EAGER: writers roll back their own failures when they start a commit; NEVER: nobody does.
      return new FailedWrites(List.of(), before.expired(), before.nextExpiry(), Optional.empty(), withoutHeartbeat);
    }
    LOG.info("Rolling back failed writes table={} instants={} (heartbeats expired)", table.id(), before.expired());
    Optional<String> error = Optional.empty();
    HoodieTableMetaClient current = HoodieTableMetaClient.reload(metaClient);
    try (HoodieJavaWriteClient<HoodieAvroPayload> client = tables.writeClientJudgingWriters(table, current)) {
      client.rollbackFailedWrites(current);
    } catch (RuntimeException e) {
      error = Optional.of(e.getClass().getSimpleName() + ": " + e.getMessage());
      LOG.warn("Rolling back failed writes failed table={} instants={}", table.id(), before.expired(), e);
    }
    metaClient.reloadActiveTimeline();
    Scan after = scan(metaClient, window);
    Set<String> stillPending = Set.copyOf(metaClient.getActiveTimeline().filterInflightsAndRequested()
        .getInstantsAsStream().map(HoodieInstant::requestedTime).toList());
    List<String> rolledBack = before.expired().stream().filter(instant -> !stillPending.contains(instant)).toList();
    if (!rolledBack.isEmpty()) {
      LOG.info("Rolled back failed writes table={} instants={}", table.id(), rolledBack);
    }
    Optional<Instant> recheckAt = after.nextExpiry();
    if (!after.expired().isEmpty()) {
      // Tried again after one writers' heartbeat window, the time the table's writers take to give up on a commit:
      // a lock held by a long commit is free by then, and a failure that persists warns once a window.
      Instant retry = Instant.now().plusMillis(window);
      LOG.warn("Failed writes still pending table={} instants={}; rolling them back again at {}", table.id(),
          after.expired(), retry);
      recheckAt = Optional.of(recheckAt.filter(expiry -> expiry.isBefore(retry)).orElse(retry));
    }
    return new FailedWrites(rolledBack, after.expired(), recheckAt, error, List.of());
  }

  /**
   * The table's pending writer instants that have no heartbeat file (see the class comment), as of now: those of
   * {@code candidates} still pending on a timeline read after their heartbeats were looked for (a LAZY writer that
   * completed meanwhile has deleted its heartbeat, and its instant is no longer pending).
   */
  private static List<String> withoutHeartbeat(HoodieTableMetaClient metaClient, List<String> candidates) {
    if (candidates.isEmpty()) {
      return List.of();
    }
    Set<String> stillPending = Set.copyOf(HoodieTableMetaClient.reload(metaClient).getActiveTimeline()
        .filterInflightsAndRequested().getInstantsAsStream().map(HoodieInstant::requestedTime).toList());
    return candidates.stream().filter(stillPending::contains).toList();
  }

  /**
   * The table's pending writer instants without a heartbeat file, read now (the timeline reloaded): a run that would
   * let Hudi roll back failed writes (a clean) checks it first.
   */
  public static List<String> withoutHeartbeat(HoodieTableMetaClient metaClient) {
    HoodieTableMetaClient current = HoodieTableMetaClient.reload(metaClient);
    // The window only sorts the other instants, which are not asked for here.
    return withoutHeartbeat(current, scan(current, Duration.ofDays(1).toMillis()).withoutHeartbeat());
  }

  /**
   * Pending writer instants by heartbeat: expired ones (oldest first), when the first live one expires, and those
   * with no heartbeat file.
   */
  private record Scan(List<String> expired, Optional<Instant> nextExpiry, List<String> withoutHeartbeat) {
  }

  /** @param window Hudi's (HoodieHeartbeatClient): expired when now - last heartbeat > interval * tolerable misses */
  private static Scan scan(HoodieTableMetaClient metaClient, long window) {
    HoodieTimeline pending = metaClient.getCommitsTimeline().filterPendingExcludingCompaction();
    List<String> expired = new ArrayList<>();
    List<String> withoutHeartbeat = new ArrayList<>();
    Optional<Instant> nextExpiry = Optional.empty();
    long now = System.currentTimeMillis();
    for (HoodieInstant instant : pending.getInstants()) {
      if (ClusteringUtils.isClusteringInstant(pending, instant, metaClient.getInstantGenerator())) {
        continue;
      }
      long last = PlanLiveness.lastHeartbeatMillis(metaClient, instant.requestedTime());
      if (last == 0) {
        withoutHeartbeat.add(instant.requestedTime());
      } else if (now - last > window) {
        expired.add(instant.requestedTime());
      } else {
        Instant expiry = Instant.ofEpochMilli(last + window + 1);
        if (nextExpiry.isEmpty() || expiry.isBefore(nextExpiry.get())) {
          nextExpiry = Optional.of(expiry);
        }
      }
    }
    return new Scan(List.copyOf(expired), nextExpiry, List.copyOf(withoutHeartbeat));
  }
}
