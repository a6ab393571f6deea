package io.huditsd.scheduler;

import io.huditsd.config.ServiceType;
import io.huditsd.executors.FailedWrites;
import io.huditsd.scheduler.view.TableBacklog;
import org.apache.hudi.common.table.HoodieTableMetaClient;
import org.apache.hudi.config.HoodieWriteConfig;

import java.time.Instant;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * What the polls of one table know: the table as the last successful poll read it, and the failures since. A poll
 * builds the next result from the last one and {@link TableState} publishes it whole, so a reader never sees half
 * of a poll.
 *
 * @param table the table as last read; empty before the first successful poll
 * @param lastPoll when a poll last listed the timeline
 * @param lastChange when a poll last saw the timeline change (or planned again on request)
 * @param timeTriggered whether the compaction trigger involves elapsed time, so polls evaluate it without a change
 * @param recheckAt when a poll must plan again without a change: a pending plan's heartbeat expires
 * @param failedWrites failed writer commits as of the last planning round
 * @param backlog backlog figures as of the last changed poll
 * @param failures polls that failed in a row since the last success
 * @param replansServed how many of {@link TableState#replanOnNextPoll()}'s requests the last successful poll has
 *     planned for; fewer than were made means the next poll plans even if the timeline did not change
 * @param decisions what the last planning round decided for each service of the table, and why; kept by polls that
 *     did not plan (nothing changed), so it is the decision in force
 */
record PollResult(Optional<LoadedTable> table, Optional<Instant> lastPoll, Optional<Instant> lastChange,
                  boolean timeTriggered, Optional<Instant> recheckAt, FailedWrites failedWrites,
                  Optional<TableBacklog> backlog, Failures failures, long replansServed,
                  Map<ServiceType, ServiceDecision> decisions) {
  /** Before the first poll. */
  static final PollResult NONE = new PollResult(Optional.empty(), Optional.empty(), Optional.empty(), false,
      Optional.empty(), FailedWrites.NONE, Optional.empty(), Failures.NONE, 0, Map.of());

  PollResult {
    Objects.requireNonNull(table, "table is null");
    Objects.requireNonNull(lastPoll, "lastPoll is null");
    Objects.requireNonNull(lastChange, "lastChange is null");
    Objects.requireNonNull(recheckAt, "recheckAt is null");
    Objects.requireNonNull(failedWrites, "failedWrites is null");
    Objects.requireNonNull(backlog, "backlog is null");
    Objects.requireNonNull(failures, "failures is null");
    decisions = Map.copyOf(decisions);
  }

  /**
   * The table as a poll read it, all from the same listing.
   *
   * @param fingerprint the timeline listing the table was last planned against
   * @param metaClient the meta client loaded at the last change
   * @param writeConfig the write config built at the last change, kept only while the table is time-triggered (its
   *     every poll plans with it, and building it reads the table's schema from a commit file). Kept for every
   *     table, it was 94% of the heap polling holds per table (about 270 KB: a copy of its ~290 keys in each of 18
   *     sub-configs); polls that plan without a change otherwise (a heartbeat recheck, a replan) build it again
   *     from the same meta client, which gives the same config
   * @param location where polls list the timeline, resolved when the table was loaded
   * @param propertiesCheckedAt when a poll last read the status of {@code hoodie.properties} (the fingerprint's
   *     stamp is as of then)
   */
  record LoadedTable(TimelineFingerprint fingerprint, HoodieTableMetaClient metaClient,
                     Optional<HoodieWriteConfig> writeConfig, TimelineLocation location,
                     Instant propertiesCheckedAt) {
    LoadedTable {
      Objects.requireNonNull(fingerprint, "fingerprint is null");
      Objects.requireNonNull(metaClient, "metaClient is null");
      Objects.requireNonNull(writeConfig, "writeConfig is null");
      Objects.requireNonNull(location, "location is null");
      Objects.requireNonNull(propertiesCheckedAt, "propertiesCheckedAt is null");
    }
  }

  /**
   * Polls that failed in a row.
   *
   * @param count how many
   * @param nextAttempt when the table is polled again (polls before are skipped)
   * @param lastError the last failure's message
   */
  record Failures(int count, Instant nextAttempt, Optional<String> lastError) {
    static final Failures NONE = new Failures(0, Instant.MIN, Optional.empty());

    Failures {
      Objects.requireNonNull(nextAttempt, "nextAttempt is null");
      Objects.requireNonNull(lastError, "lastError is null");
    }
  }

  /** A poll that found nothing to do: only the poll time moves, and earlier failures are forgotten. */
  PollResult unchanged(Instant polledAt) {
    return new PollResult(table, Optional.of(polledAt), lastChange, timeTriggered, recheckAt, failedWrites, backlog,
        Failures.NONE, replansServed, decisions);
  }

  /**
   * A poll that found nothing to do, having read the status of {@code hoodie.properties} (unchanged) at
   * {@code propertiesCheckedAt} and listed through {@code location} (the one known, or one resolved again because
   * the one known failed).
   */
  PollResult unchanged(Instant polledAt, Instant propertiesCheckedAt, TimelineLocation location) {
    Optional<LoadedTable> checked = table.map(loaded -> new LoadedTable(loaded.fingerprint(), loaded.metaClient(),
        loaded.writeConfig(), location, propertiesCheckedAt));
    return new PollResult(checked, Optional.of(polledAt), lastChange, timeTriggered, recheckAt, failedWrites, backlog,
        Failures.NONE, replansServed, decisions);
  }

  /**
   * A poll that failed: the table stays as the last successful poll read it, so the next one compares against that
   * (and plans again if a replan was owed).
   */
  PollResult failed(Optional<Instant> polledAt, Failures failures) {
    return new PollResult(table, polledAt, lastChange, timeTriggered, recheckAt, failedWrites, backlog, failures,
        replansServed, decisions);
  }
}
