package io.huditsd.api.rest;

import com.fasterxml.jackson.core.JsonProcessingException;
import io.huditsd.api.RunHistory;
import io.huditsd.api.ServiceOutcomes;
import io.huditsd.config.EngineKind;
import io.huditsd.config.EnginePolicy;
import io.huditsd.config.ServiceType;
import io.huditsd.executors.HudiTables;
import io.huditsd.executors.WorkerPool;
import io.huditsd.executors.spark.SparkApplications;
import io.huditsd.ha.TableOwnership;
import io.huditsd.scheduler.OperationOutcomes.DryRun;
import io.huditsd.scheduler.OperationOutcomes.EngineRefused;
import io.huditsd.scheduler.OperationOutcomes.Execution;
import io.huditsd.scheduler.OperationOutcomes.IndexPreviewed;
import io.huditsd.scheduler.OperationOutcomes.NothingToPlan;
import io.huditsd.scheduler.OperationOutcomes.PauseChange;
import io.huditsd.scheduler.OperationOutcomes.Previewed;
import io.huditsd.scheduler.OperationOutcomes.Queued;
import io.huditsd.scheduler.OperationOutcomes.Scheduled;
import io.huditsd.scheduler.OperationOutcomes.Scheduling;
import io.huditsd.scheduler.OperationOutcomes.Updated;
import io.huditsd.scheduler.PlanPreview;
import io.huditsd.scheduler.TableOperations;
import io.huditsd.scheduler.TableProbe;
import io.huditsd.scheduler.TableProblem;
import io.huditsd.scheduler.TableRegistry;
import io.huditsd.scheduler.TableSnapshot;
import io.huditsd.scheduler.TableState;
import io.huditsd.scheduler.view.FileSliceRow;
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
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Tables: inspect them, their file groups, plans and runs; schedule, execute, pause and resume through
 * {@link TableOperations}, whose outcomes are mapped here to status codes and JSON bodies.
 */
@Path("/api/v1/tables")
@Produces(MediaType.APPLICATION_JSON)
public final class TablesResource {
  static final int RECENT_PLANS = 20;

  private final TableRegistry registry;
  private final HudiTables tables;
  private final WorkerPool pool;
  private final RunHistory history;
  private final ServiceOutcomes outcomes;
  private final TableOperations operations;
  private final TableOwnership ownership;
  private final SparkApplications sparkApplications;

  public TablesResource(TableRegistry registry, HudiTables tables, WorkerPool pool, RunHistory history,
                        ServiceOutcomes outcomes, TableOperations operations, TableOwnership ownership) {
    this(registry, tables, pool, history, outcomes, operations, ownership, new SparkApplications());
  }

  /** @param sparkApplications where a Spark run's application id, state and UI address are looked up */
  public TablesResource(TableRegistry registry, HudiTables tables, WorkerPool pool, RunHistory history,
                        ServiceOutcomes outcomes, TableOperations operations, TableOwnership ownership,
                        SparkApplications sparkApplications) {
    this.sparkApplications = Objects.requireNonNull(sparkApplications, "sparkApplications is null");
    this.ownership = Objects.requireNonNull(ownership, "ownership is null");
    this.registry = Objects.requireNonNull(registry, "registry is null");
    this.tables = Objects.requireNonNull(tables, "tables is null");
    this.pool = Objects.requireNonNull(pool, "pool is null");
    this.history = Objects.requireNonNull(history, "history is null");
    this.outcomes = Objects.requireNonNull(outcomes, "outcomes is null");
    this.operations = Objects.requireNonNull(operations, "operations is null");
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
    Optional<HoodieTableMetaClient> metaClient = snapshot.metaClient().or(() -> openForView(snapshot));
    if (metaClient.isEmpty()) {
      // The table's files cannot be read: the view says why (lastError, from its polls), without a policy.
      return TableView.of(snapshot, outcomes.of(id), null, owner(id));
    }
    // The keys passed to Hudi, and the daemon's own engine policy keys in force (never passed to Hudi).
    Map<String, String> policy = new LinkedHashMap<>(tables.effectiveKeys(snapshot.table(), metaClient.get()));
    snapshot.table().hoodieKeys().forEach((key, value) -> {
      if (EnginePolicy.isDaemonKey(key)) {
        policy.put(key, value);
      }
    });
    return TableView.of(snapshot, outcomes.of(id), policy, owner(id));
  }

  /**
   * The file slices of the table, or of one partition: {@code partition} is a path relative to the table and one of
   * its partitions ({@link PartitionParameter}), else 400 or 404.
   */
  private Optional<HoodieTableMetaClient> openForView(TableSnapshot snapshot) {
    try {
      return Optional.of(TableProbe.load(tables, snapshot.table().basePath()));
    } catch (TableProblem e) {
      return Optional.empty();
    }
  }

  @GET
  @Path("/{id}/file-groups")
  public List<FileSliceView> fileGroups(@PathParam("id") String id, @QueryParam("partition") String partition,
                                        @QueryParam("all") boolean allSlices) {
    TableState state = table(id);
    TableSnapshot snapshot = state.snapshot();
    Optional<TableBacklog> backlog = snapshot.backlog();
    if (!allSlices && backlog.isPresent()) {
      // The rows the gauges were summed from at the last changed poll: cheap, and consistent with the metrics.
      List<FileSliceRow> rows = backlog.get().liveSlices();
      Set<String> known = rows.stream().map(FileSliceRow::partitionPath).collect(Collectors.toSet());
      Optional<String> onlyPartition = PartitionParameter.resolve("partition", partition, id, known,
          () -> snapshot.metaClient().orElseGet(() -> ReadableTable.open(tables, state.table())));
      return rows.stream()
          .filter(row -> onlyPartition.map(row.partitionPath()::equals).orElse(true))
          .map(FileSliceView::of).toList();
    }
    HoodieTableMetaClient metaClient = ReadableTable.open(tables, state.table());
    Optional<String> onlyPartition = PartitionParameter.resolve("partition", partition, id, Set.of(),
        () -> metaClient);
    return FileSliceRows.read(tables.engineContext(), metaClient, onlyPartition, allSlices)
        .stream().map(FileSliceView::of).toList();
  }

