package io.huditsd.config;

import java.util.Map;
import java.util.Optional;

/**
 * How the table's writers prove a pending commit is alive: their {@code hoodie.client.heartbeat.*} keys, which the
 * user sets among the table's {@code hoodie.*} keys to match the writers' own (Hudi's defaults otherwise).
 *
 * <p>The daemon judges writer commits by this window, never by its own plans' ({@link HeartbeatSettings}): Hudi's
 * {@code rollbackFailedWrites} rolls back every pending writer commit whose heartbeat is older than the calling
 * client's window, so a daemon whose plans renew every 5 s would judge a live writer renewing every 60 s failed
 * after 10 s and delete its files under it; the writer then completes an instant whose data is gone.
 *
 * @param intervalMillis {@code hoodie.client.heartbeat.interval_in_ms}: how often a writer renews its heartbeat
 * @param tolerableMisses {@code hoodie.client.heartbeat.tolerable.misses}: Hudi counts a heartbeat as expired after
 *     {@code interval * misses} ({@code HoodieHeartbeatClient})
 */
public record WriterHeartbeat(long intervalMillis, int tolerableMisses) {
  public static final String INTERVAL_KEY = "hoodie.client.heartbeat.interval_in_ms";
  public static final String MISSES_KEY = "hoodie.client.heartbeat.tolerable.misses";
  /** Hudi's defaults (HoodieWriteConfig.CLIENT_HEARTBEAT_INTERVAL_IN_MS, CLIENT_HEARTBEAT_NUM_TOLERABLE_MISSES). */
  public static final WriterHeartbeat HUDI_DEFAULT = new WriterHeartbeat(60_000, 2);

  static final long MIN_INTERVAL_MILLIS = 100;

  public WriterHeartbeat {
    if (intervalMillis < MIN_INTERVAL_MILLIS) {
      throw new IllegalArgumentException("intervalMillis must be at least " + MIN_INTERVAL_MILLIS + ", got "
          + intervalMillis);
    }
    if (tolerableMisses < 1) {
      throw new IllegalArgumentException("tolerableMisses must be at least 1, got " + tolerableMisses);
    }
  }

  /** The writers' heartbeat from a table's effective {@code hoodie.*} keys, already checked by {@link #problem}. */
  public static WriterHeartbeat of(Map<String, String> hoodieKeys) {
    String interval = hoodieKeys.get(INTERVAL_KEY);
    String misses = hoodieKeys.get(MISSES_KEY);
    return new WriterHeartbeat(
        interval == null ? HUDI_DEFAULT.intervalMillis() : Long.parseLong(interval.trim()),
        misses == null ? HUDI_DEFAULT.tolerableMisses() : Integer.parseInt(misses.trim()));
  }

  /** How long after its last heartbeat a writer commit counts as failed: Hudi's {@code interval * misses}. */
  public long expiryMillis() {
    return intervalMillis * tolerableMisses;
  }

  /**
   * The same window in the daemon's terms, for a write client that judges writers ({@link
   * HeartbeatSettings#hudiTolerableMisses()} adds the one miss back).
   */
  public HeartbeatSettings asHeartbeatSettings() {
    return new HeartbeatSettings(intervalMillis, tolerableMisses - 1);
  }

  /** What is wrong with {@code value} for one of the two keys; empty for other keys or a good value. */
  static Optional<String> problem(String key, String value) {
    if (INTERVAL_KEY.equals(key)) {
      return longAtLeast(value, MIN_INTERVAL_MILLIS, "milliseconds");
    }
    if (MISSES_KEY.equals(key)) {
      return longAtLeast(value, 1, "missed heartbeats");
    }
    return Optional.empty();
  }

  private static Optional<String> longAtLeast(String value, long min, String unit) {
    try {
      long parsed = Long.parseLong(value.trim());
      if (parsed < min || parsed > Integer.MAX_VALUE) {
        return Optional.of("must be a whole number of " + unit + " from " + min + " to " + Integer.MAX_VALUE);
      }
      return Optional.empty();
    } catch (NumberFormatException e) {
      return Optional.of("is not a whole number of " + unit);
    }
  }
}
