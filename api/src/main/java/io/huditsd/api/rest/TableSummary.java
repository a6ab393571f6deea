package io.huditsd.api.rest;

import io.huditsd.config.MetadataIndexState;
import io.huditsd.config.ServiceType;
import io.huditsd.scheduler.TableSnapshot;
import io.huditsd.scheduler.view.TableBacklog;

import java.time.Instant;
import java.util.Map;
import java.util.Optional;

/**
 * One row of the table list: a table's state and backlog in flat figures, as of its last changed poll, so that a
 * console can sort and show a thousand of them without fetching each table.
 *
 * @param pendingPlans all pending plans, every service
 * @param missingIndexes wanted metadata indexes neither built, being built nor planned
 * @param failedWritesPending writer commits whose heartbeat expired still on the timeline
 */
public record TableSummary(String id, String owner, String tableType, Integer tableVersion, boolean paused,
                           Instant lastPoll, int consecutiveFailures, String lastError,
                           long logFileUnscheduledBytes, long logFileScheduledBytes, int pendingPlans,
                           int pendingCompactions, int pendingClusterings, int pendingCleans, int pendingIndexes,
                           Instant oldestPendingPlan, long smallBaseFiles, int deltaCommitsSinceCompaction,
                           int missingIndexes, int failedWritesPending, boolean polled) {

  static TableSummary of(TableSnapshot snapshot, String owner) {
    Optional<TableBacklog> backlog = snapshot.backlog();
    Map<ServiceType, Integer> pending = backlog.map(TableBacklog::pendingPlans).orElse(Map.of());
    int missing = snapshot.metaClient()
        .map(client -> MetadataIndexState.read(client).missing(snapshot.table().indexes()).size()).orElse(0);
    return new TableSummary(snapshot.table().id(), owner, snapshot.tableType().orElse(null),
        snapshot.tableVersion().orElse(null), snapshot.paused(), snapshot.lastPoll().orElse(null),
        snapshot.consecutiveFailures(), snapshot.lastError().orElse(null),
        backlog.map(TableBacklog::logFileUnscheduledBytes).orElse(0L),
        backlog.map(TableBacklog::logFileScheduledBytes).orElse(0L),
        pending.values().stream().mapToInt(Integer::intValue).sum(),
        pending.getOrDefault(ServiceType.COMPACTION, 0), pending.getOrDefault(ServiceType.CLUSTERING, 0),
        pending.getOrDefault(ServiceType.CLEAN, 0), pending.getOrDefault(ServiceType.INDEX, 0),
        backlog.flatMap(TableBacklog::oldestPendingPlan).orElse(null),
        backlog.map(TableBacklog::smallBaseFiles).orElse(0L),
        backlog.map(TableBacklog::deltaCommitsSinceCompaction).orElse(0), missing,
        snapshot.failedWrites().pending().size(), backlog.isPresent());
  }
}
