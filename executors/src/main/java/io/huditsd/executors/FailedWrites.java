package io.huditsd.executors;

import org.apache.hudi.common.table.timeline.TimelineUtils;
import org.apache.hudi.common.util.Option;

import java.time.Instant;
import java.util.Date;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * What one {@link FailedWritesRollback} pass found and did on a table.
 *
 * @param rolledBack writer instants this pass rolled back
 * @param pending writer instants whose heartbeat has expired but which are still on the timeline: the rollback
 *     failed, was not attempted (the table's clean is not the daemon's, or the policy is not LAZY), or Hudi left
 *     them alone
 * @param recheckAt when a poll must look at the table's writes again though its timeline did not change: when the
 *     earliest live writer heartbeat expires unless renewed (a writer that died changes nothing on the timeline),
 *     or, after a rollback that left expired writes pending, when to try it again (nothing else may ever change the
 *     timeline of a table whose only writer died, and its cleaning waits behind those writes)
 * @param rollbackError why the rollback failed, if it did
 */
public record FailedWrites(List<String> rolledBack, List<String> pending, Optional<Instant> recheckAt,
                           Optional<String> rollbackError) {
  public static final FailedWrites NONE = new FailedWrites(List.of(), List.of(), Optional.empty(), Optional.empty());

  public FailedWrites {
    rolledBack = List.copyOf(rolledBack);
    pending = List.copyOf(pending);
    Objects.requireNonNull(recheckAt, "recheckAt is null");
    Objects.requireNonNull(rollbackError, "rollbackError is null");
  }

  /** The requested time of the oldest failed write still pending. */
  public Optional<Instant> oldestPending() {
    return pending.stream().sorted().findFirst().flatMap(FailedWrites::requestedAt);
  }

  private static Optional<Instant> requestedAt(String instantTime) {
    Option<Date> date = TimelineUtils.parseDateFromInstantTimeSafely(instantTime);
    return date.isPresent() ? Optional.of(date.get().toInstant()) : Optional.empty();
  }
}
