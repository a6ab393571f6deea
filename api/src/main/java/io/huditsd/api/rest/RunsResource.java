package io.huditsd.api.rest;

import io.huditsd.api.RunHistory;
import io.huditsd.executors.RunRecord;
import io.huditsd.executors.WorkerPool;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;

import java.util.ArrayList;
import java.util.List;

/** The global queue (running first, then queued by priority) followed by recent finished runs. */
@Path("/api/v1/runs")
@Produces(MediaType.APPLICATION_JSON)
public final class RunsResource {
  private final WorkerPool pool;
  private final RunHistory history;

  public RunsResource(WorkerPool pool, RunHistory history) {
    this.pool = pool;
    this.history = history;
  }

  @GET
  public List<RunView> list() {
    List<RunView> runs = new ArrayList<>();
    pool.snapshot().forEach(run -> runs.add(RunView.of(run)));
    runs.addAll(history.recent());
    return runs;
  }

  /** Removes a queued run; a running one cannot be removed. */
  @DELETE
  @Path("/{runId}")
  public RunView cancel(@PathParam("runId") String runIdText) {
    long runId;
    try {
      runId = Long.parseLong(runIdText);
    } catch (NumberFormatException e) {
      throw ApiException.badRequest("runId: '" + runIdText + "' is not a number");
    }
    if (pool.isRunning(runId)) {
      throw ApiException.conflict("Run " + runId + " is running and cannot be removed");
    }
    RunRecord cancelled = pool.cancel(runId)
        .orElseThrow(() -> ApiException.notFound("No queued run with id " + runId));
    return RunView.of(cancelled);
  }
}
