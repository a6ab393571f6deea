package io.huditsd.api.rest;

import io.huditsd.scheduler.TableRegistry;
import io.huditsd.scheduler.TableState;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.NotFoundException;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;

import java.util.Comparator;
import java.util.List;

/** Read-only view of the serviced tables. */
@Path("/api/v1/tables")
@Produces(MediaType.APPLICATION_JSON)
public final class TablesResource {
  private final TableRegistry registry;

  public TablesResource(TableRegistry registry) {
    this.registry = registry;
  }

  @GET
  public List<TableView> list() {
    return registry.all().stream().map(TableState::snapshot).map(TableView::of)
        .sorted(Comparator.comparing(TableView::id)).toList();
  }

  @GET
  @Path("/{id}")
  public TableView get(@PathParam("id") String id) {
    return registry.get(id).map(TableState::snapshot).map(TableView::of)
        .orElseThrow(() -> new NotFoundException("No table with id '" + id + "'"));
  }
}
