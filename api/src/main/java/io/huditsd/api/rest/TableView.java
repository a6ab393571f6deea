package io.huditsd.api.rest;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.huditsd.api.ServiceOutcomes;
import io.huditsd.config.ServiceType;
import io.huditsd.executors.FailedWrites;
import io.huditsd.scheduler.ServiceDecision;
import io.huditsd.scheduler.TableSnapshot;
import io.huditsd.scheduler.view.CleanBlocker;
import io.huditsd.scheduler.view.CleanableFiles;
import io.huditsd.scheduler.view.TableBacklog;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A table as the REST API shows it.
 *
 * @param pendingPlans pending plans by service, as of the last changed poll
 * @param backlog backlog figures as of the last changed poll
 * @param services per enabled service, its last success and last failure
 * @param effectivePolicy the hoodie.* keys the daemon passes to Hudi for this table (detail view only)
 * @param owner the replica that owns the table (polls, schedules and executes it); absent while none does
 * @param failedWrites writer commits whose heartbeat expired and that are still on the timeline, as of the last
 *     planning round; absent while there are none
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record TableView(String id, String basePath, String tableType, Integer tableVersion, long pollIntervalSeconds,
                        boolean paused, Instant lastPoll, Instant lastChange, int consecutiveFailures,
                        String lastError, Map<String, Integer> pendingPlans, BacklogView backlog,
                        Map<String, ServiceView> services, Map<String, String> effectivePolicy, String owner,
                        FailedWritesView failedWrites) {

  /**
   * Backlog figures.
   *
   * @param cleanBlockedBy the pending instant that holds the clean boundary back; absent while none does
   */
  public record BacklogView(Instant computedAt, long fileGroups, long logFiles, long logFileScheduledBytes,
                            long logFileUnscheduledBytes, long smallBaseFiles, Instant oldestPendingPlan,
                            int deltaCommitsSinceCompaction,
                            @JsonInclude(JsonInclude.Include.NON_NULL) CleanBlockerView cleanBlockedBy,
                            @JsonInclude(JsonInclude.Include.NON_NULL) Long cleanableFiles,
                            @JsonInclude(JsonInclude.Include.NON_NULL) Long cleanableBytes) {
  }

  /** The pending instant Hudi's clean planner cannot retain past (see {@link CleanBlocker}). */
  public record CleanBlockerView(String instant, String action, Instant requestedAt, int commitsAfter) {
    static CleanBlockerView of(CleanBlocker blocker) {
      return new CleanBlockerView(blocker.instant(), blocker.action(), blocker.requestedAt(), blocker.commitsAfter());
    }
  }

  /**
   * Failed writer commits (see {@link FailedWrites}).
   *
   * @param pending instants still on the timeline although their writer's heartbeat expired
   * @param oldestPending when the oldest of them was requested
   * @param rollbackError why the daemon's rollback of them failed, if it did
   * @param withoutHeartbeat writer instants pending without a heartbeat file: a writer outside Hudi's multi-writer
   *     mode, beside which the table's services are refused
   */
  public record FailedWritesView(List<String> pending, Instant oldestPending, String rollbackError,
                                 List<String> withoutHeartbeat) {
    static FailedWritesView of(FailedWrites failed) {
      if (failed.pending().isEmpty() && failed.rollbackError().isEmpty() && failed.withoutHeartbeat().isEmpty()) {
        return null;
      }
      return new FailedWritesView(failed.pending(), failed.oldestPending().orElse(null),
          failed.rollbackError().orElse(null), failed.withoutHeartbeat());
    }
  }

  /**
   * One service on one table.
   *
   * @param lastDecision what the last planning round decided for the service, and why; absent before the first
   */
  public record ServiceView(boolean enabled, Instant lastSuccess, Instant lastFailure, String lastError,
                            @JsonInclude(JsonInclude.Include.NON_NULL) DecisionView lastDecision) {
  }

  /**
   * A planning round's decision for a service (see {@link ServiceDecision}).
   *
   * @param decision the reason code: scheduled, below-trigger, hot-file-groups, under-pending-plan, ...
   * @param message the figures behind it and the keys that change it
   */
  public record DecisionView(String decision, String message) {
    static DecisionView of(ServiceDecision decision) {
      return decision == null ? null : new DecisionView(decision.reason().code(), decision.message());
    }
  }

  public static TableView of(TableSnapshot snapshot, Map<ServiceType, ServiceOutcomes.Outcome> outcomes,
                             Map<String, String> effectivePolicy, String owner) {
    Map<String, Integer> pending = null;
    BacklogView backlog = null;
    if (snapshot.backlog().isPresent()) {
      TableBacklog figures = snapshot.backlog().get();
      pending = new TreeMap<>();
      for (ServiceType service : List.of(ServiceType.COMPACTION, ServiceType.CLUSTERING, ServiceType.CLEAN,
          ServiceType.INDEX)) {
        pending.put(service.configName(), figures.pendingPlans().getOrDefault(service, 0));
      }
      backlog = new BacklogView(figures.computedAt(), figures.fileGroups(), figures.logFiles(),
          figures.logFileScheduledBytes(), figures.logFileUnscheduledBytes(), figures.smallBaseFiles(),
          figures.oldestPendingPlan().orElse(null), figures.deltaCommitsSinceCompaction(),
          figures.cleanBlocker().map(CleanBlockerView::of).orElse(null),
          figures.cleanable().map(CleanableFiles::files).orElse(null),
          figures.cleanable().map(CleanableFiles::bytes).orElse(null));
    }
    Map<String, ServiceView> services = new TreeMap<>();
    for (ServiceType service : ServiceType.values()) {
      ServiceOutcomes.Outcome outcome = outcomes.get(service);
      boolean enabled = snapshot.table().runs(service);
      if (enabled || outcome != null) {
        services.put(service.configName(), new ServiceView(enabled,
            outcome == null ? null : outcome.lastSuccess().orElse(null),
            outcome == null ? null : outcome.lastFailure().orElse(null),
            outcome == null ? null : outcome.lastError().orElse(null),
            DecisionView.of(snapshot.decisions().get(service))));
      }
    }
    return new TableView(snapshot.table().id(), snapshot.table().basePath(), snapshot.tableType().orElse(null),
        snapshot.tableVersion().orElse(null), snapshot.table().pollInterval().toSeconds(), snapshot.paused(),
        snapshot.lastPoll().orElse(null), snapshot.lastChange().orElse(null), snapshot.consecutiveFailures(),
        snapshot.lastError().orElse(null), pending, backlog, services, effectivePolicy, owner,
        FailedWritesView.of(snapshot.failedWrites()));
  }
}
