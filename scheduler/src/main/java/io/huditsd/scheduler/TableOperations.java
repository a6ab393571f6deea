package io.huditsd.scheduler;

import io.huditsd.config.EngineKind;
import io.huditsd.config.ServiceType;
import io.huditsd.config.ServicedTable;
import io.huditsd.executors.ExecutionPlacement;
import io.huditsd.executors.HudiTables;
import io.huditsd.executors.PendingPlan;
import io.huditsd.executors.PendingPlans;
import io.huditsd.executors.RunRecord;
import io.huditsd.executors.WorkItem;
import io.huditsd.executors.WorkerPool;
import io.huditsd.executors.spark.SparkEngine;
import io.huditsd.ha.TableOwnership;
import io.huditsd.scheduler.OperationOutcomes.AlreadyQueued;
import io.huditsd.scheduler.OperationOutcomes.Cancel;
import io.huditsd.scheduler.OperationOutcomes.Cancelled;
import io.huditsd.scheduler.OperationOutcomes.DryRun;
import io.huditsd.scheduler.OperationOutcomes.EngineRefused;
import io.huditsd.scheduler.OperationOutcomes.Execution;
import io.huditsd.scheduler.OperationOutcomes.HandedOver;
import io.huditsd.scheduler.OperationOutcomes.Handover;
import io.huditsd.scheduler.OperationOutcomes.IndexPreviewed;
import io.huditsd.scheduler.OperationOutcomes.Killing;
import io.huditsd.scheduler.OperationOutcomes.NoPendingPlan;
import io.huditsd.scheduler.OperationOutcomes.NoPlanForService;
import io.huditsd.scheduler.OperationOutcomes.NoQueuedRun;
import io.huditsd.scheduler.OperationOutcomes.NotOwned;
import io.huditsd.scheduler.OperationOutcomes.NothingToPlan;
import io.huditsd.scheduler.OperationOutcomes.PauseChange;
import io.huditsd.scheduler.OperationOutcomes.Previewed;
import io.huditsd.scheduler.OperationOutcomes.Queued;
import io.huditsd.scheduler.OperationOutcomes.Scheduled;
import io.huditsd.scheduler.OperationOutcomes.Scheduling;
import io.huditsd.scheduler.OperationOutcomes.SchedulingRefused;
import io.huditsd.scheduler.OperationOutcomes.ServiceDisabled;
import io.huditsd.scheduler.OperationOutcomes.StillRunning;
import io.huditsd.scheduler.OperationOutcomes.TablePaused;
import io.huditsd.scheduler.OperationOutcomes.TableUnreadable;
import io.huditsd.scheduler.OperationOutcomes.UnknownTable;
import io.huditsd.scheduler.OperationOutcomes.Updated;
import org.apache.hudi.common.table.HoodieTableMetaClient;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * The operations an operator or a writer asks of the daemon, apart from the poll: execute a pending plan, schedule
 * one now (or preview it), pause and resume a table, cancel a queued run, take over the plans a writer hands over.
 * Each answers a sealed outcome from {@link OperationOutcomes} (the pool's {@link WorkerPool.Cancellation} for
 * cancel); the REST resources map outcomes to status codes, a command line would map them to exit codes.
 *
 * <p>The rules every on-demand path obeys are here: only the table's owner schedules and executes (others would
 * hand out work twice); nothing is scheduled or executed on request while the table is paused, except what a writer
 * hands over (it waits in the queue); a service disabled on the table gets no plan written and none enqueued (the
 * poll obeys the same rule, and {@link WorkItem} refuses such work outright).
 */
public final class TableOperations {
  private final TableRegistry registry;
  private final HudiTables tables;
  private final WorkerPool pool;
  private final DuePlanner planner;
  private final PlanPreview preview;
  private final TableOwnership ownership;
  private final Optional<SparkEngine> spark;

  /** Operations of a daemon without Spark. */
  public TableOperations(TableRegistry registry, HudiTables tables, WorkerPool pool, DuePlanner planner,
                         TableOwnership ownership) {
    this(registry, tables, pool, planner, ownership, Optional.empty());
  }

