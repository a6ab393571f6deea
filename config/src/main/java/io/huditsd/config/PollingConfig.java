package io.huditsd.config;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;
import io.dropwizard.util.Duration;

/**
 * How tables are polled.
 *
 * @param interval default interval between two polls of a table's timeline
 * @param threads threads that run polls; a slow table holds one of them, never the others
 * @param maxBackoff the longest wait before a failing table is polled again (the wait doubles per failure from
 *     {@code interval})
 */
public record PollingConfig(Duration interval, int threads, Duration maxBackoff) {
  public static final Duration INTERVAL_DEFAULT = Duration.seconds(30);
  public static final int THREADS_DEFAULT = 4;
  public static final Duration MAX_BACKOFF_DEFAULT = Duration.minutes(10);

  @JsonCreator
  public static PollingConfig create(@JsonProperty("interval") Duration interval,
                                     @JsonProperty("threads") Integer threads,
                                     @JsonProperty("maxBackoff") Duration maxBackoff) {
    return new PollingConfig(interval == null ? INTERVAL_DEFAULT : interval,
        threads == null ? THREADS_DEFAULT : threads,
        maxBackoff == null ? MAX_BACKOFF_DEFAULT : maxBackoff);
  }

  public PollingConfig {
    if (interval.toMilliseconds() <= 0) {
      throw new IllegalArgumentException("interval must be positive, got " + interval);
    }
    if (threads < 1 || threads > 256) {
      throw new IllegalArgumentException("threads must be between 1 and 256, got " + threads);
    }
    if (maxBackoff.toMilliseconds() < interval.toMilliseconds()) {
      throw new IllegalArgumentException("maxBackoff (" + maxBackoff + ") must not be shorter than interval ("
          + interval + ")");
    }
  }

  public static PollingConfig defaults() {
    return create(null, null, null);
  }
}
