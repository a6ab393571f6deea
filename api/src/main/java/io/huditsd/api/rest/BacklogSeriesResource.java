package io.huditsd.api.rest;

import io.huditsd.api.console.BacklogSeries;
import io.huditsd.scheduler.TableRegistry;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;

import java.util.List;

import static java.util.Objects.requireNonNull;

/** A table's backlog over its last changed polls (see {@link BacklogSeries}), oldest first. */
@Path("/api/v1/tables/{id}/backlog-series")
@Produces(MediaType.APPLICATION_JSON)
public final class BacklogSeriesResource {
  private final TableRegistry registry;
  private final BacklogSeries series;

  public BacklogSeriesResource(TableRegistry registry, BacklogSeries series) {
    this.registry = requireNonNull(registry, "registry is null");
    this.series = requireNonNull(series, "series is null");
  }

  @GET
  public SeriesView get(@PathParam("id") String id) {
    String table = registry.get(id).map(state -> state.table().id())
        .orElseThrow(() -> ApiException.notFound("No table with id '" + id + "'"));
    return new SeriesView(table, series.capacity(), series.of(table));
  }

  /**
   * The samples of one table.
   *
   * @param capacity samples kept at most; older ones are dropped
   */
  public record SeriesView(String table, int capacity, List<BacklogSeries.Sample> samples) {
  }
}
