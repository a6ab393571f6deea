package io.huditsd.api;

import io.huditsd.config.ServiceType;
import io.huditsd.executors.RunListener;
import io.huditsd.executors.RunRecord;
import io.huditsd.executors.RunStatus;

import java.time.Instant;
import java.util.EnumMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/** The last success and the last failure of each service on each table. */
public final class ServiceOutcomes implements RunListener {
  /** Last outcomes of one service on one table. */
  public record Outcome(Optional<Instant> lastSuccess, Optional<Instant> lastFailure, Optional<String> lastError) {
  }

  private final Map<String, Map<ServiceType, Outcome>> byTable = new ConcurrentHashMap<>();

  @Override
  public void onChange(RunRecord record) {
    if (record.status() != RunStatus.SUCCEEDED && record.status() != RunStatus.FAILED) {
      return;
    }
    Instant at = record.finishedAt().orElse(Instant.now());
    byTable.computeIfAbsent(record.item().table().id(), id -> new ConcurrentHashMap<>())
        .compute(record.item().service(), (service, previous) -> {
          Outcome base = previous == null ? new Outcome(Optional.empty(), Optional.empty(), Optional.empty()) : previous;
          return record.status() == RunStatus.SUCCEEDED
              ? new Outcome(Optional.of(at), base.lastFailure(), base.lastError())
              : new Outcome(base.lastSuccess(), Optional.of(at), record.error());
        });
  }

  public Map<ServiceType, Outcome> of(String tableId) {
    Map<ServiceType, Outcome> outcomes = byTable.get(tableId);
    return outcomes == null || outcomes.isEmpty() ? Map.of() : new EnumMap<>(outcomes);
  }
}
