package io.huditsd.api.rest;

import io.huditsd.api.RunHistory;
import io.huditsd.api.ServiceOutcomes;
import io.huditsd.config.ServiceType;
import io.huditsd.executors.HudiTables;
import io.huditsd.executors.PendingPlan;
import io.huditsd.executors.PendingPlans;
import io.huditsd.executors.RunRecord;
import io.huditsd.executors.WorkItem;
import io.huditsd.executors.WorkerPool;
import io.huditsd.ha.TableOwnership;
import io.huditsd.scheduler.DuePlanner;
import io.huditsd.scheduler.PlanPreview;
import io.huditsd.scheduler.TableRegistry;
import io.huditsd.scheduler.TableSnapshot;
import io.huditsd.scheduler.TableState;
import io.huditsd.scheduler.view.FileSliceRows;
import io.huditsd.scheduler.view.TableBacklog;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import org.apache.hudi.common.table.HoodieTableMetaClient;

import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.stream.Stream;

/** Tables: inspect them, their file groups, plans and runs; schedule, execute, pause and resume. */
@Path("/api/v1/tables")
@Produces(MediaType.APPLICATION_JSON)
public final class TablesResource {
  static final int RECENT_PLANS = 20;

  private final TableRegistry registry;
  private final HudiTables tables;
  private final WorkerPool pool;
  private final RunHistory history;
  private final ServiceOutcomes outcomes;
  private final DuePlanner planner;
  private final PlanPreview preview;
  private final TableOwnership ownership;

  public TablesResource(TableRegistry registry, HudiTables tables, WorkerPool pool, RunHistory history,
                        ServiceOutcomes outcomes, DuePlanner planner, TableOwnership ownership) {
    this.ownership = Objects.requireNonNull(ownership, "ownership is null");
    this.registry = Objects.requireNonNull(registry, "registry is null");
    this.tables = Objects.requireNonNull(tables, "tables is null");
    this.pool = Objects.requireNonNull(pool, "pool is null");
    this.history = Objects.requireNonNull(history, "history is null");
    this.outcomes = Objects.requireNonNull(outcomes, "outcomes is null");
    this.planner = Objects.requireNonNull(planner, "planner is null");
    this.preview = new PlanPreview(tables);
  }

  @GET
  public List<TableView> list() {
    return registry.all().stream()
        .map(state -> TableView.of(state.snapshot(), outcomes.of(state.table().id()), null, owner(state.table().id())))
        .sorted(Comparator.comparing(TableView::id)).toList();
  }

  @GET
  @Path("/{id}")
  public TableView get(@PathParam("id") String id) {
    TableSnapshot snapshot = table(id).snapshot();
    HoodieTableMetaClient metaClient = snapshot.metaClient()
        .orElseGet(() -> tables.metaClient(snapshot.table().basePath()));
    return TableView.of(snapshot, outcomes.of(id), tables.effectiveKeys(snapshot.table(), metaClient), owner(id));
  }

  @GET
  @Path("/{id}/file-groups")
  public List<FileSliceView> fileGroups(@PathParam("id") String id, @QueryParam("partition") String partition,
                                        @QueryParam("all") boolean allSlices) {
    TableState state = table(id);
    Optional<String> onlyPartition = Optional.ofNullable(partition).filter(p -> !p.isBlank());
    Optional<TableBacklog> backlog = state.snapshot().backlog();
    if (!allSlices && backlog.isPresent()) {
      // The rows the gauges were summed from at the last changed poll: cheap, and consistent with the metrics.
      return backlog.get().liveSlices().stream()
          .filter(row -> onlyPartition.map(row.partitionPath()::equals).orElse(true))
          .map(FileSliceView::of).toList();
    }
    HoodieTableMetaClient metaClient = tables.metaClient(state.table().basePath());
    return FileSliceRows.read(tables.engineContext(), metaClient, onlyPartition, allSlices)
        .stream().map(FileSliceView::of).toList();
  }

  @GET
  @Path("/{id}/plans")
  public List<PlanView> plans(@PathParam("id") String id) {
    return PlanViews.list(tables.metaClient(table(id).table().basePath()), RECENT_PLANS);
  }

  @GET
  @Path("/{id}/plans/{instant}")
  public PlanView plan(@PathParam("id") String id, @PathParam("instant") String instant) {
    return PlanViews.find(tables.metaClient(table(id).table().basePath()), instant)
        .orElseThrow(() -> ApiException.notFound("Table '" + id + "' has no plan at instant '" + instant + "'"));
  }

