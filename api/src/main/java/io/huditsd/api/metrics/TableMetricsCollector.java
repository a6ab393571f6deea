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
import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import org.apache.hudi.common.table.HoodieTableMetaClient;
import org.apache.hudi.common.table.timeline.HoodieActiveTimeline;
import org.apache.hudi.config.HoodieArchivalConfig;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static io.huditsd.api.metrics.LabelledFamily.Type.COUNTER;
import static io.huditsd.api.metrics.LabelledFamily.Type.GAUGE;

/**
 * Gauges read from the daemon's state at scrape time: per-table backlog and pending plans, per-table last success
 * per service, and the worker pool. Labels: {@code table} (bounded by the number of tables) and {@code service}.
 * Per-table figures come from the table's owner only; every replica reports whether it owns each table.
 */
public final class TableMetricsCollector implements MultiCollector {
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
  public MetricSnapshots collect() {
    TableFamilies perTable = new TableFamilies();
    Instant now = Instant.now();
    int tables = 0;
    List<TableState> states = new ArrayList<>(registry.all());
    // In the order of the families' table label, so that most families' samples are sorted already (LabelledFamily).
    states.sort(Comparator.comparing(state -> state.table().id()));
    for (TableState state : states) {
      tables++;
      collectTable(state, perTable, now);
    }
    List<MetricSnapshot> families = perTable.snapshots();
    families.addAll(daemonFamilies(tables));
    return new MetricSnapshots(families);
  }

