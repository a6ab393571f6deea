package io.huditsd.scheduler;

import io.huditsd.config.ServiceType;
import io.huditsd.config.ServicedTable;
import io.huditsd.config.WriterHeartbeat;
import io.huditsd.executors.CorruptInstantException;
import io.huditsd.executors.ExecutionPlacement;
import io.huditsd.executors.FailedWrites;
import io.huditsd.executors.FailedWritesRollback;
import io.huditsd.executors.HudiTables;
import io.huditsd.executors.PendingPlan;
import io.huditsd.executors.PendingPlans;
import io.huditsd.executors.PlanLiveness;
import io.huditsd.executors.PlanSizes;
import io.huditsd.executors.RunRecord;
import io.huditsd.executors.WorkItem;
import io.huditsd.executors.WorkerPool;
import org.apache.hudi.client.HoodieJavaWriteClient;
import org.apache.hudi.common.model.HoodieAvroPayload;
import org.apache.hudi.common.table.HoodieTableMetaClient;
import org.apache.hudi.common.util.Option;
import org.apache.hudi.config.HoodieWriteConfig;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * Decides what is due on a table, writes those plans onto its timeline through Hudi (which takes the table lock in
 * multi-writer mode), and enqueues every pending plan, the daemon's own and those its writers scheduled. What is due
 * and how it is scheduled each {@link TableService} says; this class loops over them.
 *
 * <p>A service with a pending plan gets no new plan: Hudi leaves the file groups of an unfinished compaction out of
 * a new one, so planning before the old plan finished would strand the logs written into them.
 */
public final class DuePlanner {
  private static final Logger LOG = LoggerFactory.getLogger(DuePlanner.class);
  private static final ServiceDecision DEFERRED_CLEAN = ServiceDecision.of(ServiceType.CLEAN,
      ServiceDecision.Reason.DEFERRED, "waits for the table's compaction or clustering queued or running here; the"
      + " next poll plans it");

  private final HudiTables tables;
  private final WorkerPool pool;
  private final PlanLiveness liveness;
  private final Map<String, Object> planningLocks = new ConcurrentHashMap<>();
  private final TableServices services;
  private final FailedWritesRollback failedWrites;
  private final WriterFailures writerFailures;
  private final CleanDeferral cleanDeferral = new CleanDeferral();
  private final ExecutionPlacement placement;

  /** Every plan runs in the daemon's JVM (a daemon without a Spark section, and tests). */
  public DuePlanner(HudiTables tables, WorkerPool pool) {
    this(tables, pool, ExecutionPlacement.inProcess());
  }

  public DuePlanner(HudiTables tables, WorkerPool pool, ExecutionPlacement placement) {
    this(tables, pool, placement, new IndexTrigger());
  }

  DuePlanner(HudiTables tables, WorkerPool pool, IndexTrigger indexTrigger) {
    this(tables, pool, ExecutionPlacement.inProcess(), indexTrigger);
  }

  DuePlanner(HudiTables tables, WorkerPool pool, ExecutionPlacement placement, IndexTrigger indexTrigger) {
    this.tables = Objects.requireNonNull(tables, "tables is null");
    this.pool = Objects.requireNonNull(pool, "pool is null");
    this.placement = Objects.requireNonNull(placement, "placement is null");
    this.liveness = new PlanLiveness(tables.heartbeat());
    this.services = new TableServices(indexTrigger, pool.memoryBudgetBytes());
    this.failedWrites = new FailedWritesRollback(tables);
    this.writerFailures = new WriterFailures();
  }

  /**
   * Forgets what planning remembered about a table that is no longer serviced here (the registry removed it):
   * its planning lock, counted writer failures, clean deferral, and what its services remember (archival count,
   * clustering group cap announced, index warnings and attempts). Every such per-table memory of
   * planning is released here, so a lake whose tables come and go does not keep them for the life of the process.
   * A planning round of the table in flight finishes with the memory it holds.
   */
  public void forget(String tableId) {
    Objects.requireNonNull(tableId, "tableId is null");
    planningLocks.remove(tableId);
    writerFailures.forget(tableId);
    cleanDeferral.forget(tableId);
    services.forget(tableId);
  }

