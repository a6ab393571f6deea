package io.huditsd.api;

import io.huditsd.config.ServiceType;
import io.huditsd.executors.RunListener;
import io.huditsd.executors.RunRecord;
import io.huditsd.executors.RunStatus;

import java.time.Instant;
import java.util.EnumMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;

/** The last success and the last failure of each service on each table. */
public final class ServiceOutcomes implements RunListener {
  /** Last outcomes of one service on one table. */
  public record Outcome(Optional<Instant> lastSuccess, Optional<Instant> lastFailure, Optional<String> lastError) {
  }

  private final Map<String, Map<ServiceType, Outcome>> byTable = new ConcurrentHashMap<>();
  private final Predicate<String> serviced;

  /** Keeps the outcomes of every table it hears of (a {@code once}, tests). */
  public ServiceOutcomes() {
    this(tableId -> true);
  }

  /**
   * Keeps the outcomes of the tables {@code serviced} accepts; a run that ends after its table was removed (and
   * {@link #forget} called) leaves nothing behind.
   */
  public ServiceOutcomes(Predicate<String> serviced) {
    this.serviced = Objects.requireNonNull(serviced, "serviced is null");
  }

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
    // After the write: a removal between the check and the write would otherwise be missed. The registry removes a
    // table before it calls forget, so either forget or this check sees the entry.
    String tableId = record.item().table().id();
    if (!serviced.test(tableId)) {
      byTable.remove(tableId);
    }
  }

  /** Forgets the outcomes of a table no longer serviced. */
  public void forget(String tableId) {
    byTable.remove(Objects.requireNonNull(tableId, "tableId is null"));
  }

  /** The tables with outcomes kept; for tests and diagnostics. */
  public Set<String> tables() {
    return Set.copyOf(byTable.keySet());
  }

  public Map<ServiceType, Outcome> of(String tableId) {
    Map<ServiceType, Outcome> outcomes = byTable.get(tableId);
    return outcomes == null || outcomes.isEmpty() ? Map.of() : new EnumMap<>(outcomes);
  }
}
