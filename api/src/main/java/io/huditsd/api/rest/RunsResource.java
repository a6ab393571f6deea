package io.huditsd.api.rest;

import io.huditsd.api.RunHistory;
import io.huditsd.executors.WorkerPool;
import io.huditsd.executors.WorkerPool.Cancellation;
import io.huditsd.scheduler.TableOperations;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/** The global queue (running first, then queued by priority) followed by recent finished runs. */
@Path("/api/v1/runs")
@Produces(MediaType.APPLICATION_JSON)
public final class RunsResource {
  private final WorkerPool pool;
  private final RunHistory history;
  private final TableOperations operations;

  public RunsResource(WorkerPool pool, RunHistory history, TableOperations operations) {
    this.pool = Objects.requireNonNull(pool, "pool is null");
    this.history = Objects.requireNonNull(history, "history is null");
    this.operations = Objects.requireNonNull(operations, "operations is null");
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
    // One step on the pool: a run that starts meanwhile is answered as running (409), never as unknown (404).
    Cancellation outcome = operations.cancel(runId);
    if (outcome instanceof Cancellation.Cancelled cancelled) {
      return RunView.of(cancelled.run());
    }
    if (outcome instanceof Cancellation.Running) {
      throw ApiException.conflict("Run " + runId + " is running and cannot be removed");
    }
    throw ApiException.notFound("No queued run with id " + runId);
  }
}