  /** The tables planning remembers something about (see {@link #forget}); for tests and diagnostics. */
  public Set<String> rememberedTables() {
    Set<String> remembered = new TreeSet<>(planningLocks.keySet());
    remembered.addAll(writerFailures.tables());
    remembered.addAll(cleanDeferral.tables());
    remembered.addAll(services.rememberedTables());
    return remembered;
  }

  /** How the plans this planner queues execute; REST and the table service manager endpoint queue with it too. */
  public ExecutionPlacement placement() {
    return placement;
  }

  /** The services this planner plans, each with its rules. */
  public TableServices services() {
    return services;
  }

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

  private Optional<String> scheduleNowLocked(ServicedTable table, ServiceType type) {
    PlannedService service = services.planned(type)
        .orElseThrow(() -> new IllegalArgumentException(type.configName() + " has no plan to schedule"));
    HoodieTableMetaClient metaClient = tables.metaClient(table.basePath());
    verifyReadable(metaClient);
    List<String> withoutHeartbeat = FailedWritesRollback.withoutHeartbeat(metaClient);
    if (!withoutHeartbeat.isEmpty()) {
      throw new IllegalStateException("table " + table.id() + ": "
          + FailedWrites.singleWriterProblem(withoutHeartbeat));
    }
    if (service.rollsBackFailedWritesFirst()) {
      failedWrites.run(table, metaClient, tables.writeConfig(table, metaClient), true);
    }
    refuseWhilePending(table, metaClient, type);
    Optional<PlannedService.Scheduling> scheduling = service.onRequest(table, metaClient);
    if (scheduling.isEmpty()) {
      return Optional.empty();
    }
    Option<String> instant;
    try (HoodieJavaWriteClient<HoodieAvroPayload> client = tables.writeClient(forcedNow(table, service))) {
      instant = scheduling.get().schedule(client);
    }
    if (!instant.isPresent()) {
      return Optional.empty();
    }
    keepUnlessOverlapping(table, metaClient, service, instant.get());
    enqueueScheduledOnRequest(table, metaClient, service, instant.get());
    return Optional.of(instant.get());
  }

  /** Refused as the table's poll is: Hudi would plan over a timeline it misreads. */
  private void verifyReadable(HoodieTableMetaClient metaClient) {
    try {
      tables.instantFiles().verify(metaClient);
    } catch (CorruptInstantException e) {
      throw new IllegalStateException(e.getMessage(), e);
    }
  }

  private static void refuseWhilePending(ServicedTable table, HoodieTableMetaClient metaClient, ServiceType type) {
    if (PendingPlans.list(metaClient).stream().anyMatch(plan -> plan.service() == type)) {
      throw new IllegalStateException("table " + table.id() + " already has a pending " + type.configName()
          + " plan; it is executed first");
    }
  }

  /** The table with the keys that make {@code service} plan now on top of its own. */
  private static ServicedTable forcedNow(ServicedTable table, PlannedService service) {
    Map<String, String> keys = new HashMap<>(table.hoodieKeys());
    keys.putAll(service.forceNowKeys());
    return table.withHoodieKeys(keys);
  }

  /** Withdraws the plan just written on request if it overlaps an earlier one, and then refuses the request. */
  private void keepUnlessOverlapping(ServicedTable table, HoodieTableMetaClient metaClient, PlannedService service,
                                     String instant) {
    metaClient.reloadActiveTimeline();
    List<String> scheduled = new ArrayList<>(List.of(instant));
    if (withdrawOverlapping(table, metaClient, tables.writeConfig(table, metaClient), PendingPlans.list(metaClient),
        scheduled)) {
      metaClient.reloadActiveTimeline();
    }
    if (scheduled.isEmpty()) {
      throw new IllegalStateException("table " + table.id() + ": the new " + service.type().configName() + " plan "
          + instant + " shares file groups with another pending plan and was not kept; see the log");
    }
  }

