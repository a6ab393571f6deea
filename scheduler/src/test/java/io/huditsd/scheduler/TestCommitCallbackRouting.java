package io.huditsd.scheduler;

import io.huditsd.ha.TableOwnership;
import io.huditsd.scheduler.CommitCallbacks.Route;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import org.junit.jupiter.api.Test;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Where a writer's callback goes: a poll here for a table this replica owns, a request to the owner for one it does
 * not, both debounced; and the commit-to-schedule delay measured from the callback's commit time.
 */
class TestCommitCallbackRouting {
  private static final Instant NOW = Instant.parse("2026-12-01T12:00:00Z");

  private final Deque<Runnable> windows = new ArrayDeque<>();
  private final List<String> polls = new ArrayList<>();
  private final List<String> forwarded = new ArrayList<>();
  private final PrometheusRegistry registry = new PrometheusRegistry();
  private final Set<String> owned = Set.of("ours");
  private final TestClock clock = new TestClock();
  private final CommitCallbacks callbacks = new CommitCallbacks(new Ownership(owned::contains, forwarded),
      polls::add, Duration.ofSeconds(2), (task, delay) -> windows.add(task), new CommitCallbackMetrics(registry),
      clock);

  @Test
  void ownedTablesArePolledHereAndOthersAskTheirOwnerBothDebounced() {
    assertThat(callbacks.received("ours", Optional.empty())).isEqualTo(Route.POLL_NOW);
    assertThat(callbacks.received("ours", Optional.empty())).isEqualTo(Route.COALESCED);
    assertThat(callbacks.received("theirs", Optional.empty())).isEqualTo(Route.FORWARDED);
    assertThat(callbacks.received("theirs", Optional.empty())).isEqualTo(Route.FORWARDED);
    assertThat(polls).containsExactly("ours");
    assertThat(forwarded).containsExactly("theirs");
    List<Runnable> closing = List.copyOf(windows);
    windows.clear();
    closing.forEach(Runnable::run);
    assertThat(polls).containsExactly("ours", "ours");
    assertThat(forwarded).containsExactly("theirs", "theirs");
    assertThat(ExposedSamples.of(registry)).containsEntry("tsd_commit_callback_polls_total{table=\"ours\"}", 2.0);
  }

  @Test
  void anotherReplicasRequestPollsOnlyTablesThisOneOwns() {
    callbacks.pollRequested("ours");
    callbacks.pollRequested("theirs");
    assertThat(polls).containsExactly("ours");
    assertThat(forwarded).isEmpty();
  }

  @Test
  void theDelayRunsFromTheEarliestCommitTimeToThePlanScheduled() {
    callbacks.received("ours", Optional.of(NOW.minusSeconds(7)));
    callbacks.received("ours", Optional.of(NOW.minusSeconds(3)));
    callbacks.scheduled("ours", List.of("20261201120000000"));
    assertThat(delayCount()).isEqualTo(1.0);
    assertThat(ExposedSamples.of(registry).get("tsd_commit_callback_schedule_delay_seconds_sum")).isEqualTo(7.0);
    // Settled: a later plan of the table is not put down to those callbacks.
    callbacks.scheduled("ours", List.of("20261201120001000"));
    assertThat(delayCount()).isEqualTo(1.0);
  }

  @Test
  void aPollThatStartedAfterTheCallbackSettlesItEvenWhenItSchedulesNothing() {
    callbacks.received("ours", Optional.of(NOW.minusSeconds(30)));
    clock.advance(Duration.ofSeconds(10));
    // Started 5 s after the callback came and found nothing due: that callback is answered.
    callbacks.polled("ours", TablePoller.Result.UNCHANGED, Duration.ofSeconds(5));
    callbacks.scheduled("ours", List.of("20261201120000000"));
    assertThat(delayCount()).isZero();

    callbacks.received("ours", Optional.of(clock.instant().minusSeconds(4)));
    clock.advance(Duration.ofSeconds(1));
    // Started before the callback came (it had run for a minute): the callback waits for the poll after it.
    callbacks.polled("ours", TablePoller.Result.PLANNED, Duration.ofMinutes(1));
    clock.advance(Duration.ofSeconds(1));
    callbacks.scheduled("ours", List.of("20261201120010000"));
    assertThat(delayCount()).isEqualTo(1.0);
    assertThat(ExposedSamples.of(registry).get("tsd_commit_callback_schedule_delay_seconds_sum")).isEqualTo(6.0);
  }

  @Test
  void aCommitTimeHoursOffIsAnotherZonesAndTheArrivalIsTakenInstead() {
    // A writer five hours behind, its timeline in local time: the instant reads five hours and 20 s ago.
    callbacks.received("ours", Optional.of(NOW.minus(Duration.ofHours(5)).minusSeconds(20)));
    clock.advance(Duration.ofSeconds(3));
    callbacks.scheduled("ours", List.of("20261201120000000"));
    assertThat(ExposedSamples.of(registry).get("tsd_commit_callback_schedule_delay_seconds_sum")).isEqualTo(3.0);
    // Two hours ahead: the same.
    callbacks.received("ours", Optional.of(clock.instant().plus(Duration.ofHours(2))));
    clock.advance(Duration.ofSeconds(2));
    callbacks.scheduled("ours", List.of("20261201120001000"));
    assertThat(ExposedSamples.of(registry).get("tsd_commit_callback_schedule_delay_seconds_sum")).isEqualTo(5.0);
  }

  /** A clock the test moves. */
  private static final class TestClock extends Clock {
    private Instant now = NOW;

    void advance(Duration duration) {
      now = now.plus(duration);
    }

    @Override
    public Instant instant() {
      return now;
    }

    @Override
    public java.time.ZoneId getZone() {
      return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(java.time.ZoneId zone) {
      throw new UnsupportedOperationException();
    }
  }

  private double delayCount() {
    Double count = ExposedSamples.of(registry).get("tsd_commit_callback_schedule_delay_seconds_count");
    return count == null ? 0 : count;
  }

  /** Ownership as a set of tables; poll requests to other replicas recorded. */
  private record Ownership(Predicate<String> owns, List<String> requested) implements TableOwnership {
    @Override
    public String replicaId() {
      return "here";
    }

    @Override
    public boolean owns(String tableId) {
      return owns.test(tableId);
    }

    @Override
    public Optional<String> owner(String tableId) {
      return Optional.of(owns(tableId) ? "here" : "there");
    }

    @Override
    public void track(String tableId) {
    }

    @Override
    public void untrack(String tableId) {
    }

    @Override
    public void requestPoll(String tableId) {
      requested.add(tableId);
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
}