  @GET
  @Path("/{id}/plans")
  public List<PlanView> plans(@PathParam("id") String id) {
    return PlanViews.list(ReadableTable.open(tables, table(id).table()), RECENT_PLANS);
  }

  @GET
  @Path("/{id}/plans/{instant}")
  public PlanView plan(@PathParam("id") String id, @PathParam("instant") String instant) {
    return PlanViews.find(ReadableTable.open(tables, table(id).table()), instant)
        .orElseThrow(() -> ApiException.notFound("Table '" + id + "' has no plan at instant '" + instant + "'"));
  }

  /**
   * Queues a pending plan; an optional body {@code {"engine": "spark"}} (or {@code "java"}) names the engine, over
   * the table's engine policy.
   */
  @POST
  @Path("/{id}/plans/{instant}/execute")
  @Consumes(MediaType.WILDCARD)
  public Response execute(@PathParam("id") String id, @PathParam("instant") String instant, String body)
      throws JsonProcessingException {
    Optional<EngineKind> engine = engine(ExecuteRequest.parse(body));
    Execution outcome = operations.execute(id, instant, engine);
    if (outcome instanceof Queued queued) {
      return Response.accepted(RunView.of(queued.run(), sparkApplications)).build();
    }
    if (outcome instanceof EngineRefused refused) {
      throw ApiException.badRequest("engine: " + refused.message());
    }
    throw Refusals.toApiException(outcome);
  }

  private static Optional<EngineKind> engine(ExecuteRequest request) {
    if (request == null || request.engine() == null) {
      return Optional.empty();
    }
    try {
      return Optional.of(EngineKind.fromConfigName(request.engine()));
    } catch (IllegalArgumentException e) {
      throw ApiException.badRequest("engine: " + e.getMessage());
    }
  }

  @POST
  @Path("/{id}/schedule")
  @Consumes(MediaType.APPLICATION_JSON)
  public Response schedule(@PathParam("id") String id, ScheduleRequest request) {
    TableState state = table(id);
    ServiceType service = service(request);
    if (request.dryRun()) {
      return dryRun(id, service);
    }
    Scheduling outcome = operations.schedule(id, service);
    if (outcome instanceof Scheduled scheduled) {
      PlanView view = PlanViews.find(tables.metaClient(state.table().basePath()), scheduled.instant()).orElse(null);
      return Response.status(Response.Status.CREATED)
          .entity(new ScheduleResponse(service.configName(), false, scheduled.instant(), view,
              "plan written and queued"))
          .build();
    }
    if (outcome instanceof NothingToPlan) {
      return Response.ok(new ScheduleResponse(service.configName(), false, null, null, "nothing to plan")).build();
    }
    throw Refusals.toApiException(outcome);
  }

  private Response dryRun(String id, ServiceType service) {
    DryRun outcome = operations.dryRun(id, service);
    PlanView view;
    if (outcome instanceof Previewed previewed) {
      view = previewView(previewed.preview());
    } else if (outcome instanceof IndexPreviewed index) {
      view = PlanViews.indexPreview(index.partitions());
    } else if (outcome instanceof NothingToPlan) {
      view = null;
    } else {
      throw Refusals.toApiException(outcome);
    }
    return Response.ok(new ScheduleResponse(service.configName(), true, null, view,
        view == null ? "nothing to plan" : "plan previewed, nothing written")).build();
  }

  private static PlanView previewView(PlanPreview.Preview plan) {
    return plan.compaction().map(p -> PlanViews.compaction(null, "preview", p))
        .or(() -> plan.clustering().map(p -> PlanViews.clustering(null, "preview", p)))
        .or(() -> plan.clean().map(p -> PlanViews.clean(null, "preview", p)))
        .orElseThrow(() -> new IllegalStateException("an empty preview is answered as nothing to plan"));
  }

  private static ServiceType service(ScheduleRequest request) {
    if (request == null || request.service() == null || request.service().isBlank()) {
      throw ApiException.badRequest("service: is required, one of compaction, clustering, clean, index");
    }
    try {
      return ServiceType.fromConfigName(request.service());
    } catch (IllegalArgumentException e) {
      throw ApiException.badRequest("service: " + e.getMessage());
    }
  }

  @POST
  @Path("/{id}/pause")
  public TableView pause(@PathParam("id") String id) {
    return view(operations.pause(id));
  }

  @POST
  @Path("/{id}/resume")
  public TableView resume(@PathParam("id") String id) {
    return view(operations.resume(id));
  }

  private TableView view(PauseChange change) {
    if (change instanceof Updated updated) {
      String id = updated.state().table().id();
      return TableView.of(updated.state().snapshot(), outcomes.of(id), null, owner(id));
    }
    throw Refusals.toApiException(change);
  }

  @GET
  @Path("/{id}/runs")
  public List<RunView> runs(@PathParam("id") String id) {
    table(id);
    return Stream.concat(pool.snapshot().stream().map(run -> RunView.of(run, sparkApplications)),
            history.recent().stream())
        .filter(run -> run.table().equals(id))
        .toList();
  }

  private TableState table(String id) {
    return registry.get(id).orElseThrow(() -> ApiException.notFound("No table with id '" + id + "'"));
  }

  private String owner(String id) {
    return ownership.owner(id).orElse(null);
  }
}
