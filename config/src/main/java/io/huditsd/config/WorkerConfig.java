package io.huditsd.config;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;
import io.dropwizard.util.Duration;

/**
 * The worker pool that executes plans.
 *
 * @param count worker threads; defaults to the number of cores
 * @param maxAttempts attempts of one plan before it is reported as failed and left alone until the next change
 * @param retryBackoff wait before the second attempt; it doubles for each further attempt
 * @param heartbeatInterval how often a running plan's Hudi heartbeat is renewed; another process (or this daemon
 *     after a restart) treats the plan as abandoned once the heartbeat is older than
 *     {@code heartbeatInterval * (heartbeatTolerableMisses + 1)}
 * @param heartbeatTolerableMisses missed heartbeats tolerated before a plan counts as abandoned
 * @param memoryBudget heap the plans executing in process may hold together, by their estimates: a size
 *     ({@code 1536MiB}) or a share of the maximum heap ({@code 60%}, the default); see {@link MemoryBudget}
 * @param shutdownGracePeriod how long a stop (SIGTERM) lets the plans running in the daemon finish; those still
 *     running then are abandoned and stay pending for the next process
 */
public record WorkerConfig(int count, int maxAttempts, Duration retryBackoff, Duration heartbeatInterval,
                           int heartbeatTolerableMisses, MemoryBudget memoryBudget, Duration shutdownGracePeriod) {
  public static final int MAX_COUNT = 256;
  public static final int MAX_ATTEMPTS_DEFAULT = 3;
  public static final Duration RETRY_BACKOFF_DEFAULT = Duration.seconds(30);
  /**
   * Renewing a heartbeat is one small write; a short window lets the run after a crash (a killed pod, a node gone)
   * take over the plan within half a minute instead of three.
   */
  public static final Duration HEARTBEAT_INTERVAL_DEFAULT = Duration.seconds(10);
  public static final int HEARTBEAT_TOLERABLE_MISSES_DEFAULT = 2;
  /**
   * Well inside the 30 s Kubernetes waits between SIGTERM and SIGKILL by default, with room for the rest of the stop
   * (closing locks and file systems); the chart's terminationGracePeriodSeconds is this plus a margin.
   */
  public static final Duration SHUTDOWN_GRACE_PERIOD_DEFAULT = Duration.seconds(20);

  @JsonCreator
  public static WorkerConfig create(@JsonProperty("count") Integer count,
                                    @JsonProperty("maxAttempts") Integer maxAttempts,
                                    @JsonProperty("retryBackoff") Duration retryBackoff,
                                    @JsonProperty("heartbeatInterval") Duration heartbeatInterval,
                                    @JsonProperty("heartbeatTolerableMisses") Integer heartbeatTolerableMisses,
                                    @JsonProperty("memoryBudget") String memoryBudget,
                                    @JsonProperty("shutdownGracePeriod") Duration shutdownGracePeriod) {
    return new WorkerConfig(count == null ? Runtime.getRuntime().availableProcessors() : count,
        maxAttempts == null ? MAX_ATTEMPTS_DEFAULT : maxAttempts,
        retryBackoff == null ? RETRY_BACKOFF_DEFAULT : retryBackoff,
        heartbeatInterval == null ? HEARTBEAT_INTERVAL_DEFAULT : heartbeatInterval,
        heartbeatTolerableMisses == null ? HEARTBEAT_TOLERABLE_MISSES_DEFAULT : heartbeatTolerableMisses,
        memoryBudget == null ? MemoryBudget.defaults() : MemoryBudget.parse(memoryBudget),
        shutdownGracePeriod == null ? SHUTDOWN_GRACE_PERIOD_DEFAULT : shutdownGracePeriod);
  }

  /** {@link #memoryBudget} in bytes for a JVM whose maximum heap is {@code maxHeapBytes}. */
  public long memoryBudgetBytes(long maxHeapBytes) {
    return memoryBudget.resolve(maxHeapBytes);
  }

  public WorkerConfig {
    if (count < 1 || count > MAX_COUNT) {
      throw new IllegalArgumentException("count must be between 1 and " + MAX_COUNT + ", got " + count);
    }
    if (maxAttempts < 1) {
      throw new IllegalArgumentException("maxAttempts must be at least 1, got " + maxAttempts);
    }
    if (retryBackoff.toMilliseconds() < 0) {
      throw new IllegalArgumentException("retryBackoff must not be negative, got " + retryBackoff);
    }
    if (heartbeatInterval.toMilliseconds() < 100) {
      throw new IllegalArgumentException("heartbeatInterval must be at least 100ms, got " + heartbeatInterval);
    }
    java.util.Objects.requireNonNull(memoryBudget, "memoryBudget is null");
    if (heartbeatTolerableMisses < 0) {
      throw new IllegalArgumentException("heartbeatTolerableMisses must not be negative, got "
          + heartbeatTolerableMisses);
    }
    java.util.Objects.requireNonNull(shutdownGracePeriod, "shutdownGracePeriod is null");
    if (shutdownGracePeriod.toMilliseconds() < 0) {
      throw new IllegalArgumentException("shutdownGracePeriod must not be negative, got " + shutdownGracePeriod);
    }
  }

  public static WorkerConfig defaults() {
    return create(null, null, null, null, null, null, null);
  }
}