  private void collectTable(TableState state, TableFamilies families, Instant now) {
    TableSnapshot snapshot = state.snapshot();
    String id = snapshot.table().id();
    List<String> labels = List.of(id);
    boolean owner = ownership.owns(id);
    families.owned.add(labels, owner ? 1 : 0);
    if (!owner) {
      // Its owner reports the table; figures here would be stale copies from when this replica owned it.
      return;
    }
    families.info.add(List.of(id, snapshot.table().basePath(), snapshot.tableType().orElse(""),
        snapshot.tableVersion().map(String::valueOf).orElse("")), 1);
    families.failures.add(labels, snapshot.consecutiveFailures());
    if (snapshot.table().indexes().isEmpty()) {
      // Nothing wanted, nothing missing: the series exists for every owned table, so that an alert on it is not
      // blind to a table until its first index.
      families.missingIndexes.add(labels, 0);
    } else {
      // The loaded meta client holds the table config and timeline in memory: no storage read on a scrape
      // unless an indexing plan is pending.
      snapshot.metaClient().ifPresent(metaClient -> families.missingIndexes.add(labels,
          MetadataIndexState.read(metaClient).missing(snapshot.table().indexes()).size()));
    }
    snapshot.metaClient().ifPresent(metaClient -> collectTimeline(snapshot.table(), metaClient, families));
    families.paused.add(labels, snapshot.paused() ? 1 : 0);
    families.failedWrites.add(labels, snapshot.failedWrites().pending().size());
    families.failedWriteAge.add(labels, secondsSince(snapshot.failedWrites().oldestPending(), now));
    families.writesWithoutHeartbeat.add(labels, snapshot.failedWrites().withoutHeartbeat().size());
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
    families.timelineInstants.add(labels, timeline.countInstants());
    // What ArchiveService compares: completed instants against hoodie.keep.max.commits; archival trims them to
    // hoodie.keep.min.commits, so anything above the maximum is left for archival (not run, or held back).
    int keepMax = keepMaxCommits(table);
    families.archivalBacklog.add(labels,
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
    families.unscheduled.add(labels, backlog.logFileUnscheduledBytes());
    families.scheduled.add(labels, backlog.logFileScheduledBytes());
    families.logFiles.add(labels, backlog.logFiles());
    families.fileGroups.add(labels, backlog.fileGroups());
    families.smallFiles.add(labels, backlog.smallBaseFiles());
    for (ServiceType service : PLANNED_SERVICES) {
      families.pending.add(List.of(id, service.configName()), backlog.pendingPlans().getOrDefault(service, 0));
    }
    families.oldestAge.add(labels, secondsSince(backlog.oldestPendingPlan(), now));
    families.deltaCommits.add(labels, backlog.deltaCommitsSinceCompaction());
    backlog.metadataDeltaCommitsSinceCompaction().ifPresent(commits ->
        families.metadataDeltaCommits.add(labels, commits));
    families.cleanBlocked.add(labels,
        secondsSince(backlog.cleanBlocker().map(blocker -> blocker.requestedAt()), now));
    backlog.cleanable().ifPresent(cleanable -> {
      families.cleanableFiles.add(labels, cleanable.files());
      families.cleanableBytes.add(labels, cleanable.bytes());
    });
  }

  private void collectLastSuccesses(String id, TableFamilies families) {
    for (Map.Entry<ServiceType, ServiceOutcomes.Outcome> entry : outcomes.of(id).entrySet()) {
      entry.getValue().lastSuccess().ifPresent(at ->
          families.lastSuccess.add(List.of(id, entry.getKey().configName()), at.toEpochMilli() / 1000.0));
    }
  }

  /** Figures of this replica as a whole, not of one table. */
  private List<MetricSnapshot> daemonFamilies(int tables) {
    return List.of(
        LabelledFamily.single(COUNTER, "tsd_ownership_changes",
            "Tables this replica gained or lost since it started", ownership.changes()),
        LabelledFamily.single(GAUGE, "tsd_tables", "Tables being serviced", tables),
        LabelledFamily.single(GAUGE, "tsd_worker_queued", "Runs waiting in the worker queue", pool.queuedCount()),
        LabelledFamily.single(GAUGE, "tsd_worker_running", "Runs executing now", pool.runningCount()),
        LabelledFamily.single(COUNTER, "tsd_worker_rejected",
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

    final LabelledFamily unscheduled = LabelledFamily.gauge("tsd_log_file_unscheduled_bytes",
        "Log bytes in live file slices that no pending compaction plan covers (the compaction backlog)", TABLE);
    final LabelledFamily scheduled = LabelledFamily.gauge("tsd_log_file_scheduled_bytes",
        "Log bytes covered by a pending compaction plan", TABLE);
    final LabelledFamily logFiles = LabelledFamily.gauge("tsd_log_files", "Log files in live file slices", TABLE);
    final LabelledFamily fileGroups = LabelledFamily.gauge("tsd_file_groups", "File groups of the table", TABLE);
    final LabelledFamily smallFiles = LabelledFamily.gauge("tsd_small_base_files",
        "Latest base files below hoodie.parquet.small.file.limit", TABLE);
    final LabelledFamily pending = LabelledFamily.gauge("tsd_pending_plans", "Pending plans by service",
        TABLE_SERVICE);
    final LabelledFamily oldestAge = LabelledFamily.gauge("tsd_oldest_pending_plan_age_seconds",
        "Age of the oldest pending plan; 0 when none is pending", TABLE);
    final LabelledFamily deltaCommits = LabelledFamily.gauge("tsd_delta_commits_since_compaction",
        "Completed delta commits since the last completed compaction", TABLE);
    final LabelledFamily lastSuccess = LabelledFamily.gauge("tsd_last_success_timestamp_seconds",
        "Unix time of the last successful run per service", TABLE_SERVICE);
    final LabelledFamily failures = LabelledFamily.gauge("tsd_poll_consecutive_failures",
        "Polls of the table that failed in a row", TABLE);
    final LabelledFamily paused = LabelledFamily.gauge("tsd_table_paused", "1 when the table is paused", TABLE);
    final LabelledFamily missingIndexes = LabelledFamily.gauge("tsd_missing_indexes", "Wanted metadata indexes "
        + "the table neither has nor is building or planning, as of the last changed poll", TABLE);
    final LabelledFamily failedWrites = LabelledFamily.gauge("tsd_failed_writes_pending", "Writer commits whose "
        + "heartbeat expired and that are not rolled back yet, as of the last planning round", TABLE);
    final LabelledFamily writesWithoutHeartbeat = LabelledFamily.gauge("tsd_writer_commits_without_heartbeat",
        "Writer commits pending without a heartbeat file, as of the last planning round: their writer runs without "
        + "Hudi's multi-writer keys, and the table's services are refused while one is pending", TABLE);
    final LabelledFamily failedWriteAge = LabelledFamily.gauge("tsd_failed_write_oldest_age_seconds",
        "Age of the oldest failed writer commit not rolled back yet; 0 when none", TABLE);
    final LabelledFamily cleanBlocked = LabelledFamily.gauge("tsd_clean_blocked_seconds", "Age of the earliest "
        + "pending instant when it holds the clean boundary back (more than hoodie.clean.commits.retained commits "
        + "completed after it); 0 when cleaning is not held back", TABLE);
    final LabelledFamily metadataDeltaCommits = LabelledFamily.gauge(
        "tsd_metadata_delta_commits_since_compaction", "Completed delta commits on the table's metadata table since "
        + "its last compaction, as of the last changed poll; absent without a metadata table", TABLE);
    final LabelledFamily timelineInstants = LabelledFamily.gauge("tsd_active_timeline_instants",
        "Instants (any action and state) in the table's active timeline, as of the last changed poll", TABLE);
    final LabelledFamily archivalBacklog = LabelledFamily.gauge("tsd_archival_backlog_instants", "Completed "
        + "instants in the active timeline beyond hoodie.keep.max.commits, which archival has not moved out yet", TABLE);
    final LabelledFamily cleanableFiles = LabelledFamily.gauge("tsd_cleanable_files", "Base and log files the "
        + "table's next clean would delete if it ran now (Hudi's clean planner with the table's policy and "
        + "retention), as of the last changed poll", TABLE);
    final LabelledFamily cleanableBytes = LabelledFamily.gauge("tsd_cleanable_bytes",
        "Size of the files the table's next clean would delete if it ran now, as of the last changed poll", TABLE);
    final LabelledFamily info = LabelledFamily.info("tsd_table_info", "Always 1: the table's base path, "
        + "type (COPY_ON_WRITE, MERGE_ON_READ) and hoodie.table.version, empty until its first poll read them",
        List.of("table", "base_path", "type", "version"));
    final LabelledFamily owned = LabelledFamily.gauge("tsd_table_owned",
        "1 when this replica owns the table (polls, schedules and executes it)", TABLE);

    /** Every family's snapshot; a new list the caller may extend. */
    List<MetricSnapshot> snapshots() {
      List<MetricSnapshot> snapshots = new ArrayList<>();
      for (LabelledFamily family : List.of(unscheduled, scheduled, logFiles, fileGroups, smallFiles, pending,
          oldestAge, deltaCommits, lastSuccess, failures, paused, owned, missingIndexes, failedWrites, failedWriteAge,
          writesWithoutHeartbeat, cleanBlocked, timelineInstants, archivalBacklog, metadataDeltaCommits,
          cleanableFiles, cleanableBytes, info)) {
        snapshots.add(family.snapshot());
      }
      return snapshots;
    }
  }
}
