package io.huditsd.scheduler;

import io.huditsd.config.MetadataIndexKind;
import io.huditsd.config.ServiceType;
import io.huditsd.config.ServicedTable;
import io.huditsd.executors.CorruptInstantException;
import io.huditsd.executors.FailedWrites;
import io.huditsd.executors.FailedWritesRollback;
import io.huditsd.executors.HudiTables;
import io.huditsd.executors.PendingPlan;
import io.huditsd.executors.PendingPlans;
import io.huditsd.executors.PlanSizes;
import io.huditsd.executors.PlanLiveness;
import io.huditsd.executors.WorkItem;
import io.huditsd.executors.WorkerPool;
import io.huditsd.executors.clustering.HotFileGroups;
import org.apache.hudi.client.HoodieJavaWriteClient;
import org.apache.hudi.common.model.HoodieAvroPayload;
import org.apache.hudi.common.table.HoodieTableMetaClient;
import org.apache.hudi.common.util.ClusteringUtils;
import org.apache.hudi.common.util.Option;
import org.apache.hudi.config.HoodieWriteConfig;
import org.apache.hudi.common.model.TableServiceType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;

/**
 * Decides what is due on a table, writes those plans onto its timeline through Hudi (which takes the table lock in
 * multi-writer mode), and enqueues every pending plan, the daemon's own and those its writers scheduled.
 *
 * <p>A service with a pending plan gets no new plan: Hudi leaves the file groups of an unfinished compaction out of
 * a new one, so planning before the old plan finished would strand the logs written into them.
 */
public final class DuePlanner {
  private static final Logger LOG = LoggerFactory.getLogger(DuePlanner.class);

  private final HudiTables tables;
  private final WorkerPool pool;
  private final PlanLiveness liveness;
  /** Completed-instant count of each table when archival was last enqueued. */
  private final Map<String, Integer> archivedAtCount = new ConcurrentHashMap<>();
  private final Map<String, Object> planningLocks = new ConcurrentHashMap<>();
  private final IndexTrigger indexTrigger;
  private final FailedWritesRollback failedWrites;
  private final WriterFailures writerFailures;

  public DuePlanner(HudiTables tables, WorkerPool pool) {
    this(tables, pool, new IndexTrigger());
  }

  DuePlanner(HudiTables tables, WorkerPool pool, IndexTrigger indexTrigger) {
    this.tables = Objects.requireNonNull(tables, "tables is null");
    this.pool = Objects.requireNonNull(pool, "pool is null");
    this.liveness = new PlanLiveness(tables.heartbeat());
    this.indexTrigger = Objects.requireNonNull(indexTrigger, "indexTrigger is null");
    this.failedWrites = new FailedWritesRollback(tables);
    this.writerFailures = new WriterFailures(tables.heartbeat().expiryMillis());
  }

  /** Trigger settings that make Hudi plan whenever there is anything to plan, for on-demand scheduling. */
  private static final Map<ServiceType, Map<String, String>> TRIGGER_NOW = Map.of(
      ServiceType.COMPACTION, Map.of("hoodie.compact.inline.trigger.strategy", "NUM_COMMITS",
          "hoodie.compact.inline.max.delta.commits", "1"),
      ServiceType.CLUSTERING, Map.of("hoodie.clustering.inline.max.commits", "1"),
      ServiceType.CLEAN, Map.of("hoodie.clean.trigger.strategy", "NUM_COMMITS", "hoodie.clean.max.commits", "1"));

  /**
   * Schedules {@code service} now, whatever its trigger says, if Hudi finds anything to plan, and enqueues the
   * plan. Refused (IllegalStateException) while the service already has a pending plan (see the class comment) or
   * the table has an instant file that Hudi cannot read (see {@link io.huditsd.executors.InstantFileCheck}).
   *
   * @return the new plan's instant, or empty when there was nothing to plan
   */
  public Optional<String> scheduleNow(ServicedTable table, ServiceType service) {
    synchronized (planningLock(table)) {
      return scheduleNowLocked(table, service);
    }
  }

