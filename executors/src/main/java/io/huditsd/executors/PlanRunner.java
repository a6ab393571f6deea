package io.huditsd.executors;

import io.huditsd.config.EngineKind;
import io.huditsd.config.ServiceType;
import org.apache.hudi.common.table.HoodieTableMetaClient;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;

/**
 * Runs one work item: checks that the table's instant files are readable (see {@link InstantFileCheck}) and that its
 * plan is still pending and not held by a live process, then hands it to the engine that executes it. The checks are
 * the same whatever the engine; what a service's run needs (a heartbeat, client keys) its {@link ServiceAction} says.
 */
public final class PlanRunner implements Function<WorkItem, ActionResult> {
  private static final Logger LOG = LoggerFactory.getLogger(PlanRunner.class);
  private final HudiTables tables;
  private final PlanLiveness liveness;
  private final Map<ServiceType, ServiceAction> actions;
  private final Map<EngineKind, PlanEngine> engines;

  /** Runs the actions on Hudi's Java engine in this JVM. */
  public PlanRunner(HudiTables tables, List<ServiceAction> actions) {
    this(tables, actions, Map.of(EngineKind.JAVA, new JavaEngine(tables, actions)));
  }

  /** Runs every item on {@code engine}, whatever engine the item names (tests of the runner's own checks). */
  public PlanRunner(HudiTables tables, List<ServiceAction> actions, PlanEngine engine) {
    this(tables, actions, allEngines(engine));
  }

  /**
   * @param engines the engines configured; an item naming another fails with a message saying so
   */
  public PlanRunner(HudiTables tables, List<ServiceAction> actions, Map<EngineKind, PlanEngine> engines) {
    this.tables = Objects.requireNonNull(tables, "tables is null");
    this.liveness = new PlanLiveness(tables.heartbeat());
    this.actions = JavaEngine.byService(actions);
    this.engines = Map.copyOf(engines);
  }

  private static Map<EngineKind, PlanEngine> allEngines(PlanEngine engine) {
    Objects.requireNonNull(engine, "engine is null");
    Map<EngineKind, PlanEngine> all = new EnumMap<>(EngineKind.class);
    for (EngineKind kind : EngineKind.values()) {
      all.put(kind, engine);
    }
    return all;
  }

  public static PlanRunner withDefaultActions(HudiTables tables) {
    return new PlanRunner(tables, defaultActions());
  }

  /** One action per service, in {@link ServiceType} order. */
  public static List<ServiceAction> defaultActions() {
    return List.of(new CompactionAction(), new ClusteringAction(), new CleanAction(), new ArchiveAction(),
        new IndexAction());
  }

  @Override
  public ActionResult apply(WorkItem item) {
    ServiceAction action = actions.get(item.service());
    if (action == null) {
      throw new IllegalStateException("No action for service " + item.service());
    }
    HoodieTableMetaClient metaClient = tables.metaClient(item.table().basePath());
    // The poll that enqueued this item may predate a corrupt instant file: nothing runs over a timeline Hudi misreads.
    tables.instantFiles().verify(metaClient);
    if (item.instant().isPresent() && item.service() != ServiceType.ARCHIVE) {
      checkStillPending(item, action, metaClient);
    }
    PlanEngine engine = engines.get(item.placement().engine());
    if (engine == null) {
      throw new IllegalStateException("table " + item.table().id() + ": plan " + item.instant().orElse("-")
          + " is to run on engine " + item.placement().engine().configName() + ", which is not configured");
    }
    try {
      return engine.execute(item);
    } finally {
      // Whatever the run committed on a version-6 table may have made Hudi's metadata writer clean the metadata
      // table, which Hudi 1.2.0 starts with an empty .clean.inflight that writers of that version cannot archive.
      // Done after a failed run too (the clean may have completed before the failure); rewriting an empty inflight
      // with its requested plan writes the only bytes it may ever hold, so it needs no lock.
      repairCleanInflights(item, metaClient);
    }
  }

  private static void repairCleanInflights(WorkItem item, HoodieTableMetaClient metaClient) {
    try {
      CleanInflightPlans.repair(metaClient);
    } catch (RuntimeException e) {
      // The run's own outcome stands; the next run or the table's next first poll tries again.
      LOG.warn("table {}: could not write cleaner plans into empty .clean.inflight files after run of {}: {}",
          item.table().id(), item.instant().orElse(item.service().configName()), e.toString());
    }
  }

  private void checkStillPending(WorkItem item, ServiceAction action, HoodieTableMetaClient metaClient) {
    String instant = item.instant().orElseThrow();
    Optional<PendingPlan> plan = PendingPlans.find(metaClient, instant)
        .filter(pending -> pending.service() == item.service());
    if (plan.isEmpty()) {
      throw new PlanSkippedException("plan " + instant + " is no longer pending (completed or rolled back elsewhere)");
    }
    if (plan.get().inflight() && action.keepsHeartbeat() && liveness.isAlive(metaClient, instant)) {
      throw new PlanSkippedException("plan " + instant + " is being executed by a live process (heartbeat within "
          + tables.heartbeat().expiryMillis() + " ms)");
    }
  }
}
