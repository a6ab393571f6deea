package io.huditsd.ha;

import java.util.Optional;
import java.util.function.Predicate;

/**
 * Which replica owns which table. Only a table's owner polls, schedules and executes it; the others list it with its
 * owner. A replica that loses a table stops handing out its work at once.
 */
public interface TableOwnership extends AutoCloseable {
  /** Hears of tables this replica gained or lost; called on one thread, in order, and must not block. */
  interface Listener {
    void gained(String tableId);

    void lost(String tableId);

    /**
     * Another replica asked this one, the table's owner, to poll {@code tableId} soon ({@link #requestPoll}), for
     * instance after a writer's commit callback reached that replica.
     */
    default void pollRequested(String tableId) {
    }
  }

  String replicaId();

  /** Whether this replica owns {@code tableId} now. */
  boolean owns(String tableId);

  /** The replica that owns {@code tableId}, as far as this replica knows; empty when none does. */
  Optional<String> owner(String tableId);

  /** This replica services {@code tableId} and may own it. */
  void track(String tableId);

  /** This replica no longer services {@code tableId}; it gives up ownership. */
  void untrack(String tableId);

  /**
   * Asks the replica that owns {@code tableId} to poll it soon; its listeners hear {@link Listener#pollRequested}.
   * Best effort and never blocking for long: a request lost on the way only means the table waits for its next
   * scheduled poll. Called for tables this replica does not own (its own it polls itself).
   */
  void requestPoll(String tableId);

  /** Tables gained plus tables lost by this replica since it started. */
  long changes();

  void addListener(Listener listener);

  /**
   * Starts taking part in the sharing of tables. The worker pool and the ownership each need the other (the pool
   * holds back the work of tables this replica does not own; a table is handed over only once the pool runs none of
   * its work), so the pool is passed here, once both exist, rather than at construction.
   *
   * @param busy whether this replica still runs work of a table; a table is handed over only when it does not
   */
  void start(Predicate<String> busy) throws Exception;

  @Override
  void close();

  /** A single replica: it owns every table it services, and no ZooKeeper is involved. */
  static TableOwnership sole(String replicaId) {
    return new SoleOwnership(replicaId);
  }
}