  private Optional<String> scheduleNowLocked(ServicedTable table, ServiceType service) {
    Map<String, String> overrides = service == ServiceType.INDEX ? Map.of() : TRIGGER_NOW.get(service);
    if (overrides == null) {
      throw new IllegalArgumentException(service.configName() + " has no plan to schedule");
    }
    HoodieTableMetaClient metaClient = tables.metaClient(table.basePath());
    try {
      // Refused as the table's poll is: Hudi would plan over a timeline it misreads.
      tables.instantFiles().verify(metaClient);
    } catch (CorruptInstantException e) {
      throw new IllegalStateException(e.getMessage(), e);
    }
    if (service == ServiceType.CLEAN) {
      // A clean plan never reaches past a failed write; see FailedWritesRollback.
      failedWrites.run(table, metaClient, tables.writeConfig(table, metaClient), true);
    }
    if (PendingPlans.list(metaClient).stream().anyMatch(plan -> plan.service() == service)) {
      throw new IllegalStateException("table " + table.id() + " already has a pending " + service.configName()
          + " plan; it is executed first");
    }
    Set<MetadataIndexKind> missingIndexes = service == ServiceType.INDEX
        ? indexTrigger.missing(table, metaClient) : Set.of();
    if (service == ServiceType.INDEX && missingIndexes.isEmpty()) {
      return Optional.empty();
    }
    Map<String, String> keys = new HashMap<>(table.hoodieKeys());
    keys.putAll(overrides);
    ServicedTable now = table.withHoodieKeys(keys);
    Option<String> instant;
    try (HoodieJavaWriteClient<HoodieAvroPayload> client = tables.writeClient(now)) {
      instant = switch (service) {
        case COMPACTION -> client.scheduleCompaction(Option.empty());
        case CLUSTERING -> client.scheduleClustering(Option.empty());
        case INDEX -> indexTrigger.schedule(table, client, missingIndexes);
        default -> client.scheduleTableService(Option.empty(), TableServiceType.CLEAN);
      };
    }
    if (!instant.isPresent()) {
      return Optional.empty();
    }
    metaClient.reloadActiveTimeline();
    List<String> scheduled = new ArrayList<>(List.of(instant.get()));
    if (withdrawOverlapping(table, metaClient, tables.writeConfig(table, metaClient), PendingPlans.list(metaClient),
        scheduled)) {
      metaClient.reloadActiveTimeline();
    }
    if (scheduled.isEmpty()) {
      throw new IllegalStateException("table " + table.id() + ": the new " + service.configName() + " plan "
          + instant.get() + " shares file groups with another pending plan and was not kept; see the log");
    }
    PendingPlans.find(metaClient, instant.get()).ifPresent(plan -> {
      LOG.info("Scheduled on request table={} service={} instant={} {}{}", table.id(), service.configName(),
          plan.instant(), PlanSizes.of(metaClient, plan), skippedHot(table, metaClient, plan));
      pool.submit(WorkItem.forPlan(table, plan));
    });
    return Optional.of(instant.get());
  }

  /**
   * The metadata partitions an indexing plan scheduled now would build: the first wanted index the table lacks
   * (one index per plan, see {@link IndexTrigger#schedule}); empty when none is missing.
   */
  public List<String> nextIndexPlan(ServicedTable table, HoodieTableMetaClient metaClient) {
    return indexTrigger.missing(table, metaClient).stream().sorted().limit(1)
        .map(MetadataIndexKind::partitionPath).toList();
  }

  /**
   * Archival is due past {@code hoodie.keep.max.commits}, but Hudi may archive nothing (instants a pending plan or
   * the cleaner still needs). Re-run it only after the timeline grew by the archival window
   * ({@code keep.max - keep.min}) since the last run, not on every commit.
   */
  private boolean archiveDue(ServicedTable table, HoodieTableMetaClient metaClient, HoodieWriteConfig config) {
    if (!ServiceTriggers.archiveDue(metaClient, config)) {
      archivedAtCount.remove(table.id());
      return false;
    }
    int completed = metaClient.getActiveTimeline().filterCompletedInstants().countInstants();
    int window = Math.max(1, config.getMaxCommitsToKeep() - config.getMinCommitsToKeep());
    Integer last = archivedAtCount.get(table.id());
    if (last != null && completed < last + window) {
      return false;
    }
    archivedAtCount.put(table.id(), completed);
    return true;
  }

  /**
   * What one planning round did.
   *
   * @param scheduledInstants plans written in this round
   * @param enqueued work items queued in this round
   * @param timeTriggered whether elapsed time alone can make compaction due
   * @param recheckAt when the heartbeat of a pending plan that another process holds expires: its run is skipped
   *     while the heartbeat is alive, and if that process died nothing on the timeline changes to bring the plan
   *     back, so the table must be planned again by then; likewise when a live writer heartbeat expires (a
   *     writer that died leaves its instant to be rolled back)
   * @param failedWrites the writer commits found failed in this round and what was rolled back
   */
  public record Outcome(List<String> scheduledInstants, int enqueued, boolean timeTriggered,
                        Optional<Instant> recheckAt, FailedWrites failedWrites) {
    public Outcome {
      scheduledInstants = List.copyOf(scheduledInstants);
      Objects.requireNonNull(recheckAt, "recheckAt is null");
      Objects.requireNonNull(failedWrites, "failedWrites is null");
    }
  }