  private void enqueueScheduledOnRequest(ServicedTable table, HoodieTableMetaClient metaClient,
                                         PlannedService service, String instant) {
    PendingPlans.find(metaClient, instant).ifPresent(plan -> {
      LOG.info("Scheduled on request table={} service={} instant={} {}{}", table.id(), service.type().configName(),
          plan.instant(), PlanSizes.of(metaClient, plan), scheduledDetail(table, metaClient, plan));
      pool.submit(WorkItem.forPlan(table, plan, placement.place(metaClient, table, plan, Optional.empty())));
    });
  }

  /**
   * The metadata partitions an indexing plan scheduled now would build: the first wanted index the table lacks
   * (one index per plan, see {@link IndexTrigger#schedule}); empty when none is missing.
   */
  public List<String> nextIndexPlan(ServicedTable table, HoodieTableMetaClient metaClient) {
    return services.index().nextPlan(table, metaClient);
  }

  /**
   * What one planning round did.
   *
   * @param scheduledInstants plans written in this round
   * @param enqueued work items queued in this round
   * @param timeTriggered whether elapsed time alone can make a service due (compaction by time)
   * @param recheckAt when the heartbeat of a pending plan that another process holds expires: its run is skipped
   *     while the heartbeat is alive, and if that process died nothing on the timeline changes to bring the plan
   *     back, so the table must be planned again by then; likewise when a live writer heartbeat expires (a
   *     writer that died leaves its instant to be rolled back) and when a rollback of failed writes is to be tried
   *     again ({@link FailedWrites#recheckAt}); and at once when the round left the clean and archival to the next
   *     poll ({@link CleanDeferral})
   * @param failedWrites the writer commits found failed in this round and what was rolled back
   * @param decisions what the round decided for each service, and why (every service, those the table does not run
   *     as {@link ServiceDecision.Reason#DISABLED})
   */
  public record Outcome(List<String> scheduledInstants, int enqueued, boolean timeTriggered,
                        Optional<Instant> recheckAt, FailedWrites failedWrites,
                        Map<ServiceType, ServiceDecision> decisions) {
    public Outcome {
      scheduledInstants = List.copyOf(scheduledInstants);
      decisions = Map.copyOf(decisions);
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
    FailedWrites failed = handleFailedWrites(table, metaClient, config);
    Optional<String> singleWriter = failed.singleWriterProblem();
    if (singleWriter.isPresent()) {
      // Its writer takes no part in Hudi's multi-writer protocol: a plan written or run beside it could roll its
      // write back (a clean) or miss its conflicts. The write's end changes the timeline, and the next poll plans.
      LOG.debug("Table {}: nothing scheduled: {}", table.id(), singleWriter.get());
      return new Outcome(List.of(), 0, timeTriggered(table, config), failed.recheckAt(), failed,
          ServiceDecision.forEveryService(table, ServiceDecision.Reason.SINGLE_WRITER, singleWriter.get()));
    }
    List<PendingPlan> pending = PendingPlans.list(metaClient);
    List<String> scheduled = new ArrayList<>();
    int enqueued = 0;
    CleanDeferral.Round deferral = cleanDeferral.round(table.id());
    Map<ServiceType, ServiceDecision> decisions = new EnumMap<>(ServiceType.class);
    try {
      Map<PlannedService, PlannedService.Scheduling> due = dueServices(table, metaClient, config, pending, decisions);
      // Opened when the first service that does not wait is scheduled: a round whose only due service is a deferred
      // clean opens no client (a fresh meta client: a GET and a LIST on an object store).
      try (OpenedOnUse client = new OpenedOnUse(() -> tables.writeClient(table))) {
        for (Map.Entry<PlannedService, PlannedService.Scheduling> service : due.entrySet()) {
          if (pool.isStopping()) {
            // A stop began during this poll: a plan written now would only wait for the next process.
            break;
          }
          List<PendingPlan> current = pending;
          ServiceType type = service.getKey().type();
          if (type == ServiceType.CLEAN && deferral.defers(() -> compactingOrClustering(table, current))) {
            decisions.put(type, DEFERRED_CLEAN);
            continue;
          }
          Option<String> instant = service.getValue().schedule(client.get());
          if (instant.isEmpty()) {
            decisions.put(type, service.getKey().nothingPlanned(table, metaClient, config));
            continue;
          }
          List<String> written = new ArrayList<>(List.of(instant.get()));
          pending = afterScheduling(table, metaClient, config, written);
          scheduled.addAll(written);
          decisions.put(type, written.isEmpty()
              ? ServiceDecision.of(type, ServiceDecision.Reason.WITHDRAWN, "the plan " + instant.get()
                  + " shared file groups with an earlier pending plan and was withdrawn (see the log)")
              : ServiceDecision.of(type, ServiceDecision.Reason.SCHEDULED, "scheduled " + instant.get()));
          // Queued as soon as it is written: a tiny compaction does not wait for a plan after it to be written
          // (a plan and its skew-adjusted instant take a few hundred milliseconds each).
          enqueued += enqueuePending(table, metaClient, pending, scheduled,
              plan -> written.contains(plan.instant()));
        }
      }
      enqueued += enqueuePending(table, metaClient, pending, scheduled, plan -> !scheduled.contains(plan.instant()))
          + enqueueArchiveIfDue(table, metaClient, config, deferral, pending, decisions);
    } finally {
      deferral.end();
    }
    if (deferral.deferred()) {
      LOG.debug("Table {}: clean and archival wait for the next poll behind the table's running compaction or"
          + " clustering", table.id());
    }
    // A deferral is planned at the next poll even when the timeline has not changed by then.
    Optional<Instant> deferredUntil = deferral.deferred() ? Optional.of(Instant.now()) : Optional.empty();
    return new Outcome(scheduled, enqueued, timeTriggered(table, config),
        earliest(earliest(earliestHeartbeatExpiry(table, metaClient, pending), failed.recheckAt()), deferredUntil),
        failed, decisions);
  }

  /** Whether a compaction or clustering plan of the table is queued or running in this daemon (see CleanDeferral). */
  private boolean compactingOrClustering(ServicedTable table, List<PendingPlan> pending) {
    return pending.stream().anyMatch(plan
        -> (plan.service() == ServiceType.COMPACTION || plan.service() == ServiceType.CLUSTERING)
        && pool.isQueuedOrRunning(WorkItem.keyOf(table, plan)));
  }

  /** Counts writers' failed commits, then rolls back those the daemon may roll back. */
  private FailedWrites handleFailedWrites(ServicedTable table, HoodieTableMetaClient metaClient,
                                          HoodieWriteConfig config) {
    // Before the daemon's own rollback of failed writes below: a writer's instant pending with an expired heartbeat
    // is counted as failed here, its rollback then as the same failure.
    writerFailures.observe(table.id(), metaClient, WriterHeartbeat.of(table.hoodieKeys()).expiryMillis());
    // Before the clean trigger and plan: a failed write holds the clean boundary back, so the plan would be empty
    // (and then nothing would ever roll the write back), even when the trigger says no clean is due.
    return failedWrites.run(table, metaClient, config, table.runs(ServiceType.CLEAN));
  }

  /**
   * The services the table runs that have no pending plan and are due, in scheduling order, with how to plan; why
   * each other service is not planned goes into {@code decisions}.
   */
  private Map<PlannedService, PlannedService.Scheduling> dueServices(ServicedTable table,
                                                                     HoodieTableMetaClient metaClient,
                                                                     HoodieWriteConfig config,
                                                                     List<PendingPlan> pending,
                                                                     Map<ServiceType, ServiceDecision> decisions) {
    long now = System.currentTimeMillis();
    Map<PlannedService, PlannedService.Scheduling> due = new LinkedHashMap<>();
    for (PlannedService service : services.planned()) {
      ServiceType type = service.type();
      if (!table.runs(type)) {
        decisions.put(type, disabled(type));
        continue;
      }
      Optional<PendingPlan> waiting = pending.stream().filter(plan -> plan.service() == type).findFirst();
      if (waiting.isPresent()) {
        decisions.put(type, ServiceDecision.of(type, ServiceDecision.Reason.PENDING_PLAN, "the pending plan "
            + waiting.get().instant() + (waiting.get().inflight() ? " (inflight)" : " (requested)")
            + " runs first; no new plan until it completes"));
        continue;
      }
      PlannedService.Due answer = service.due(table, metaClient, config, now);
      if (answer instanceof PlannedService.Due.Yes yes) {
        due.put(service, yes.scheduling());
      } else if (answer instanceof PlannedService.Due.No no) {
        decisions.put(type, no.why());
      }
    }
    return due;
  }

  /** The decision for a service the table does not run. */
  static ServiceDecision disabled(ServiceType type) {
    return ServiceDecision.of(type, ServiceDecision.Reason.DISABLED,
        "not among the table's services (services: of the table or tsd.yml, --services of once)");
  }

  /**
   * Logs the plans just written and withdraws those that overlap an earlier pending plan (removed from
   * {@code scheduled}).
   *
   * @return the pending plans as the timeline holds them now
   */
  private List<PendingPlan> afterScheduling(ServicedTable table, HoodieTableMetaClient metaClient,
                                            HoodieWriteConfig config, List<String> scheduled) {
    metaClient.reloadActiveTimeline();
    List<PendingPlan> pending = PendingPlans.list(metaClient);
    for (PendingPlan plan : pending) {
      if (scheduled.contains(plan.instant())) {
        // Counted as the run's "Finished" line counts them (file groups written, bytes read).
        LOG.info("Scheduled table={} service={} instant={} {}{}", table.id(), plan.service().configName(),
            plan.instant(), PlanSizes.of(metaClient, plan), scheduledDetail(table, metaClient, plan));
      }
    }
    if (withdrawOverlapping(table, metaClient, config, pending, scheduled)) {
      metaClient.reloadActiveTimeline();
      pending = PendingPlans.list(metaClient);
    }
    return pending;
  }

  private String scheduledDetail(ServicedTable table, HoodieTableMetaClient metaClient, PendingPlan plan) {
    return services.planned(plan.service()).map(service -> service.scheduledDetail(table, metaClient, plan))
        .orElse("");
  }

  /**
   * Enqueues the pending plans {@code which} selects of a service the table runs, except those that overlap an
   * earlier plan (of all {@code pending}).
   *
   * @return how many were queued
   */
  private int enqueuePending(ServicedTable table, HoodieTableMetaClient metaClient, List<PendingPlan> pending,
                             List<String> scheduled, Predicate<PendingPlan> which) {
    int enqueued = 0;
    Map<String, List<String>> overlapping = OverlappingPlans.later(pending);
    for (PendingPlan plan : pending) {
      if (!which.test(plan)) {
        continue;
      }
      if (overlapping.containsKey(plan.instant())) {
        LOG.error("Not executing plan table={} service={} instant={}: it shares file groups with the earlier pending"
            + " plan(s) {}, so some process planned without a table lock that excludes the others (check"
            + " hoodie.write.lock.provider on the daemon and the writers); remove the later plan", table.id(),
            plan.service().configName(), plan.instant(), overlapping.get(plan.instant()));
        continue;
      }
      // Queued already: the pool refuses it before the plan is read again to place it.
      if (!table.runs(plan.service()) || pool.isQueuedOrRunning(WorkItem.keyOf(table, plan))) {
        continue;
      }
      Optional<RunRecord> run = pool.submit(
          WorkItem.forPlan(table, plan, placement.place(metaClient, table, plan, Optional.empty())));
      // A final record is a plan the pool refused at once (over the memory budget); it logged why.
      if (run.isPresent() && !run.get().status().isFinal()) {
        enqueued++;
        if (!scheduled.contains(plan.instant())) {
          LOG.info("Enqueued pending plan table={} service={} instant={} inflight={} fileGroups={}", table.id(),
              plan.service().configName(), plan.instant(), plan.inflight(), plan.fileGroupIds().size());
        }
      }
    }
    return enqueued;
  }

  /**
   * Archival has no plan: a due table gets a work item without an instant. 1 when one was queued. It waits with the
   * clean ({@link CleanDeferral}); asked before {@link ArchiveService#decide}, whose every "scheduled" counts as a run.
   */
  private int enqueueArchiveIfDue(ServicedTable table, HoodieTableMetaClient metaClient, HoodieWriteConfig config,
                                  CleanDeferral.Round deferral, List<PendingPlan> pending,
                                  Map<ServiceType, ServiceDecision> decisions) {
    ArchiveService archive = services.archive();
    if (!table.runs(archive.type())) {
      decisions.put(archive.type(), disabled(archive.type()));
      return 0;
    }
    if (ArchiveService.pastMaxCommits(metaClient, config)
        && deferral.defers(() -> compactingOrClustering(table, pending))) {
      decisions.put(archive.type(), ServiceDecision.of(archive.type(), ServiceDecision.Reason.DEFERRED,
          DEFERRED_CLEAN.message()));
      return 0;
    }
    ServiceDecision decision = archive.decide(table, metaClient, config);
    decisions.put(archive.type(), decision);
    return decision.reason() == ServiceDecision.Reason.SCHEDULED
        && pool.submit(WorkItem.forArchive(table)).isPresent() ? 1 : 0;
  }

  private boolean timeTriggered(ServicedTable table, HoodieWriteConfig config) {
    return services.all().stream().anyMatch(service -> table.runs(service.type()) && service.timeCanMakeDue(config));
  }

  private static Optional<Instant> earliest(Optional<Instant> first, Optional<Instant> second) {
    if (first.isEmpty()) {
      return second;
    }
    return second.isPresent() && second.get().isBefore(first.get()) ? second : first;
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

  /**
   * The earliest expiry among live heartbeats of inflight plans this table's runs would skip: those of services
   * whose runs keep a heartbeat (see {@link TableService#keepsHeartbeat()}), as the runner checks them.
   */
  private Optional<Instant> earliestHeartbeatExpiry(ServicedTable table, HoodieTableMetaClient metaClient,
                                                    List<PendingPlan> pending) {
    Optional<Instant> earliest = Optional.empty();
    for (PendingPlan plan : pending) {
      if (!plan.inflight() || !services.of(plan.service()).keepsHeartbeat() || !table.runs(plan.service())) {
        continue;
      }
      Optional<Instant> expiry = liveness.aliveUntil(metaClient, plan.instant());
      if (expiry.isPresent() && (earliest.isEmpty() || expiry.get().isBefore(earliest.get()))) {
        earliest = expiry;
      }
    }
    return earliest;
  }

  /** A round's write client, opened when a service first asks for it and closed with the round if it was. */
  private static final class OpenedOnUse implements AutoCloseable {
    private final Supplier<HoodieJavaWriteClient<HoodieAvroPayload>> open;
    private HoodieJavaWriteClient<HoodieAvroPayload> client;

    OpenedOnUse(Supplier<HoodieJavaWriteClient<HoodieAvroPayload>> open) {
      this.open = open;
    }

    HoodieJavaWriteClient<HoodieAvroPayload> get() {
      if (client == null) {
        client = open.get();
      }
      return client;
    }

    @Override
    public void close() {
      if (client != null) {
        client.close();
      }
    }
  }
}
