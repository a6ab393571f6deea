package io.huditsd.api.metrics;

import io.huditsd.api.ServiceOutcomes;
import io.huditsd.config.MetadataIndexState;
import io.huditsd.config.ServiceType;
import io.huditsd.executors.WorkerPool;
import io.huditsd.ha.TableOwnership;
import io.huditsd.scheduler.TableRegistry;
import io.huditsd.scheduler.TableSnapshot;
import io.huditsd.scheduler.TableState;
import io.huditsd.scheduler.view.TableBacklog;
import io.prometheus.client.Collector;
import io.prometheus.client.GaugeMetricFamily;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Gauges read from the daemon's state at scrape time: per-table backlog and pending plans, per-table last success
 * per service, and the worker pool. Labels: {@code table} (bounded by the number of tables) and {@code service}.
 * Per-table figures come from the table's owner only; every replica reports whether it owns each table.
 */
public final class TableMetricsCollector extends Collector {
  private final TableRegistry registry;
  private final WorkerPool pool;
  private final ServiceOutcomes outcomes;
  private final TableOwnership ownership;

  public TableMetricsCollector(TableRegistry registry, WorkerPool pool, ServiceOutcomes outcomes,
                               TableOwnership ownership) {
    this.registry = registry;
    this.pool = pool;
    this.outcomes = outcomes;
    this.ownership = ownership;
  }

