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
 * @param withoutHeartbeat writer instants pending with no heartbeat file at all: their writer keeps none, so it runs
 *     without Hudi's multi-writer keys (EAGER rollback, usually no lock). Such a write may be in progress; nothing is
 *     rolled back while one is pending, and the table's services are refused (see {@link FailedWritesRollback})
 */
public record FailedWrites(List<String> rolledBack, List<String> pending, Optional<Instant> recheckAt,
                           Optional<String> rollbackError, List<String> withoutHeartbeat) {
  public static final FailedWrites NONE = new FailedWrites(List.of(), List.of(), Optional.empty(), Optional.empty(),
      List.of());

  public FailedWrites {
    rolledBack = List.copyOf(rolledBack);
    pending = List.copyOf(pending);
    withoutHeartbeat = List.copyOf(withoutHeartbeat);
    Objects.requireNonNull(recheckAt, "recheckAt is null");
    Objects.requireNonNull(rollbackError, "rollbackError is null");
  }

  /**
   * Why the table's services are refused while {@link #withoutHeartbeat} is not empty: what the writer lacks and
   * what to set, for logs, REST and errors.
   */
  public Optional<String> singleWriterProblem() {
    return withoutHeartbeat.isEmpty() ? Optional.empty() : Optional.of(singleWriterProblem(withoutHeartbeat));
  }

  /** What {@link #singleWriterProblem()} says of {@code instants}, pending without a heartbeat. */
  public static String singleWriterProblem(List<String> instants) {
    return "writer commit " + String.join(", ", instants) + " is pending without a heartbeat"
        + " (.hoodie/.heartbeat/<instant>): its writer runs without Hudi's multi-writer keys, and a table service"
        + " beside it could roll its write back or miss its conflicts. Set on every writer of the table:"
        + " hoodie.write.concurrency.mode=OPTIMISTIC_CONCURRENCY_CONTROL, hoodie.cleaner.policy.failed.writes=LAZY"
        + " and the lock the daemon uses (hoodie.write.lock.provider). If that writer is gone for good, roll the"
        + " commit back with Hudi (an EAGER writer does so when it next starts, or hudi-cli: commit rollback)";
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