  public Outcome planAndEnqueue(ServicedTable table, HoodieTableMetaClient metaClient) {
    return planAndEnqueue(table, metaClient, tables.writeConfig(table, metaClient));
  }

  /** As {@link #planAndEnqueue(ServicedTable, HoodieTableMetaClient)}, with the table's write config at hand. */
  public Outcome planAndEnqueue(ServicedTable table, HoodieTableMetaClient metaClient, HoodieWriteConfig config) {
    synchronized (planningLock(table)) {
      return planAndEnqueueLocked(table, metaClient, config);
    }
  }

  /**
   * Planning of one table is serialized in this process: a poll and a REST request must not both find no pending
   * plan and both write one. Other processes are excluded by the table lock Hudi takes around scheduling.
   */
  private Object planningLock(ServicedTable table) {
    return planningLocks.computeIfAbsent(table.id(), id -> new Object());
  }

  private Outcome planAndEnqueueLocked(ServicedTable table, HoodieTableMetaClient metaClient,
                                       HoodieWriteConfig config) {
    // Before the daemon's own rollback of failed writes below: a writer's instant pending with an expired heartbeat
    // is counted as failed here, its rollback then as the same failure.
    writerFailures.observe(table.id(), metaClient);
    // Before the clean trigger and plan: a failed write holds the clean boundary back, so the plan would be empty
    // (and then nothing would ever roll the write back), even when the trigger says no clean is due.
    FailedWrites failed = failedWrites.run(table, metaClient, config, table.runs(ServiceType.CLEAN));
    List<PendingPlan> pending = PendingPlans.list(metaClient);
    Set<ServiceType> withPendingPlan = pending.stream().map(PendingPlan::service)
        .collect(Collectors.toCollection(() -> EnumSet.noneOf(ServiceType.class)));

    Set<ServiceType> due = EnumSet.noneOf(ServiceType.class);
    if (table.runs(ServiceType.COMPACTION) && !withPendingPlan.contains(ServiceType.COMPACTION)
        && ServiceTriggers.compactionDue(metaClient, config, System.currentTimeMillis())) {
      due.add(ServiceType.COMPACTION);
    }
    if (table.runs(ServiceType.CLUSTERING) && !withPendingPlan.contains(ServiceType.CLUSTERING)
        && ServiceTriggers.clusteringDue(metaClient, config)) {
      due.add(ServiceType.CLUSTERING);
    }
    if (table.runs(ServiceType.CLEAN) && !withPendingPlan.contains(ServiceType.CLEAN)
        && ServiceTriggers.cleanMayBeDue(metaClient)) {
      due.add(ServiceType.CLEAN);
    }

    Set<MetadataIndexKind> missingIndexes = table.runs(ServiceType.INDEX)
        && !withPendingPlan.contains(ServiceType.INDEX) ? indexTrigger.due(table, metaClient) : Set.of();
    if (!missingIndexes.isEmpty()) {
      due.add(ServiceType.INDEX);
    }

    List<String> scheduled = new ArrayList<>();
    if (!due.isEmpty()) {
      try (HoodieJavaWriteClient<HoodieAvroPayload> client = tables.writeClient(table)) {
        for (ServiceType service : due) {
          Option<String> instant = switch (service) {
            case COMPACTION -> client.scheduleCompaction(Option.empty());
            case CLUSTERING -> client.scheduleClustering(Option.empty());
            case CLEAN -> client.scheduleTableService(Option.empty(), TableServiceType.CLEAN);
            case INDEX -> indexTrigger.schedule(table, client, missingIndexes);
            default -> Option.empty();
          };
          if (instant.isPresent()) {
            scheduled.add(instant.get());
          }
        }
      }
      metaClient.reloadActiveTimeline();
      pending = PendingPlans.list(metaClient);
      for (PendingPlan plan : pending) {
        if (scheduled.contains(plan.instant())) {
          // Counted as the run's "Finished" line counts them (file groups written, bytes read).
          LOG.info("Scheduled table={} service={} instant={} {}{}", table.id(), plan.service().configName(),
              plan.instant(), PlanSizes.of(metaClient, plan), skippedHot(table, metaClient, plan));
        }
      }
      if (withdrawOverlapping(table, metaClient, config, pending, scheduled)) {
        metaClient.reloadActiveTimeline();
        pending = PendingPlans.list(metaClient);
      }
    }

    int enqueued = 0;
    Map<String, List<String>> overlapping = OverlappingPlans.later(pending);
    for (PendingPlan plan : pending) {
      if (overlapping.containsKey(plan.instant())) {
        LOG.error("Not executing plan table={} service={} instant={}: it shares file groups with the earlier pending"
            + " plan(s) {}, so some process planned without a table lock that excludes the others (check"
            + " hoodie.write.lock.provider on the daemon and the writers); remove the later plan", table.id(),
            plan.service().configName(), plan.instant(), overlapping.get(plan.instant()));
        continue;
      }
      if (table.runs(plan.service()) && pool.submit(WorkItem.forPlan(table, plan)).isPresent()) {
        enqueued++;
        if (!scheduled.contains(plan.instant())) {
          LOG.info("Enqueued pending plan table={} service={} instant={} inflight={} fileGroups={}", table.id(),
              plan.service().configName(), plan.instant(), plan.inflight(), plan.fileGroupIds().size());
        }
      }
    }
    if (table.runs(ServiceType.ARCHIVE) && archiveDue(table, metaClient, config)
        && pool.submit(WorkItem.forArchive(table)).isPresent()) {
      enqueued++;
    }
    return new Outcome(scheduled, enqueued,
        table.runs(ServiceType.COMPACTION) && ServiceTriggers.compactionTriggerUsesTime(config),
        earliest(earliestHeartbeatExpiry(table, metaClient, pending), failed.nextHeartbeatExpiry()), failed);
  }