  @Override
  public List<MetricFamilySamples> collect() {
    List<String> table = List.of("table");
    List<String> tableService = List.of("table", "service");
    GaugeMetricFamily unscheduled = new GaugeMetricFamily("tsd_log_file_unscheduled_bytes",
        "Log bytes in live file slices that no pending compaction plan covers (the compaction backlog)", table);
    GaugeMetricFamily scheduled = new GaugeMetricFamily("tsd_log_file_scheduled_bytes",
        "Log bytes covered by a pending compaction plan", table);
    GaugeMetricFamily logFiles = new GaugeMetricFamily("tsd_log_files", "Log files in live file slices", table);
    GaugeMetricFamily fileGroups = new GaugeMetricFamily("tsd_file_groups", "File groups of the table", table);
    GaugeMetricFamily smallFiles = new GaugeMetricFamily("tsd_small_base_files",
        "Latest base files below hoodie.parquet.small.file.limit", table);
    GaugeMetricFamily pending = new GaugeMetricFamily("tsd_pending_plans", "Pending plans by service", tableService);
    GaugeMetricFamily oldestAge = new GaugeMetricFamily("tsd_oldest_pending_plan_age_seconds",
        "Age of the oldest pending plan; 0 when none is pending", table);
    GaugeMetricFamily deltaCommits = new GaugeMetricFamily("tsd_delta_commits_since_compaction",
        "Completed delta commits since the last completed compaction", table);
    GaugeMetricFamily lastSuccess = new GaugeMetricFamily("tsd_last_success_timestamp_seconds",
        "Unix time of the last successful run per service", tableService);
    GaugeMetricFamily failures = new GaugeMetricFamily("tsd_poll_consecutive_failures",
        "Polls of the table that failed in a row", table);
    GaugeMetricFamily paused = new GaugeMetricFamily("tsd_table_paused", "1 when the table is paused", table);
    GaugeMetricFamily missingIndexes = new GaugeMetricFamily("tsd_missing_indexes", "Wanted metadata indexes the "
        + "table neither has nor is building or planning, as of the last changed poll", table);
    GaugeMetricFamily failedWrites = new GaugeMetricFamily("tsd_failed_writes_pending", "Writer commits whose "
        + "heartbeat expired and that are not rolled back yet, as of the last planning round", table);
    GaugeMetricFamily failedWriteAge = new GaugeMetricFamily("tsd_failed_write_oldest_age_seconds",
        "Age of the oldest failed writer commit not rolled back yet; 0 when none", table);
    GaugeMetricFamily cleanBlocked = new GaugeMetricFamily("tsd_clean_blocked_seconds", "Age of the earliest pending "
        + "instant when it holds the clean boundary back (more than hoodie.clean.commits.retained commits completed "
        + "after it); 0 when cleaning is not held back", table);
    GaugeMetricFamily owned = new GaugeMetricFamily("tsd_table_owned",
        "1 when this replica owns the table (polls, schedules and executes it)", table);

    Instant now = Instant.now();
    int tables = 0;
    for (TableState state : registry.all()) {
      tables++;
      TableSnapshot snapshot = state.snapshot();
      String id = snapshot.table().id();
      List<String> labels = List.of(id);
      boolean owner = ownership.owns(id);
      owned.addMetric(labels, owner ? 1 : 0);
      if (!owner) {
        // Its owner reports the table; figures here would be stale copies from when this replica owned it.
        continue;
      }
      failures.addMetric(labels, snapshot.consecutiveFailures());
      if (!snapshot.table().indexes().isEmpty()) {
        // The loaded meta client holds the table config and timeline in memory: no storage read on a scrape
        // unless an indexing plan is pending.
        snapshot.metaClient().ifPresent(metaClient -> missingIndexes.addMetric(labels,
            MetadataIndexState.read(metaClient).missing(snapshot.table().indexes()).size()));
      }
      paused.addMetric(labels, snapshot.paused() ? 1 : 0);
      failedWrites.addMetric(labels, snapshot.failedWrites().pending().size());
      failedWriteAge.addMetric(labels, snapshot.failedWrites().oldestPending()
          .map(oldest -> Math.max(0, now.getEpochSecond() - oldest.getEpochSecond())).orElse(0L));
      if (snapshot.backlog().isPresent()) {
        TableBacklog backlog = snapshot.backlog().get();
        unscheduled.addMetric(labels, backlog.logFileUnscheduledBytes());
        scheduled.addMetric(labels, backlog.logFileScheduledBytes());
        logFiles.addMetric(labels, backlog.logFiles());
        fileGroups.addMetric(labels, backlog.fileGroups());
        smallFiles.addMetric(labels, backlog.smallBaseFiles());
        for (ServiceType service : List.of(ServiceType.COMPACTION, ServiceType.CLUSTERING, ServiceType.CLEAN,
            ServiceType.INDEX)) {
          pending.addMetric(List.of(id, service.configName()), backlog.pendingPlans().getOrDefault(service, 0));
        }
        oldestAge.addMetric(labels, backlog.oldestPendingPlan()
            .map(oldest -> Math.max(0, now.getEpochSecond() - oldest.getEpochSecond())).orElse(0L));
        deltaCommits.addMetric(labels, backlog.deltaCommitsSinceCompaction());
        cleanBlocked.addMetric(labels, backlog.cleanBlocker()
            .map(blocker -> Math.max(0, now.getEpochSecond() - blocker.requestedAt().getEpochSecond())).orElse(0L));
      }
      for (Map.Entry<ServiceType, ServiceOutcomes.Outcome> entry : outcomes.of(id).entrySet()) {
        entry.getValue().lastSuccess().ifPresent(at ->
            lastSuccess.addMetric(List.of(id, entry.getKey().configName()), at.toEpochMilli() / 1000.0));
      }
    }
    List<MetricFamilySamples> families = new ArrayList<>(List.of(unscheduled, scheduled, logFiles, fileGroups,
        smallFiles, pending, oldestAge, deltaCommits, lastSuccess, failures, paused, owned, missingIndexes,
        failedWrites, failedWriteAge, cleanBlocked));
    families.add(new io.prometheus.client.CounterMetricFamily("tsd_ownership_changes_total",
        "Tables this replica gained or lost since it started", ownership.changes()));
    families.add(new GaugeMetricFamily("tsd_tables", "Tables being serviced", tables));
    families.add(new GaugeMetricFamily("tsd_worker_queued", "Runs waiting in the worker queue", pool.queuedCount()));
    families.add(new GaugeMetricFamily("tsd_worker_running", "Runs executing now", pool.runningCount()));
    families.add(new io.prometheus.client.CounterMetricFamily("tsd_worker_rejected_total",
        "Submissions refused because the same plan was already queued or running, or the pool was closed",
        pool.rejectedCount()));
    return families;
  }
}
