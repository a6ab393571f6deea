package io.huditsd.config;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;
import io.dropwizard.util.Duration;

/**
 * When the {@code tables} health check calls a table unhealthy.
 *
 * @param stuckPlanAfter a pending plan older than this is stuck
 * @param failedPolls this many failed polls in a row make a table unhealthy
 * @param cleanBlockedAfter cleaning held back longer than this by one pending instant makes a table unhealthy: the
 *     earliest pending instant, older than this, has more than {@code hoodie.clean.commits.retained} commits
 *     completed after it (Hudi's clean planner never retains past it)
 */
public record HealthThresholds(Duration stuckPlanAfter, int failedPolls, Duration cleanBlockedAfter) {
  public static final Duration STUCK_PLAN_AFTER_DEFAULT = Duration.hours(6);
  public static final int FAILED_POLLS_DEFAULT = 5;
  public static final Duration CLEAN_BLOCKED_AFTER_DEFAULT = Duration.hours(2);

  @JsonCreator
  public static HealthThresholds create(@JsonProperty("stuckPlanAfter") Duration stuckPlanAfter,
                                        @JsonProperty("failedPolls") Integer failedPolls,
                                        @JsonProperty("cleanBlockedAfter") Duration cleanBlockedAfter) {
    return new HealthThresholds(stuckPlanAfter == null ? STUCK_PLAN_AFTER_DEFAULT : stuckPlanAfter,
        failedPolls == null ? FAILED_POLLS_DEFAULT : failedPolls,
        cleanBlockedAfter == null ? CLEAN_BLOCKED_AFTER_DEFAULT : cleanBlockedAfter);
  }

  public HealthThresholds {
    if (stuckPlanAfter.toMilliseconds() <= 0) {
      throw new IllegalArgumentException("stuckPlanAfter must be positive, got " + stuckPlanAfter);
    }
    if (cleanBlockedAfter.toMilliseconds() <= 0) {
      throw new IllegalArgumentException("cleanBlockedAfter must be positive, got " + cleanBlockedAfter);
    }
    if (failedPolls < 1) {
      throw new IllegalArgumentException("failedPolls must be at least 1, got " + failedPolls);
    }
  }

  public static HealthThresholds defaults() {
    return create(null, null, null);
  }
}
