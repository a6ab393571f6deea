package io.huditsd.executors;

import io.huditsd.config.ServiceType;
import org.apache.hudi.common.table.HoodieTableMetaClient;

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
  private final HudiTables tables;
  private final PlanLiveness liveness;
  private final Map<ServiceType, ServiceAction> actions;
  private final PlanEngine engine;

  /** Runs the actions on Hudi's Java engine in this JVM. */
  public PlanRunner(HudiTables tables, List<ServiceAction> actions) {
    this(tables, actions, new JavaEngine(tables, actions));
  }

  public PlanRunner(HudiTables tables, List<ServiceAction> actions, PlanEngine engine) {
    this.tables = Objects.requireNonNull(tables, "tables is null");
    this.liveness = new PlanLiveness(tables.heartbeat());
    this.actions = JavaEngine.byService(actions);
    this.engine = Objects.requireNonNull(engine, "engine is null");
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
    return engine.execute(item);
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
