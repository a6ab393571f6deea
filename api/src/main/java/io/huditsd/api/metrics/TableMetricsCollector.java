package io.huditsd.api.metrics;

import io.huditsd.api.ServiceOutcomes;
import io.huditsd.config.MetadataIndexState;
import io.huditsd.config.ServiceType;
import io.huditsd.config.ServicedTable;
import io.huditsd.executors.WorkerPool;
import io.huditsd.ha.TableOwnership;
import io.huditsd.scheduler.TableRegistry;
import io.huditsd.scheduler.TableSnapshot;
import io.huditsd.scheduler.TableState;
import io.huditsd.scheduler.view.TableBacklog;
import io.prometheus.client.Collector;
import io.prometheus.client.CounterMetricFamily;
import io.prometheus.client.GaugeMetricFamily;
import org.apache.hudi.common.table.HoodieTableMetaClient;
import org.apache.hudi.common.table.timeline.HoodieActiveTimeline;
import org.apache.hudi.config.HoodieArchivalConfig;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Gauges read from the daemon's state at scrape time: per-table backlog and pending plans, per-table last success
 * per service, and the worker pool. Labels: {@code table} (bounded by the number of tables) and {@code service}.
 * Per-table figures come from the table's owner only; every replica reports whether it owns each table.
 */
