package io.huditsd.api.rest;

import io.huditsd.api.RunHistory;
import io.huditsd.executors.WorkerPool;
import io.huditsd.executors.spark.SparkApplications;
import io.huditsd.scheduler.OperationOutcomes.Cancel;
import io.huditsd.scheduler.OperationOutcomes.Cancelled;
import io.huditsd.scheduler.OperationOutcomes.Killing;
import io.huditsd.scheduler.OperationOutcomes.NoQueuedRun;
import io.huditsd.scheduler.OperationOutcomes.StillRunning;
import io.huditsd.scheduler.TableOperations;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

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
  private final SparkApplications sparkApplications;

  public RunsResource(WorkerPool pool, RunHistory history, TableOperations operations) {
    this(pool, history, operations, new SparkApplications());
  }

  /** @param sparkApplications where a Spark run's application id, state and UI address are looked up */
  public RunsResource(WorkerPool pool, RunHistory history, TableOperations operations,
                      SparkApplications sparkApplications) {
    this.sparkApplications = Objects.requireNonNull(sparkApplications, "sparkApplications is null");
    this.pool = Objects.requireNonNull(pool, "pool is null");
    this.history = Objects.requireNonNull(history, "history is null");
    this.operations = Objects.requireNonNull(operations, "operations is null");
  }

  @GET
  public List<RunView> list() {
    List<RunView> runs = new ArrayList<>();
    pool.snapshot().forEach(run -> runs.add(RunView.of(run, sparkApplications)));
    runs.addAll(history.recent());
    return runs;
  }

  /**
   * Removes a queued run (200, the cancelled run); kills the application of a run executing on Spark (202, the run
   * as it is, {@code "killing"}: it ends cancelled once the application is gone). A run executing in the daemon
   * cannot be removed (409).
   */
  @DELETE
  @Path("/{runId}")
  public Response cancel(@PathParam("runId") String runIdText) {
    long runId;
    try {
      runId = Long.parseLong(runIdText);
    } catch (NumberFormatException e) {
      throw ApiException.badRequest("runId: '" + runIdText + "' is not a number");
    }
    // One step on the pool: a run that starts meanwhile is answered as running, never as unknown (404).
    Cancel outcome = operations.cancel(runId);
    if (outcome instanceof Cancelled cancelled) {
      return Response.ok(RunView.of(cancelled.run(), sparkApplications)).build();
    }
    if (outcome instanceof Killing killing) {
      return Response.accepted(new KillingView("killing", RunView.of(killing.run(), sparkApplications))).build();
    }
    if (outcome instanceof StillRunning running) {
      throw ApiException.conflict(running.message());
    }
    throw ApiException.notFound(((NoQueuedRun) outcome).message());
  }

  /** The answer while a Spark run's application is being killed. */
  public record KillingView(String status, RunView run) {
  }
}
