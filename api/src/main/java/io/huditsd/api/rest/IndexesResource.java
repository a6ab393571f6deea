package io.huditsd.api.rest;

import io.huditsd.config.MetadataIndexKind;
import io.huditsd.config.MetadataIndexState;
import io.huditsd.config.ServicedTable;
import io.huditsd.executors.HudiTables;
import io.huditsd.scheduler.TableRegistry;
import io.huditsd.scheduler.TableState;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import org.apache.hudi.common.table.HoodieTableMetaClient;

import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeSet;

/**
 * The metadata indexes of a table: wanted (configured), built, being built and missing, with the pending indexing
 * plans and their progress. Builds are triggered with {@code POST /tables/{id}/schedule {"service": "index"}};
 * dropping an index is refused.
 */
@Path("/api/v1/tables/{id}/indexes")
@Produces(MediaType.APPLICATION_JSON)
public final class IndexesResource {
  private final TableRegistry registry;
  private final HudiTables tables;

  public IndexesResource(TableRegistry registry, HudiTables tables) {
    this.registry = Objects.requireNonNull(registry, "registry is null");
    this.tables = Objects.requireNonNull(tables, "tables is null");
  }

  /**
   * The indexes of one table.
   *
   * @param wanted indexes configured for the table ({@code indexes} in tsd.yml)
   * @param built metadata partitions the table has ({@code hoodie.table.metadata.partitions})
   * @param building partitions being built ({@code hoodie.table.metadata.partitions.inflight})
   * @param missing wanted indexes neither built, being built nor planned: the next poll plans them
   * @param plans pending indexing plans with the partitions they build and their phase
   */
  public record IndexesView(List<String> wanted, List<String> built, List<String> building, List<String> missing,
                            List<PlanView> plans) {
  }

  @GET
  public IndexesView get(@PathParam("id") String id) {
    ServicedTable table = table(id).table();
    HoodieTableMetaClient metaClient = ReadableTable.open(tables, table);
    MetadataIndexState state = MetadataIndexState.read(metaClient);
    List<PlanView> plans = state.pendingPlans().keySet().stream().sorted()
        .map(instant -> PlanViews.find(metaClient, instant))
        .flatMap(Optional::stream)
        .toList();
    return new IndexesView(
        table.indexes().kinds().stream().map(MetadataIndexKind::configName).sorted().toList(),
        List.copyOf(new TreeSet<>(state.completed())),
        List.copyOf(new TreeSet<>(state.inflight())),
        state.missing(table.indexes()).stream().map(MetadataIndexKind::configName).sorted().toList(),
        plans);
  }

  @DELETE
  @Path("/{kind}")
  public void drop(@PathParam("id") String id, @PathParam("kind") String kind) {
    table(id);
    if (MetadataIndexKind.fromConfigName(kind).isEmpty() && !MetadataIndexKind.UNSUPPORTED.containsKey(kind)) {
      throw ApiException.badRequest("kind: '" + kind + "' is not a metadata index; expected one of "
          + MetadataIndexKind.allNames());
    }
    throw ApiException.methodNotAllowed("Dropping the metadata index '" + kind + "' of table '" + id + "' is not "
        + "supported: Hudi 1.2.0's Java engine cannot drop metadata partitions, and hudi-tsd never drops an index; "
        + "drop it with Spark SQL (DROP INDEX) after removing it from the table's indexes in tsd.yml", "GET");
  }

  private TableState table(String id) {
    return registry.get(id).orElseThrow(() -> ApiException.notFound("No table with id '" + id + "'"));
  }
}
