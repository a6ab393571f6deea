package io.huditsd.api.rest;

import io.huditsd.executors.RunRecord;

import java.time.Instant;
import java.util.Locale;

/**
 * A run as the REST API shows it. {@code heapEstimateBytes} and {@code heapEstimate} (its basis) are the plan's heap
 * estimate, which the memory budget admits it by (null in history written before they existed).
 */
public record RunView(long runId, String table, String service, String instant, String status, int attempt,
                      Instant startedAt, Instant finishedAt, Long fileGroups, Long bytesIn, Long bytesOut,
                      Long durationMillis, String error, Long heapEstimateBytes, String heapEstimate) {
  public static RunView of(RunRecord run) {
    return new RunView(run.runId(), run.item().table().id(), run.item().service().configName(),
        run.item().instant().orElse(null), run.status().name().toLowerCase(Locale.ROOT), run.attempt(),
        run.startedAt().orElse(null), run.finishedAt().orElse(null),
        run.result().map(result -> result.fileGroups()).orElse(null),
        run.result().map(result -> result.bytesIn()).orElse(null),
        run.result().map(result -> result.bytesOut()).orElse(null),
        run.result().map(result -> result.duration().toMillis()).orElse(null), run.error().orElse(null),
        run.item().placement().estimate().bytes(), run.item().placement().estimate().basis());
  }
}