public final class TableMetricsCollector extends Collector {
  /** The services whose pending plans are counted (archive has no plans). */
  private static final List<ServiceType> PLANNED_SERVICES = List.of(ServiceType.COMPACTION, ServiceType.CLUSTERING,
      ServiceType.CLEAN, ServiceType.INDEX);

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
    TableFamilies perTable = new TableFamilies();
    Instant now = Instant.now();
    int tables = 0;
    for (TableState state : registry.all()) {
      tables++;
      collectTable(state, perTable, now);
    }
    List<MetricFamilySamples> families = perTable.all();
    families.addAll(daemonFamilies(tables));
    return families;
  }

  private void collectTable(TableState state, TableFamilies families, Instant now) {
    TableSnapshot snapshot = state.snapshot();
    String id = snapshot.table().id();
    List<String> labels = List.of(id);
    boolean owner = ownership.owns(id);
    families.owned.addMetric(labels, owner ? 1 : 0);
    if (!owner) {
      // Its owner reports the table; figures here would be stale copies from when this replica owned it.
      return;
    }
    families.info.addMetric(List.of(id, snapshot.table().basePath(), snapshot.tableType().orElse(""),
        snapshot.tableVersion().map(String::valueOf).orElse("")), 1);
    families.failures.addMetric(labels, snapshot.consecutiveFailures());
    if (snapshot.table().indexes().isEmpty()) {
      // Nothing wanted, nothing missing: the series exists for every owned table, so that an alert on it is not
      // blind to a table until its first index.
      families.missingIndexes.addMetric(labels, 0);
    } else {
      // The loaded meta client holds the table config and timeline in memory: no storage read on a scrape
      // unless an indexing plan is pending.
      snapshot.metaClient().ifPresent(metaClient -> families.missingIndexes.addMetric(labels,
          MetadataIndexState.read(metaClient).missing(snapshot.table().indexes()).size()));
    }
    snapshot.metaClient().ifPresent(metaClient -> collectTimeline(snapshot.table(), metaClient, families));
    families.paused.addMetric(labels, snapshot.paused() ? 1 : 0);
    families.failedWrites.addMetric(labels, snapshot.failedWrites().pending().size());
    families.failedWriteAge.addMetric(labels, secondsSince(snapshot.failedWrites().oldestPending(), now));
    snapshot.backlog().ifPresent(backlog -> collectBacklog(id, backlog, families, now));
    collectLastSuccesses(id, families);
  }

  /**
   * The active timeline's length and what archival has left in it, from the timeline the last changed poll loaded
   * (held in memory by the meta client: no storage read on a scrape).
   */
  private static void collectTimeline(ServicedTable table, HoodieTableMetaClient metaClient, TableFamilies families) {
    List<String> labels = List.of(table.id());
    HoodieActiveTimeline timeline = metaClient.getActiveTimeline();
    families.timelineInstants.addMetric(labels, timeline.countInstants());
    // What ArchiveService compares: completed instants against hoodie.keep.max.commits; archival trims them to
    // hoodie.keep.min.commits, so anything above the maximum is left for archival (not run, or held back).
    int keepMax = keepMaxCommits(table);
    families.archivalBacklog.addMetric(labels,
        Math.max(0, timeline.filterCompletedInstants().countInstants() - keepMax));
  }

  private static int keepMaxCommits(ServicedTable table) {
    String configured = table.hoodieKeys().get(HoodieArchivalConfig.MAX_COMMITS_TO_KEEP.key());
    try {
      return configured == null ? Integer.parseInt(HoodieArchivalConfig.MAX_COMMITS_TO_KEEP.defaultValue())
          : Integer.parseInt(configured.trim());
    } catch (NumberFormatException e) {
      // The table's write config refuses it at its next service run, naming the key; no figure here until then.
      return Integer.MAX_VALUE;
    }
  }

  private static void collectBacklog(String id, TableBacklog backlog, TableFamilies families, Instant now) {
    List<String> labels = List.of(id);
    families.unscheduled.addMetric(labels, backlog.logFileUnscheduledBytes());
    families.scheduled.addMetric(labels, backlog.logFileScheduledBytes());
    families.logFiles.addMetric(labels, backlog.logFiles());
    families.fileGroups.addMetric(labels, backlog.fileGroups());
    families.smallFiles.addMetric(labels, backlog.smallBaseFiles());
    for (ServiceType service : PLANNED_SERVICES) {
      families.pending.addMetric(List.of(id, service.configName()), backlog.pendingPlans().getOrDefault(service, 0));
    }
    families.oldestAge.addMetric(labels, secondsSince(backlog.oldestPendingPlan(), now));
    families.deltaCommits.addMetric(labels, backlog.deltaCommitsSinceCompaction());
    backlog.metadataDeltaCommitsSinceCompaction().ifPresent(commits ->
        families.metadataDeltaCommits.addMetric(labels, commits));
    families.cleanBlocked.addMetric(labels,
        secondsSince(backlog.cleanBlocker().map(blocker -> blocker.requestedAt()), now));
  }

  private void collectLastSuccesses(String id, TableFamilies families) {
    for (Map.Entry<ServiceType, ServiceOutcomes.Outcome> entry : outcomes.of(id).entrySet()) {
      entry.getValue().lastSuccess().ifPresent(at ->
          families.lastSuccess.addMetric(List.of(id, entry.getKey().configName()), at.toEpochMilli() / 1000.0));
    }
  }

  /** Figures of this replica as a whole, not of one table. */
  private List<MetricFamilySamples> daemonFamilies(int tables) {
    return List.of(
        new CounterMetricFamily("tsd_ownership_changes_total",
            "Tables this replica gained or lost since it started", ownership.changes()),
        new GaugeMetricFamily("tsd_tables", "Tables being serviced", tables),
        new GaugeMetricFamily("tsd_worker_queued", "Runs waiting in the worker queue", pool.queuedCount()),
        new GaugeMetricFamily("tsd_worker_running", "Runs executing now", pool.runningCount()),
        new CounterMetricFamily("tsd_worker_rejected_total",
            "Submissions refused because the same plan was already queued or running, or the pool was closed",
            pool.rejectedCount()));
  }

  /** Whole seconds from {@code since} to {@code now}, never negative; 0 when there is nothing to age. */
  private static long secondsSince(Optional<Instant> since, Instant now) {
    return since.map(at -> Math.max(0, now.getEpochSecond() - at.getEpochSecond())).orElse(0L);
  }

  /** The per-table families of one scrape, filled table by table. */
  private static final class TableFamilies {
    private static final List<String> TABLE = List.of("table");
    private static final List<String> TABLE_SERVICE = List.of("table", "service");

    final GaugeMetricFamily unscheduled = new GaugeMetricFamily("tsd_log_file_unscheduled_bytes",
        "Log bytes in live file slices that no pending compaction plan covers (the compaction backlog)", TABLE);
    final GaugeMetricFamily scheduled = new GaugeMetricFamily("tsd_log_file_scheduled_bytes",
        "Log bytes covered by a pending compaction plan", TABLE);
    final GaugeMetricFamily logFiles = new GaugeMetricFamily("tsd_log_files", "Log files in live file slices", TABLE);
    final GaugeMetricFamily fileGroups = new GaugeMetricFamily("tsd_file_groups", "File groups of the table", TABLE);
    final GaugeMetricFamily smallFiles = new GaugeMetricFamily("tsd_small_base_files",
        "Latest base files below hoodie.parquet.small.file.limit", TABLE);
    final GaugeMetricFamily pending = new GaugeMetricFamily("tsd_pending_plans", "Pending plans by service",
        TABLE_SERVICE);
    final GaugeMetricFamily oldestAge = new GaugeMetricFamily("tsd_oldest_pending_plan_age_seconds",
        "Age of the oldest pending plan; 0 when none is pending", TABLE);
    final GaugeMetricFamily deltaCommits = new GaugeMetricFamily("tsd_delta_commits_since_compaction",
        "Completed delta commits since the last completed compaction", TABLE);
    final GaugeMetricFamily lastSuccess = new GaugeMetricFamily("tsd_last_success_timestamp_seconds",
        "Unix time of the last successful run per service", TABLE_SERVICE);
    final GaugeMetricFamily failures = new GaugeMetricFamily("tsd_poll_consecutive_failures",
        "Polls of the table that failed in a row", TABLE);
    final GaugeMetricFamily paused = new GaugeMetricFamily("tsd_table_paused", "1 when the table is paused", TABLE);
    final GaugeMetricFamily missingIndexes = new GaugeMetricFamily("tsd_missing_indexes", "Wanted metadata indexes "
        + "the table neither has nor is building or planning, as of the last changed poll", TABLE);
    final GaugeMetricFamily failedWrites = new GaugeMetricFamily("tsd_failed_writes_pending", "Writer commits whose "
        + "heartbeat expired and that are not rolled back yet, as of the last planning round", TABLE);
    final GaugeMetricFamily failedWriteAge = new GaugeMetricFamily("tsd_failed_write_oldest_age_seconds",
        "Age of the oldest failed writer commit not rolled back yet; 0 when none", TABLE);
    final GaugeMetricFamily cleanBlocked = new GaugeMetricFamily("tsd_clean_blocked_seconds", "Age of the earliest "
        + "pending instant when it holds the clean boundary back (more than hoodie.clean.commits.retained commits "
        + "completed after it); 0 when cleaning is not held back", TABLE);
    final GaugeMetricFamily metadataDeltaCommits = new GaugeMetricFamily(
        "tsd_metadata_delta_commits_since_compaction", "Completed delta commits on the table's metadata table since "
        + "its last compaction, as of the last changed poll; absent without a metadata table", TABLE);
    final GaugeMetricFamily timelineInstants = new GaugeMetricFamily("tsd_active_timeline_instants",
        "Instants (any action and state) in the table's active timeline, as of the last changed poll", TABLE);
    final GaugeMetricFamily archivalBacklog = new GaugeMetricFamily("tsd_archival_backlog_instants", "Completed "
        + "instants in the active timeline beyond hoodie.keep.max.commits, which archival has not moved out yet", TABLE);
    final GaugeMetricFamily info = new GaugeMetricFamily("tsd_table_info", "Always 1: the table's base path, "
        + "type (COPY_ON_WRITE, MERGE_ON_READ) and hoodie.table.version, empty until its first poll read them",
        List.of("table", "base_path", "type", "version"));
    final GaugeMetricFamily owned = new GaugeMetricFamily("tsd_table_owned",
        "1 when this replica owns the table (polls, schedules and executes it)", TABLE);

    /** Every family, in the order the endpoint has always listed them; a new list the caller may extend. */
    List<MetricFamilySamples> all() {
      return new ArrayList<>(List.of(unscheduled, scheduled, logFiles, fileGroups, smallFiles, pending, oldestAge,
          deltaCommits, lastSuccess, failures, paused, owned, missingIndexes, failedWrites, failedWriteAge,
          cleanBlocked, timelineInstants, archivalBacklog, metadataDeltaCommits, info));
    }
  }
}
