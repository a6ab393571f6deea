package io.huditsd.api.rest;

import io.huditsd.config.ServiceType;
import io.huditsd.config.ServicedTable;
import io.huditsd.config.ServicedTables;
import io.huditsd.config.TablePaths;
import io.huditsd.executors.HudiTables;
import io.huditsd.executors.PendingPlan;
import io.huditsd.executors.PendingPlans;
import io.huditsd.executors.WorkItem;
import io.huditsd.executors.WorkerPool;
import io.huditsd.ha.TableOwnership;
import io.huditsd.lock.LockProviderCheck;
import io.huditsd.scheduler.TableProbe;
import io.huditsd.scheduler.TableProblem;
import io.huditsd.scheduler.TableRegistry;
import io.huditsd.scheduler.TableState;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The server side of Hudi's table service manager client ({@code HoodieTableServiceManagerClient}): a writer with
 * {@code hoodie.table.service.manager.enabled=true} only schedules, then calls
 * {@code GET /v1/hoodie/service/{compact,cluster,clean}?basepath=...&instant=i1,i2,...} so the daemon executes.
 * Hudi's client only checks for a 2xx answer; the body says what was queued.
 */
@Path("/v1/hoodie/service")
@Produces(MediaType.APPLICATION_JSON)
public final class TableServiceManagerResource {
  private static final Logger LOG = LoggerFactory.getLogger(TableServiceManagerResource.class);
  private static final Map<String, ServiceType> ACTIONS = Map.of(
      "compact", ServiceType.COMPACTION, "cluster", ServiceType.CLUSTERING, "clean", ServiceType.CLEAN);

  private final TableRegistry registry;
  private final HudiTables tables;
  private final WorkerPool pool;
  private final ServicedTables servicedTables;
  private final TableProbe probe;
  private final boolean registerUnknownTables;
  private final TableOwnership ownership;

  public TableServiceManagerResource(TableRegistry registry, HudiTables tables, WorkerPool pool,
                                     ServicedTables servicedTables, TableProbe probe, boolean registerUnknownTables,
                                     TableOwnership ownership) {
    this.ownership = java.util.Objects.requireNonNull(ownership, "ownership is null");
    this.registry = registry;
    this.tables = tables;
    this.pool = pool;
    this.servicedTables = servicedTables;
    this.probe = probe;
    this.registerUnknownTables = registerUnknownTables;
  }

  /**
   * @param table the daemon's id of the table
   * @param queued instants queued for execution
   * @param ignored instants that are not pending plans of this service (already done, or unknown)
   * @param message what happened, in words
   */
  public record Answer(String table, List<String> queued, List<String> ignored, String message) {
  }

  @GET
  @Path("/{action}")
  public Answer request(@PathParam("action") String action, @QueryParam("basepath") String basePath,
                        @QueryParam("instant") String instants, @QueryParam("table_name") String tableName) {
    ServiceType service = ACTIONS.get(action);
    if (service == null) {
      throw ApiException.notFound("Unknown action '" + action + "', expected one of compact, cluster, clean");
    }
    if (basePath == null || basePath.isBlank()) {
      throw ApiException.badRequest("basepath: is required");
    }
    String normalized = TablePaths.normalize(basePath);
    TableState state = registry.byBasePath(normalized).orElseGet(() -> register(normalized));
    List<String> requested = instants == null ? List.of()
        : Arrays.stream(instants.split(",")).map(String::trim).filter(text -> !text.isEmpty()).toList();
    if (!ownership.owns(state.table().id())) {
      // The owner enqueues every pending plan of the table on its next poll, this one included.
      String owner = ownership.owner(state.table().id()).orElse("no replica right now");
      return new Answer(state.table().id(), List.of(), requested, "table is owned by " + owner
          + "; its owner executes the plans");
    }
    List<PendingPlan> pending = PendingPlans.list(tables.metaClient(normalized));
    List<String> queued = new ArrayList<>();
    List<String> ignored = new ArrayList<>();
    for (String instant : requested) {
      Optional<PendingPlan> plan = pending.stream()
          .filter(candidate -> candidate.service() == service && candidate.instant().equals(instant)).findFirst();
      if (plan.isEmpty()) {
        ignored.add(instant);
      } else {
        pool.submit(WorkItem.forPlan(state.table(), plan.get()));
        queued.add(instant);
      }
    }
    LOG.info("Table service manager request table={} service={} from writer table_name={}: queued={} ignored={}",
        state.table().id(), service.configName(), tableName, queued, ignored);
    String message = state.isPaused() ? "table is paused; queued plans run when it is resumed" : "queued";
    return new Answer(state.table().id(), queued, ignored, message);
  }

  private TableState register(String basePath) {
    if (!registerUnknownTables) {
      throw ApiException.notFound("Table at " + basePath + " is not serviced by this daemon "
          + "(tableServiceManager.registerUnknownTables is off)");
    }
    try {
      probe.requireTableLayout(basePath);
    } catch (TableProblem e) {
      throw ApiException.badRequest("basepath: " + e.getMessage());
    }
    ServicedTable table = servicedTables.discovered(basePath);
    // As at start for configured tables: a table whose store has no default lock and that names none is refused.
    List<String> lockErrors = LockProviderCheck.check("basepath", table.hoodieKeys(), basePath);
    if (!lockErrors.isEmpty()) {
      throw ApiException.badRequest(String.join("; ", lockErrors));
    }
    registry.add(table);
    return registry.byBasePath(basePath)
        .orElseThrow(() -> ApiException.conflict("Table at " + basePath + " could not be registered"));
  }
}