  /** @param spark the Spark engine, whose running applications {@link #cancel} kills */
  public TableOperations(TableRegistry registry, HudiTables tables, WorkerPool pool, DuePlanner planner,
                         TableOwnership ownership, Optional<SparkEngine> spark) {
    this.spark = requireNonNull(spark, "spark is null");
    this.registry = requireNonNull(registry, "registry is null");
    this.tables = requireNonNull(tables, "tables is null");
    this.pool = requireNonNull(pool, "pool is null");
    this.planner = requireNonNull(planner, "planner is null");
    this.ownership = requireNonNull(ownership, "ownership is null");
    this.preview = new PlanPreview(tables);
  }

  /** Queues the pending plan at {@code instant} of table {@code tableId}, placed by the table's engine policy. */
  public Execution execute(String tableId, String instant) {
    return execute(tableId, instant, Optional.empty());
  }

  /**
   * Queues the pending plan at {@code instant} of table {@code tableId}, whichever service it belongs to.
   *
   * @param engine the engine the request names; it wins over the table's engine policy ({@link ExecutionPlacement})
   */
  public Execution execute(String tableId, String instant, Optional<EngineKind> engine) {
    Optional<TableState> found = registry.get(tableId);
    if (found.isEmpty()) {
      return new UnknownTable(tableId);
    }
    ServicedTable table = found.get().table();
    if (!ownership.owns(tableId)) {
      return notOwned(tableId);
    }
    if (found.get().isPaused()) {
      return new TablePaused(tableId);
    }
    HoodieTableMetaClient metaClient;
    try {
      metaClient = TableProbe.openReadable(tables, table.basePath());
    } catch (TableProblem e) {
      return new TableUnreadable(tableId, e.getMessage());
    }
    Optional<PendingPlan> plan = PendingPlans.find(metaClient, instant);
    if (plan.isEmpty()) {
      return new NoPendingPlan(tableId, instant);
    }
    if (!table.runs(plan.get().service())) {
      return new ServiceDisabled(tableId, plan.get().service());
    }
    if (pool.isQueuedOrRunning(WorkItem.keyOf(table, plan.get()))) {
      // Before placing it: the queued run keeps the engine it was placed on.
      return new AlreadyQueued(tableId, instant, pool.find(WorkItem.keyOf(table, plan.get())));
    }
    WorkItem item;
    try {
      item = WorkItem.forPlan(table, plan.get(), planner.placement().place(metaClient, table, plan.get(), engine));
    } catch (ExecutionPlacement.EngineRefusedException e) {
      return new EngineRefused(tableId, instant, e.getMessage());
    }
    Optional<RunRecord> run = pool.submit(item);
    if (run.isPresent()) {
      return new Queued(run.get());
    }
    // The pool refuses work that is queued or running already, in one step; the run is looked up for the answer.
    return new AlreadyQueued(tableId, instant, pool.find(item.key()));
  }

  /**
   * Writes a plan of {@code service} now, whatever its trigger says, if Hudi finds anything to plan, and queues it.
   * Refused while the service has a pending plan (see {@link DuePlanner#scheduleNow}).
   */
  public Scheduling schedule(String tableId, ServiceType service) {
    Optional<TableState> found = registry.get(tableId);
    if (found.isEmpty()) {
      return new UnknownTable(tableId);
    }
    if (planner.services().planned(service).isEmpty()) {
      return new NoPlanForService(service);
    }
    ServicedTable table = found.get().table();
    if (!ownership.owns(tableId)) {
      return notOwned(tableId);
    }
    if (found.get().isPaused()) {
      return new TablePaused(tableId);
    }
    if (!table.runs(service)) {
      // Before writing: a plan the daemon never executes would only hold back the next plan of the service.
      return new ServiceDisabled(tableId, service);
    }
    try {
      // Checked apart from planning, so that an unreadable table answers its own refusal; scheduleNow checks the
      // instant files again under the planning lock, against the timeline it plans over.
      TableProbe.openReadable(tables, table.basePath());
    } catch (TableProblem e) {
      return new TableUnreadable(tableId, e.getMessage());
    }
    Optional<String> instant;
    try {
      instant = planner.scheduleNow(table, service);
    } catch (IllegalStateException e) {
      return new SchedulingRefused(tableId, service, e.getMessage());
    }
    return instant.<Scheduling>map(written -> new Scheduled(tableId, service, written))
        .orElseGet(() -> new NothingToPlan(tableId, service));
  }

