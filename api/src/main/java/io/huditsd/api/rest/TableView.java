package io.huditsd.api.rest;

import io.huditsd.config.ServiceType;
import io.huditsd.scheduler.TableSnapshot;

import java.time.Instant;
import java.util.List;

/** A table as the REST API shows it. */
public record TableView(String id, String basePath, String tableType, Integer tableVersion,
                        List<String> services, long pollIntervalSeconds, boolean paused, Instant lastPoll,
                        Instant lastChange, int consecutiveFailures, String lastError) {
  public static TableView of(TableSnapshot snapshot) {
    return new TableView(snapshot.table().id(), snapshot.table().basePath(), snapshot.tableType().orElse(null),
        snapshot.tableVersion().orElse(null),
        snapshot.table().services().stream().sorted().map(ServiceType::configName).toList(),
        snapshot.table().pollInterval().toSeconds(), snapshot.paused(), snapshot.lastPoll().orElse(null),
        snapshot.lastChange().orElse(null), snapshot.consecutiveFailures(), snapshot.lastError().orElse(null));
  }
}
