package io.huditsd.api.rest;

import io.huditsd.config.ServiceType;
import io.huditsd.config.ServicedTables;
import io.huditsd.config.TablePaths;
import io.huditsd.scheduler.DiscoveryService;
import io.huditsd.scheduler.OperationOutcomes.HandedOver;
import io.huditsd.scheduler.OperationOutcomes.Handover;
import io.huditsd.scheduler.OperationOutcomes.NotOwned;
import io.huditsd.scheduler.OperationOutcomes.ServiceDisabled;
import io.huditsd.scheduler.TableOperations;
import io.huditsd.scheduler.TableProbe;
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

import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;

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

  private final TableOperations operations;
  private final TableRegistration registration;

  public TableServiceManagerResource(TableRegistry registry, DiscoveryService discovery, TableOperations operations,
      ServicedTables servicedTables, TableProbe probe, boolean registerUnknownTables) {
    this.operations = Objects.requireNonNull(operations, "operations is null");
    this.registration = new TableRegistration(registry, discovery, servicedTables, probe, registerUnknownTables);
  }

  /**
   * @param table the daemon's id of the table
   * @param queued instants queued for execution
   * @param ignored instants that are not pending plans of this service (already done, or unknown); all of them when
   *     the service is not enabled on the table or another replica owns it
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
    TableState state = registration.servicedOrRegistered(normalized, "basepath");
    List<String> requested = instants == null ? List.of()
        : Arrays.stream(instants.split(",")).map(String::trim).filter(text -> !text.isEmpty()).toList();
    Answer answer = answer(operations.handOver(state.table().id(), service, requested), service, requested,
        tableName);
    LOG.info("Table service manager request table={} service={} from writer table_name={}: queued={} ignored={}"
        + " ({})", answer.table(), service.configName(), tableName, answer.queued(), answer.ignored(),
        answer.message());
    return answer;
  }

  private static Answer answer(Handover outcome, ServiceType service, List<String> requested, String tableName) {
    if (outcome instanceof HandedOver handedOver) {
      return new Answer(handedOver.tableId(), handedOver.queued(), handedOver.ignored(),
          handedOver.paused() ? "table is paused; queued plans run when it is resumed" : "queued");
    }
    if (outcome instanceof NotOwned notOwned) {
      return new Answer(notOwned.tableId(), List.of(), requested, "table is owned by "
          + notOwned.owner().orElse("no replica right now") + "; its owner executes the plans");
    }
    if (outcome instanceof ServiceDisabled disabled) {
      // 200 all the same, as for a table another replica owns: Hudi's client only checks for a 2xx answer, and the
      // writer's plan stays pending for whatever executes that service on the table.
      LOG.warn("Table service manager request table={} from writer table_name={}: {}; plans {} stay pending",
          disabled.tableId(), tableName, disabled.message(), requested);
      return new Answer(disabled.tableId(), List.of(), requested,
          service.configName() + " is not enabled on this table; the daemon does not execute its plans");
    }
    throw Refusals.toApiException(outcome);
  }
}
