package io.huditsd.scheduler;

import org.apache.hudi.avro.model.HoodieInstantInfo;
import org.apache.hudi.avro.model.HoodieRollbackMetadata;
import org.apache.hudi.common.heartbeat.HoodieHeartbeatUtils;
import org.apache.hudi.common.model.HoodieTableType;
import org.apache.hudi.common.table.HoodieTableMetaClient;
import org.apache.hudi.common.table.HoodieTableVersion;
import org.apache.hudi.common.table.timeline.HoodieInstant;
import org.apache.hudi.common.table.timeline.HoodieInstantTimeGenerator;
import org.apache.hudi.common.table.timeline.HoodieTimeline;
import org.apache.hudi.common.util.ClusteringUtils;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.text.ParseException;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Counts writer instants that failed, as the timeline shows them, into {@code tsd_writer_failures_total}: a writer
 * commit that was rolled back (a completed rollback names it), or a writer commit still pending whose heartbeat
 * expired (its writer died; a later rollback of it is the same failure). Each failed instant is counted once.
 *
 * <p>Writer instants are delta commits, commits of copy-on-write tables and, from table version 8 on (where a
 * pending clustering has an action of its own), replace commits. Table services' rollbacks (an inflight compaction
 * rolled back for a retry, a clustering that yielded to a writer) are not counted.
 */
final class WriterFailures {
  private static final Logger LOG = LoggerFactory.getLogger(WriterFailures.class);

  /** Per table: rollback instants already read, and failed writer instants already counted. */
  private record Seen(Set<String> rollbacks, Set<String> failed) {
  }

  private final Map<String, Seen> seen = new ConcurrentHashMap<>();

  /** Forgets what was counted of a table no longer serviced. */
  void forget(String tableId) {
    seen.remove(tableId);
  }

  /** The tables with failures counted. */
  Set<String> tables() {
    return Set.copyOf(seen.keySet());
  }

  /**
   * Counts the failures on the table's loaded timeline not counted before. Never throws.
   *
   * @param heartbeatExpiryMillis the writers' window ({@link io.huditsd.config.WriterHeartbeat}): a pending writer
   *     instant older than this, with no heartbeat within it, failed
   */
  void observe(String tableId, HoodieTableMetaClient metaClient, long heartbeatExpiryMillis) {
    IngestionMetrics.touch(tableId);
    try {
      Seen state = seen.computeIfAbsent(tableId, id -> new Seen(new HashSet<>(), new HashSet<>()));
      synchronized (state) {
        observe(tableId, metaClient, state, heartbeatExpiryMillis);
      }
    } catch (RuntimeException e) {
      LOG.warn("Cannot count writer failures of table {}: {}", tableId, e.toString());
    }
  }

  private void observe(String tableId, HoodieTableMetaClient metaClient, Seen state, long heartbeatExpiryMillis) {
    HoodieTimeline timeline = metaClient.getActiveTimeline();
    boolean mergeOnRead = metaClient.getTableType() == HoodieTableType.MERGE_ON_READ;
    boolean clusteringHasOwnAction = metaClient.getTableConfig().getTableVersion()
        .greaterThanOrEquals(HoodieTableVersion.EIGHT);
    Set<String> rollbacksNow = new HashSet<>();
    for (HoodieInstant rollback : timeline.getRollbackTimeline().filterCompletedInstants().getInstants()) {
      rollbacksNow.add(rollback.requestedTime());
      if (!state.rollbacks().add(rollback.requestedTime())) {
        continue;
      }
      HoodieRollbackMetadata metadata;
      try {
        metadata = timeline.readRollbackMetadata(rollback);
      } catch (IOException | RuntimeException e) {
        LOG.debug("Cannot read rollback {} of table {}: {}", rollback, tableId, e.toString());
        continue;
      }
      if (metadata.getInstantsRollback() == null) {
        continue;
      }
      for (HoodieInstantInfo rolledBack : metadata.getInstantsRollback()) {
        if (isWriterAction(rolledBack.getAction(), mergeOnRead, clusteringHasOwnAction)) {
          count(tableId, state, rolledBack.getCommitTime(), "rolled back by " + rollback.requestedTime());
        }
      }
    }
    state.rollbacks().retainAll(rollbacksNow);

    long now = System.currentTimeMillis();
    for (HoodieInstant pending : timeline.getCommitsTimeline().filterInflightsAndRequested().getInstants()) {
      if (state.failed().contains(pending.requestedTime())
          || !isWriterAction(pending.getAction(), mergeOnRead, clusteringHasOwnAction)
          || ClusteringUtils.isClusteringInstant(timeline, pending, metaClient.getInstantGenerator())
          || !olderThan(pending.requestedTime(), now, heartbeatExpiryMillis)) {
        continue;
      }
      try {
        long last = HoodieHeartbeatUtils.getLastHeartbeatTime(metaClient.getStorage(),
            metaClient.getBasePath().toString(), pending.requestedTime());
        // No heartbeat file: a writer outside multi-writer mode, maybe mid-write; planning refuses the table instead.
        if (last > 0 && now - last > heartbeatExpiryMillis) {
          count(tableId, state, pending.requestedTime(), "pending with an expired heartbeat");
        }
      } catch (IOException e) {
        LOG.debug("Cannot read the heartbeat of {} of table {}: {}", pending, tableId, e.toString());
      }
    }
    // Instants archived away cannot come back; the set stays as large as the active timeline.
    timeline.firstInstant().ifPresent(first ->
        state.failed().removeIf(instant -> instant.compareTo(first.requestedTime()) < 0));
  }

  private static boolean isWriterAction(String action, boolean mergeOnRead, boolean clusteringHasOwnAction) {
    return switch (action) {
      case HoodieTimeline.DELTA_COMMIT_ACTION -> true;
      // A MOR table's commits are compactions.
      case HoodieTimeline.COMMIT_ACTION -> !mergeOnRead;
      // Before table version 8 a pending clustering is a replacecommit too, indistinguishable once rolled back.
      case HoodieTimeline.REPLACE_COMMIT_ACTION -> clusteringHasOwnAction;
      default -> false;
    };
  }

  /** A writer starts its heartbeat right after its instant: a younger instant may not have one yet. */
  private static boolean olderThan(String instantTime, long now, long heartbeatExpiryMillis) {
    try {
      return now - HoodieInstantTimeGenerator.parseDateFromInstantTime(instantTime).getTime() > heartbeatExpiryMillis;
    } catch (ParseException | RuntimeException e) {
      return false;
    }
  }

  private void count(String tableId, Seen state, String instant, String how) {
    if (state.failed().add(instant)) {
      IngestionMetrics.WRITER_FAILURES.labelValues(tableId).inc();
      LOG.warn("Writer commit failed table={} instant={} ({})", tableId, instant, how);
    }
  }
}