  private static Optional<Instant> earliest(Optional<Instant> first, Optional<Instant> second) {
    if (first.isEmpty()) {
      return second;
    }
    return second.isPresent() && second.get().isBefore(first.get()) ? second : first;
  }

  /**
   * For a clustering plan just scheduled: " skippedHot=K", the file groups its planner left out because writers
   * wrote them recently (see HotAwareClusteringPlanStrategy), also counted in
   * {@code tsd_clustering_file_groups_skipped_hot_total}. Empty for other plans.
   */
  private static String skippedHot(ServicedTable table, HoodieTableMetaClient metaClient, PendingPlan plan) {
    if (plan.service() != ServiceType.CLUSTERING) {
      return "";
    }
    int skipped = HotFileGroups.skippedIn(ClusteringUtils.getPendingClusteringPlan(metaClient, plan.instant()));
    IngestionMetrics.SKIPPED_HOT.labels(table.id()).inc(skipped);
    return " skippedHot=" + skipped;
  }

  /**
   * Withdraws the plans this round wrote ({@code scheduled}) that share file groups with an earlier pending plan (see
   * {@link OverlappingPlans}), removing them from {@code scheduled}.
   *
   * @return whether a plan was removed from the timeline
   */
  private static boolean withdrawOverlapping(ServicedTable table, HoodieTableMetaClient metaClient,
                                             HoodieWriteConfig config, List<PendingPlan> pending,
                                             List<String> scheduled) {
    Map<String, List<String>> overlapping = OverlappingPlans.later(pending);
    boolean withdrawn = false;
    for (String instant : List.copyOf(scheduled)) {
      List<String> earlier = overlapping.get(instant);
      if (earlier == null) {
        continue;
      }
      boolean removed = OverlappingPlans.withdraw(config, metaClient, instant);
      LOG.error("Plan table={} instant={} shares file groups with the earlier pending plan(s) {}: another process"
          + " planned without a table lock that excludes this one (check hoodie.write.lock.provider on the daemon"
          + " and the writers). {}", table.id(), instant, earlier,
          removed ? "Withdrawn." : "Its execution has started elsewhere; it is not executed here.");
      scheduled.remove(instant);
      withdrawn |= removed;
    }
    return withdrawn;
  }

  /** The earliest expiry among live heartbeats of inflight plans this table's runs would skip. */
  private Optional<Instant> earliestHeartbeatExpiry(ServicedTable table, HoodieTableMetaClient metaClient,
                                                    List<PendingPlan> pending) {
    Optional<Instant> earliest = Optional.empty();
    for (PendingPlan plan : pending) {
      // PlanRunner checks heartbeats of inflight compaction and clustering plans only.
      if (!plan.inflight() || plan.service() == ServiceType.CLEAN || !table.runs(plan.service())) {
        continue;
      }
      Optional<Instant> expiry = liveness.aliveUntil(metaClient, plan.instant());
      if (expiry.isPresent() && (earliest.isEmpty() || expiry.get().isBefore(earliest.get()))) {
        earliest = expiry;
      }
    }
    return earliest;
  }
}
