package io.huditsd.scheduler;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;

/**
 * Spaces out plans of a goal that keeps not being reached. An index build that fails is rolled back and its index is
 * missing again at the next poll; planning it anew at every poll would repeat a full build (minutes to hours of work)
 * every poll interval. After the {@code n}-th plan for the same goal, the next one waits {@code first * 2^(n-1)}, at
 * most {@code max}; reaching the goal forgets the attempts.
 */
final class PlanAttempts {
  private record Attempts(int count, Instant lastPlanned) {
  }

  private final Clock clock;
  private final Duration first;
  private final Duration max;
  private final Map<String, Attempts> attempts = new ConcurrentHashMap<>();

  PlanAttempts(Clock clock, Duration first, Duration max) {
    this.clock = Objects.requireNonNull(clock, "clock is null");
    this.first = Objects.requireNonNull(first, "first is null");
    this.max = Objects.requireNonNull(max, "max is null");
    if (first.isNegative() || first.isZero() || max.compareTo(first) < 0) {
      throw new IllegalArgumentException("need 0 < first <= max, got first=" + first + " max=" + max);
    }
  }

  /** Whether a plan for {@code goal} may be written now. */
  boolean mayPlan(String goal) {
    Attempts previous = attempts.get(goal);
    return previous == null || !clock.instant().isBefore(previous.lastPlanned().plus(delayAfter(previous.count())));
  }

  /** When the next plan for {@code goal} may be written; now when it may be written at once. */
  Instant nextPlanAt(String goal) {
    Attempts previous = attempts.get(goal);
    return previous == null ? clock.instant() : previous.lastPlanned().plus(delayAfter(previous.count()));
  }

  void planned(String goal) {
    Instant now = clock.instant();
    attempts.merge(goal, new Attempts(1, now), (old, fresh) -> new Attempts(old.count() + 1, now));
  }

  void reached(String goal) {
    attempts.remove(goal);
  }

  /** Forgets the attempts at the goals {@code which} accepts (those of a table no longer serviced). */
  void forget(Predicate<String> which) {
    attempts.keySet().removeIf(which);
  }

  /** The goals with attempts counted. */
  Set<String> goals() {
    return Set.copyOf(attempts.keySet());
  }

  Duration delayAfter(int plans) {
    Duration delay = first;
    for (int i = 1; i < plans && delay.compareTo(max) < 0; i++) {
      delay = delay.multipliedBy(2);
    }
    return delay.compareTo(max) > 0 ? max : delay;
  }
}