  /**
   * The plan of {@code service} Hudi would write now, without writing it. Answered on any replica, paused or not,
   * and for services disabled on the table: it reads the timeline and changes nothing.
   */
  public DryRun dryRun(String tableId, ServiceType service) {
    Optional<TableState> found = registry.get(tableId);
    if (found.isEmpty()) {
      return new UnknownTable(tableId);
    }
    if (planner.services().planned(service).isEmpty()) {
      return new NoPlanForService(service);
    }
    ServicedTable table = found.get().table();
    HoodieTableMetaClient metaClient;
    try {
      // The checks a real schedule makes: a preview over a timeline Hudi misreads would show a plan it never writes.
      metaClient = TableProbe.openReadable(tables, table.basePath());
    } catch (TableProblem e) {
      return new TableUnreadable(tableId, e.getMessage());
    }
    if (service == ServiceType.INDEX) {
      List<String> partitions = planner.nextIndexPlan(table, metaClient);
      return partitions.isEmpty() ? new NothingToPlan(tableId, service) : new IndexPreviewed(partitions);
    }
    PlanPreview.Preview plan = preview.preview(table, service, metaClient);
    return plan.isEmpty() ? new NothingToPlan(tableId, service) : new Previewed(plan);
  }

  /** Holds the table back: it is polled and reported, but nothing is scheduled or executed. */
  public PauseChange pause(String tableId) {
    Optional<TableState> found = registry.get(tableId);
    if (found.isEmpty()) {
      return new UnknownTable(tableId);
    }
    found.get().setPaused(true);
    return new Updated(found.get());
  }

  /** Lets the table's queued work run again, and its next poll enqueue what arrived meanwhile. */
  public PauseChange resume(String tableId) {
    Optional<TableState> found = registry.get(tableId);
    if (found.isEmpty()) {
      return new UnknownTable(tableId);
    }
    found.get().setPaused(false);
    pool.wake();
    return new Updated(found.get());
  }

  /**
   * Removes queued run {@code runId} (one step on the pool's lock), or kills the application of a run executing on
   * Spark: that run ends cancelled, and its plan stays pending, to be rolled back and executed at its next attempt.
   * A run executing in the daemon is never interrupted.
   */
  public Cancel cancel(long runId) {
    WorkerPool.Cancellation outcome = pool.cancel(runId);
    if (outcome instanceof WorkerPool.Cancellation.Cancelled cancelled) {
      return new Cancelled(cancelled.run());
    }
    if (outcome instanceof WorkerPool.Cancellation.Running running) {
      RunRecord run = running.run();
      if (run.item().placement().engine() == EngineKind.SPARK && spark.isPresent()
          && spark.get().cancel(run.item().key())) {
        return new Killing(run);
      }
      return new StillRunning(run);
    }
    return new NoQueuedRun(runId);
  }

  /**
   * Queues the plans of {@code service} at {@code instants} that a writer scheduled and handed over (Hudi's table
   * service manager client). Queued while the table is paused too: they run once it is resumed, as the writer
   * expects them to run at some point and asks only once.
   */
  public Handover handOver(String tableId, ServiceType service, List<String> instants) {
    Optional<TableState> found = registry.get(tableId);
    if (found.isEmpty()) {
      return new UnknownTable(tableId);
    }
    ServicedTable table = found.get().table();
    if (!ownership.owns(tableId)) {
      // The owner enqueues every pending plan of the table on its next poll, these included.
      return notOwned(tableId);
    }
    if (!table.runs(service)) {
      return new ServiceDisabled(tableId, service);
    }
    HoodieTableMetaClient metaClient;
    try {
      metaClient = TableProbe.openReadable(tables, table.basePath());
    } catch (TableProblem e) {
      return new TableUnreadable(tableId, e.getMessage());
    }
    List<String> queued = new ArrayList<>();
    List<String> ignored = new ArrayList<>();
    for (String instant : instants) {
      Optional<PendingPlan> plan = PendingPlans.find(metaClient, instant)
          .filter(pending -> pending.service() == service);
      if (plan.isEmpty()) {
        ignored.add(instant);
      } else {
        // Already queued or running counts as queued: the writer's wish is met.
        pool.submit(WorkItem.forPlan(table, plan.get(),
            planner.placement().place(metaClient, table, plan.get(), Optional.empty())));
        queued.add(instant);
      }
    }
    return new HandedOver(tableId, queued, ignored, found.get().isPaused());
  }

  private NotOwned notOwned(String tableId) {
    return new NotOwned(tableId, ownership.owner(tableId), ownership.replicaId());
  }
}