  @POST
  @Path("/{id}/plans/{instant}/execute")
  public Response execute(@PathParam("id") String id, @PathParam("instant") String instant) {
    TableState state = table(id);
    requireOwned(state);
    requireNotPaused(state);
    PendingPlan plan = PendingPlans.list(tables.metaClient(state.table().basePath())).stream()
        .filter(pending -> pending.instant().equals(instant))
        .findFirst()
        .orElseThrow(() -> ApiException.notFound("Table '" + id + "' has no pending plan at instant '" + instant
            + "'"));
    WorkItem item = WorkItem.forPlan(state.table(), plan);
    Optional<RunRecord> existing = pool.find(item.key());
    if (existing.isPresent()) {
      throw ApiException.conflict("Plan " + instant + " of table '" + id + "' is already "
          + existing.get().status().name().toLowerCase(java.util.Locale.ROOT) + " (run " + existing.get().runId()
          + ")");
    }
    RunRecord run = pool.submit(item).orElseThrow(() -> ApiException.conflict("Plan " + instant
        + " of table '" + id + "' is already queued or running"));
    return Response.accepted(RunView.of(run)).build();
  }

  @POST
  @Path("/{id}/schedule")
  @Consumes(MediaType.APPLICATION_JSON)
  public Response schedule(@PathParam("id") String id, ScheduleRequest request) {
    TableState state = table(id);
    if (request == null || request.service() == null || request.service().isBlank()) {
      throw ApiException.badRequest("service: is required, one of compaction, clustering, clean, index");
    }
    ServiceType service;
    try {
      service = ServiceType.fromConfigName(request.service());
    } catch (IllegalArgumentException e) {
      throw ApiException.badRequest("service: " + e.getMessage());
    }
    if (service == ServiceType.ARCHIVE) {
      throw ApiException.badRequest("service: archive has no plan; it runs on its own once the timeline is long");
    }
    if (request.dryRun() && service == ServiceType.INDEX) {
      List<String> missing = planner.nextIndexPlan(state.table(), tables.metaClient(state.table().basePath()));
      PlanView view = missing.isEmpty() ? null : PlanViews.indexPreview(missing);
      return Response.ok(new ScheduleResponse(service.configName(), true, null, view,
          view == null ? "nothing to plan" : "plan previewed, nothing written")).build();
    }
    if (request.dryRun()) {
      PlanPreview.Preview plan = preview.preview(state.table(), service);
      PlanView view = plan.compaction().map(p -> PlanViews.compaction(null, "preview", p))
          .or(() -> plan.clustering().map(p -> PlanViews.clustering(null, "preview", p)))
          .or(() -> plan.clean().map(p -> PlanViews.clean(null, "preview", p)))
          .orElse(null);
      return Response.ok(new ScheduleResponse(service.configName(), true, null, view,
          view == null ? "nothing to plan" : "plan previewed, nothing written")).build();
    }
    requireOwned(state);
    requireNotPaused(state);
    Optional<String> instant;
    try {
      instant = planner.scheduleNow(state.table(), service);
    } catch (IllegalStateException e) {
      throw ApiException.conflict(e.getMessage());
    }
    if (instant.isEmpty()) {
      return Response.ok(new ScheduleResponse(service.configName(), false, null, null, "nothing to plan")).build();
    }
    PlanView view = PlanViews.find(tables.metaClient(state.table().basePath()), instant.get()).orElse(null);
    return Response.status(Response.Status.CREATED)
        .entity(new ScheduleResponse(service.configName(), false, instant.get(), view, "plan written and queued"))
        .build();
  }

  @POST
  @Path("/{id}/pause")
  public TableView pause(@PathParam("id") String id) {
    TableState state = table(id);
    state.setPaused(true);
    return TableView.of(state.snapshot(), outcomes.of(id), null, owner(id));
  }

  @POST
  @Path("/{id}/resume")
  public TableView resume(@PathParam("id") String id) {
    TableState state = table(id);
    state.setPaused(false);
    pool.wake();
    return TableView.of(state.snapshot(), outcomes.of(id), null, owner(id));
  }

  @GET
  @Path("/{id}/runs")
  public List<RunView> runs(@PathParam("id") String id) {
    table(id);
    return Stream.concat(pool.snapshot().stream().map(RunView::of), history.recent().stream())
        .filter(run -> run.table().equals(id))
        .toList();
  }

  private TableState table(String id) {
    return registry.get(id).orElseThrow(() -> ApiException.notFound("No table with id '" + id + "'"));
  }

  private String owner(String id) {
    return ownership.owner(id).orElse(null);
  }

  /** Only the owner schedules and executes a table's plans; the others would hand out work twice. */
  private void requireOwned(TableState state) {
    String id = state.table().id();
    if (!ownership.owns(id)) {
      throw ApiException.conflict("Table '" + id + "' is owned by " + ownership.owner(id)
          .map(owner -> "replica '" + owner + "'").orElse("no replica right now") + ", not by replica '"
          + ownership.replicaId() + "'; ask its owner");
    }
  }

  private static void requireNotPaused(TableState state) {
    if (state.isPaused()) {
      throw ApiException.conflict("Table '" + state.table().id() + "' is paused; resume it first");
    }
  }
}
