package io.huditsd.scheduler;

import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BooleanSupplier;

/**
 * Whether a table's planning round leaves its clean and archival to the next round because a compaction or
 * clustering of the table is queued or running in this daemon.
 *
 * <p>Each of them takes the table lock, and Hudi holds that lock at least through its clock-skew allowance (200 ms)
 * for every instant it generates and every completion time it writes. A clean planned in the same poll as a tiny
 * compaction claimed and committed under the lock just when the compaction wanted it for its commit, and archival
 * followed: about a third of a tiny compaction's time from instant to commit was spent waiting for the daemon's own
 * clean (docs/benchmarks.md, "A warm daemon's fixed cost per plan"). Planned after the compaction commits, the
 * clean also finds the slices the compaction replaced.
 *
 * <p>At most one round in a row per table: the round after a deferral plans the clean and archival whatever runs,
 * so a table whose compactions are always running (long ones, or one due at every poll) is still cleaned, one poll
 * interval later at most. The planner asks for a recheck at the next poll when it defers, so that poll plans even if
 * the timeline did not change.
 */
final class CleanDeferral {
  private final Set<String> deferredLastRound = ConcurrentHashMap.newKeySet();

  /** Forgets a table no longer serviced. */
  void forget(String tableId) {
    deferredLastRound.remove(tableId);
  }

  /** The tables whose last round deferred. */
  Set<String> tables() {
    return Set.copyOf(deferredLastRound);
  }

  /** A planning round of {@code tableId}; rounds of one table never overlap (the planner's lock). */
  Round round(String tableId) {
    return new Round(Objects.requireNonNull(tableId, "tableId is null"), deferredLastRound.contains(tableId));
  }

  /**
   * One round's decision, taken the first time the round asks (when its clean or its archival is due, after its
   * compaction and clustering were scheduled and queued) and kept for the rest of the round.
   */
  final class Round {
    private final String tableId;
    private final boolean deferredBefore;
    private Boolean defers;

    private Round(String tableId, boolean deferredBefore) {
      this.tableId = tableId;
      this.deferredBefore = deferredBefore;
    }

    /**
     * Whether the clean and archival wait for the next round.
     *
     * @param planRunning whether a compaction or clustering of the table is queued or running in this daemon; not
     *     asked when the previous round deferred
     */
    boolean defers(BooleanSupplier planRunning) {
      if (defers == null) {
        defers = !deferredBefore && planRunning.getAsBoolean();
      }
      return defers;
    }

    /** Whether this round deferred anything. */
    boolean deferred() {
      return Boolean.TRUE.equals(defers);
    }

    /** Ends the round, so that the next one knows whether this one deferred. */
    void end() {
      if (deferred()) {
        deferredLastRound.add(tableId);
      } else {
        deferredLastRound.remove(tableId);
      }
    }
  }
}
