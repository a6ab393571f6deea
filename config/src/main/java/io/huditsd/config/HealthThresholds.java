package io.huditsd.config;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;
import io.dropwizard.util.Duration;

/**
 * When the {@code tables} health check calls a table unhealthy.
 *
 * @param stuckPlanAfter a pending plan older than this is stuck
 * @param failedPolls this many failed polls in a row make a table unhealthy
 */
public record HealthThresholds(Duration stuckPlanAfter, int failedPolls) {
  public static final Duration STUCK_PLAN_AFTER_DEFAULT = Duration.hours(6);
  public static final int FAILED_POLLS_DEFAULT = 5;

  @JsonCreator
  public static HealthThresholds create(@JsonProperty("stuckPlanAfter") Duration stuckPlanAfter,
                                        @JsonProperty("failedPolls") Integer failedPolls) {
    return new HealthThresholds(stuckPlanAfter == null ? STUCK_PLAN_AFTER_DEFAULT : stuckPlanAfter,
        failedPolls == null ? FAILED_POLLS_DEFAULT : failedPolls);
  }

  public HealthThresholds {
    if (stuckPlanAfter.toMilliseconds() <= 0) {
      throw new IllegalArgumentException("stuckPlanAfter must be positive, got " + stuckPlanAfter);
    }
    if (failedPolls < 1) {
      throw new IllegalArgumentException("failedPolls must be at least 1, got " + failedPolls);
    }
  }

  public static HealthThresholds defaults() {
    return create(null, null);
  }
}
