package io.huditsd.config;

import io.dropwizard.util.Duration;
import org.junit.jupiter.api.Test;

import static io.huditsd.config.ConfigurationFiles.parse;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** {@code tableHealth} as the YAML sets it. */
class TestHealthThresholds {
  @Test
  void unsetThresholdsTakeTheirDocumentedDefaults() throws Exception {
    TsdConfiguration configuration = parse("""
        tableHealth:
          failedPolls: 3
        """);

    assertThat(configuration.getTableHealth())
        .isEqualTo(new HealthThresholds(Duration.hours(6), 3, Duration.hours(2)));
  }

  @Test
  void cleanBlockedAfterIsReadNextToTheOtherThresholds() throws Exception {
    TsdConfiguration configuration = parse("""
        tableHealth:
          stuckPlanAfter: 1h
          cleanBlockedAfter: 30m
        """);

    assertThat(configuration.getTableHealth().cleanBlockedAfter()).isEqualTo(Duration.minutes(30));
    assertThat(configuration.getTableHealth().stuckPlanAfter()).isEqualTo(Duration.hours(1));
  }

  @Test
  void aNonPositiveCleanBlockedAfterIsRefusedWithItsName() {
    assertThatThrownBy(() -> new HealthThresholds(Duration.hours(6), 5, Duration.seconds(0)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("cleanBlockedAfter must be positive, got 0 seconds");
  }
}
