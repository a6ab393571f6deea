package io.huditsd.config;

/**
 * How a running plan proves it is alive, in Hudi's heartbeat terms.
 *
 * @param intervalMillis interval between two heartbeats
 * @param tolerableMisses missed heartbeats before the plan counts as abandoned
 */
public record HeartbeatSettings(long intervalMillis, int tolerableMisses) {
  public HeartbeatSettings {
    if (intervalMillis <= 0) {
      throw new IllegalArgumentException("intervalMillis must be positive, got " + intervalMillis);
    }
    if (tolerableMisses < 0) {
      throw new IllegalArgumentException("tolerableMisses must not be negative, got " + tolerableMisses);
    }
  }

  public static HeartbeatSettings of(WorkerConfig workers) {
    return new HeartbeatSettings(workers.heartbeatInterval().toMilliseconds(), workers.heartbeatTolerableMisses());
  }

  /** How long after its last heartbeat a plan counts as abandoned. */
  public long expiryMillis() {
    return intervalMillis * (tolerableMisses + 1L);
  }

  /**
   * The value of {@code hoodie.client.heartbeat.tolerable.misses} that gives Hudi the same expiry. Hudi counts a
   * heartbeat as expired after {@code interval * misses} (HoodieHeartbeatClient), one interval sooner than the
   * daemon; passed through unchanged, a live plan with one tolerated miss looks dead to Hudi at every timer jitter,
   * and with none at once, so another process would roll back and redo a compaction while it is being written.
   */
  public int hudiTolerableMisses() {
    return tolerableMisses + 1;
  }
}
