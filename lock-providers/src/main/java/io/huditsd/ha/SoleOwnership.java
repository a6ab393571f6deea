package io.huditsd.ha;

import java.util.Objects;
import java.util.Optional;
import java.util.function.Predicate;

/** The single-replica case: every table is this replica's. */
final class SoleOwnership implements TableOwnership {
  private final String replicaId;

  SoleOwnership(String replicaId) {
    this.replicaId = Objects.requireNonNull(replicaId, "replicaId is null");
  }

  @Override
  public String replicaId() {
    return replicaId;
  }

  @Override
  public boolean owns(String tableId) {
    return true;
  }

  @Override
  public Optional<String> owner(String tableId) {
    return Optional.of(replicaId);
  }

  @Override
  public void track(String tableId) {
  }

  @Override
  public void untrack(String tableId) {
  }

  @Override
  public void requestPoll(String tableId) {
    // Every table is this replica's: it polls them itself, nobody else to ask.
  }

  @Override
  public long changes() {
    return 0;
  }

  @Override
  public void addListener(Listener listener) {
  }

  @Override
  public void start(Predicate<String> busy) {
  }

  @Override
  public void close() {
  }
}
