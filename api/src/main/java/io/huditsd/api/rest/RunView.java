package io.huditsd.api.rest;

import io.huditsd.executors.RunRecord;
import io.huditsd.executors.spark.SparkApplication;
import io.huditsd.executors.spark.SparkApplications;

import java.time.Instant;
import java.util.Locale;
import java.util.Optional;

/**
 * A run as the REST API shows it.
 *
 * @param engine where the plan runs: {@code java} (in the daemon) or {@code spark}
 * @param heapEstimateBytes the plan's heap estimate (what an in-process run reserves of workers.memoryBudget; null
 *     in history written before it existed)
 * @param heapEstimateBasis how the estimate was reached
 * @param sparkAppId the Spark application's id, once Spark reported it (Spark runs only)
 * @param sparkState Spark's state of the application (Spark runs only)
 * @param sparkUi the application's Spark UI address, when {@code spark.uiUrl} is set
 */
public record RunView(long runId, String table, String service, String instant, String status, int attempt,
                      Instant startedAt, Instant finishedAt, Long fileGroups, Long bytesIn, Long bytesOut,
                      Long durationMillis, String error, String engine, Long heapEstimateBytes,
                      String heapEstimateBasis, String sparkAppId, String sparkState, String sparkUi) {
  /** A run without looking up a Spark application (a daemon without Spark, tests). */
  public static RunView of(RunRecord run) {
    return of(run, Optional.empty());
  }

  /** A run with its Spark application, if the registry has one for it. */
  public static RunView of(RunRecord run, SparkApplications applications) {
    return of(run, applications.find(run.item().key()));
  }

  public static RunView of(RunRecord run, Optional<SparkApplication> application) {
    // A Spark application is only the run's if it was submitted while this run was on (a later submission of the
    // same plan replaces the registry's entry; an earlier one belongs to an earlier run).
    Optional<SparkApplication> own = application.filter(app -> run.startedAt()
        .map(started -> !app.submittedAt().isBefore(started)).orElse(false));
    return new RunView(run.runId(), run.item().table().id(), run.item().service().configName(),
        run.item().instant().orElse(null), run.status().name().toLowerCase(Locale.ROOT), run.attempt(),
        run.startedAt().orElse(null), run.finishedAt().orElse(null),
        run.result().map(result -> result.fileGroups()).orElse(null),
        run.result().map(result -> result.bytesIn()).orElse(null),
        run.result().map(result -> result.bytesOut()).orElse(null),
        run.result().map(result -> result.duration().toMillis()).orElse(null), run.error().orElse(null),
        run.item().placement().engine().configName(), run.item().placement().estimate().bytes(),
        run.item().placement().estimate().basis(),
        own.flatMap(SparkApplication::appId).orElse(null), own.map(SparkApplication::state).orElse(null),
        own.flatMap(SparkApplication::uiUrl).orElse(null));
  }
}
