package io.huditsd.scheduler;

import io.huditsd.ha.TableOwnership;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

/**
 * What a writer's commit callback does: the table's next poll happens now, and nothing else. The poll reads the
 * timeline as the truth, so a lost, duplicated, forged or out-of-order callback can never make the daemon plan
 * wrongly; it can only poll a table sooner. Bursts are debounced per table ({@link PollDebouncer}). A table this
 * replica does not own is passed to its owner ({@link TableOwnership#requestPoll}), debounced the same way; the
 * owner hears it as {@link TableOwnership.Listener#pollRequested}.
 *
 * <p>Also measures, as a {@link PollObserver}, how long after a callback's commit time the poll that followed
 * scheduled a plan.
 */
public final class CommitCallbacks implements PollObserver, TableOwnership.Listener {
  private static final Logger LOG = LoggerFactory.getLogger(CommitCallbacks.class);
  /** A commit time this far ahead of the callback's arrival is another clock's or zone's. */
  static final Duration CLOCK_SKEW = Duration.ofMinutes(1);
  /** A commit time this far before the arrival is taken for another zone's rather than a write this long. */
  static final Duration LONGEST_WRITE = Duration.ofMinutes(50);
  /** Where a callback went. */
  public enum Route {
    /** This replica polls the table now. */
    POLL_NOW,
    /** A poll of the table requested moments ago covers this callback too. */
    COALESCED,
    /** Another replica owns the table and was asked to poll it. */
    FORWARDED
  }

  /** The earliest commit time of the callbacks since the table's last poll, and when the first of them came. */
  private record Pending(Instant commitTime, Instant receivedAt) {
  }

  private final TableOwnership ownership;
  private final CommitCallbackMetrics metrics;
  private final Clock clock;
  private final PollDebouncer polls;
  private final PollDebouncer forwards;
  private final Map<String, Pending> pending = new HashMap<>();
  private final Set<String> zoneWarned = ConcurrentHashMap.newKeySet();

  /**
   * @param poll starts a poll of a table this replica owns, off the caller's thread
   * @param debounce the window of {@link PollDebouncer}
   */
  public CommitCallbacks(TableOwnership ownership, Consumer<String> poll, Duration debounce,
                         PollDebouncer.Timer timer, CommitCallbackMetrics metrics, Clock clock) {
    this.ownership = Objects.requireNonNull(ownership, "ownership is null");
    this.metrics = Objects.requireNonNull(metrics, "metrics is null");
    this.clock = Objects.requireNonNull(clock, "clock is null");
    Objects.requireNonNull(poll, "poll is null");
    this.polls = new PollDebouncer(debounce, tableId -> {
      metrics.polled(tableId);
      poll.accept(tableId);
    }, timer);
    this.forwards = new PollDebouncer(debounce, ownership::requestPoll, timer);
  }

  /** Forgets a table no longer serviced: a callback's commit time its poll will not take, its zone warning. */
  public void forget(String tableId) {
    zoneWarned.remove(tableId);
    synchronized (pending) {
      pending.remove(tableId);
    }
  }

  /** The tables with a commit time waiting for their poll or a zone warning; for tests and diagnostics. */
  public Set<String> tables() {
    Set<String> tables = new TreeSet<>(zoneWarned);
    synchronized (pending) {
      tables.addAll(pending.keySet());
    }
    return tables;
  }

  /**
   * A writer committed to {@code tableId}.
   *
   * @param commitTime the commit time the callback names, when it could be read as a time
   */
  public Route received(String tableId, Optional<Instant> commitTime) {
    if (!ownership.owns(tableId)) {
      forwards.request(tableId);
      return Route.FORWARDED;
    }
    commitTime.ifPresent(time -> remember(tableId, time));
    return polls.request(tableId) == PollDebouncer.Decision.NOW ? Route.POLL_NOW : Route.COALESCED;
  }

  @Override
  public void pollRequested(String tableId) {
    if (ownership.owns(tableId)) {
      polls.request(tableId);
    }
  }

  @Override
  public void gained(String tableId) {
  }

  @Override
  public void lost(String tableId) {
    synchronized (pending) {
      pending.remove(tableId);
    }
  }

  @Override
  public void scheduled(String tableId, List<String> instants) {
    Pending settled;
    synchronized (pending) {
      settled = pending.remove(tableId);
    }
    if (settled != null) {
      Duration delay = Duration.between(settled.commitTime(), clock.instant());
      // A writer's clock or timeline time zone far from ours would record nonsense; such a delay is left out.
      if (!delay.isNegative() && delay.compareTo(Duration.ofDays(1)) < 0) {
        metrics.scheduledAfter(delay);
      }
    }
  }

  @Override
  public void polled(String tableId, TablePoller.Result result, Duration duration) {
    Instant pollStart = clock.instant().minus(duration);
    synchronized (pending) {
      // Callbacks from before this poll started are answered by it, whether it scheduled a plan or not.
      Pending waiting = pending.get(tableId);
      if (waiting != null && waiting.receivedAt().isBefore(pollStart)) {
        pending.remove(tableId);
      }
    }
  }

  private void remember(String tableId, Instant commitTime) {
    Instant now = clock.instant();
    Instant from = commitTime;
    if (commitTime.isAfter(now.plus(CLOCK_SKEW)) || commitTime.isBefore(now.minus(LONGEST_WRITE))) {
      // Hudi's instant times carry no zone: a writer whose timeline is in local time (hoodie.table.timeline.timezone
      // LOCAL, the default) in another zone than the daemon's sends times hours off. The callback arrives right
      // after the commit; its arrival is then the start.
      from = now;
      if (zoneWarned.add(tableId)) {
        LOG.warn("Commit times in callbacks of table {} are {} min from their arrival: its writers' timeline time"
            + " zone differs from the daemon's, or their clocks; commit-to-schedule delays are measured from the"
            + " callbacks' arrival", tableId, Duration.between(commitTime, now).toMinutes());
      }
    }
    synchronized (pending) {
      pending.merge(tableId, new Pending(from, now), (known, next) ->
          new Pending(known.commitTime().isBefore(next.commitTime()) ? known.commitTime() : next.commitTime(),
              known.receivedAt()));
    }
  }
}
