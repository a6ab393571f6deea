package io.huditsd.scheduler;

import org.junit.jupiter.api.Test;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class TestPlanAttempts {
  private static final Instant T0 = Instant.parse("2026-11-29T12:00:00Z");

  private static final class SettableClock extends Clock {
    private Instant now = T0;

    @Override
    public ZoneOffset getZone() {
      return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(java.time.ZoneId zone) {
      return this;
    }

    @Override
    public Instant instant() {
      return now;
    }

    void advance(Duration duration) {
      now = now.plus(duration);
    }
  }

  @Test
  void aGoalNeverPlannedMayBePlannedAtOnce() {
    PlanAttempts attempts = new PlanAttempts(new SettableClock(), Duration.ofMinutes(1), Duration.ofHours(1));

    assertThat(attempts.mayPlan("t1/record_index")).isTrue();
    assertThat(attempts.nextPlanAt("t1/record_index")).isEqualTo(T0);
  }

  @Test
  void repeatedPlansOfAnUnreachedGoalWaitTwiceAsLongEachTimeUpToTheMaximum() {
    SettableClock clock = new SettableClock();
    PlanAttempts attempts = new PlanAttempts(clock, Duration.ofMinutes(1), Duration.ofMinutes(5));

    attempts.planned("t1/record_index");
    assertThat(attempts.mayPlan("t1/record_index")).isFalse();
    clock.advance(Duration.ofSeconds(59));
    assertThat(attempts.mayPlan("t1/record_index")).isFalse();
    clock.advance(Duration.ofSeconds(1));
    assertThat(attempts.mayPlan("t1/record_index")).isTrue();

    attempts.planned("t1/record_index");
    assertThat(attempts.nextPlanAt("t1/record_index")).isEqualTo(clock.instant().plus(Duration.ofMinutes(2)));
    attempts.planned("t1/record_index");
    assertThat(attempts.nextPlanAt("t1/record_index")).isEqualTo(clock.instant().plus(Duration.ofMinutes(4)));
    attempts.planned("t1/record_index");
    assertThat(attempts.nextPlanAt("t1/record_index")).isEqualTo(clock.instant().plus(Duration.ofMinutes(5)));
    attempts.planned("t1/record_index");
    assertThat(attempts.nextPlanAt("t1/record_index")).isEqualTo(clock.instant().plus(Duration.ofMinutes(5)));
    // Other goals are not held back.
    assertThat(attempts.mayPlan("t2/record_index")).isTrue();
    assertThat(attempts.mayPlan("t1/column_stats")).isTrue();
  }

  @Test
  void reachingTheGoalForgetsItsAttempts() {
    SettableClock clock = new SettableClock();
    PlanAttempts attempts = new PlanAttempts(clock, Duration.ofMinutes(1), Duration.ofHours(1));
    attempts.planned("t1/record_index");
    attempts.planned("t1/record_index");

    attempts.reached("t1/record_index");

    assertThat(attempts.mayPlan("t1/record_index")).isTrue();
    attempts.planned("t1/record_index");
    assertThat(attempts.nextPlanAt("t1/record_index")).isEqualTo(clock.instant().plus(Duration.ofMinutes(1)));
  }

  @Test
  void aMaximumBelowTheFirstDelayIsRefused() {
    assertThatThrownBy(() -> new PlanAttempts(Clock.systemUTC(), Duration.ofMinutes(2), Duration.ofMinutes(1)))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("first=PT2M max=PT1M");
  }
}
