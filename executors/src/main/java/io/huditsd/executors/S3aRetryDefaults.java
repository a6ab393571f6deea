package io.huditsd.executors;

import org.apache.hadoop.conf.Configuration;

import java.util.Map;
import java.util.Objects;

/**
 * The daemon's retry and connection-pool settings for S3A, applied where the user's configuration leaves Hadoop 3.3.6's defaults. Both
 * layers back off with jitter: the AWS SDK retries a throttled request ({@code 503 SlowDown}) itself up to
 * {@code fs.s3a.attempts.maximum} times (exponential from 500 ms, equal jitter, at most 20 s a wait), and S3A then
 * retries the whole call up to {@code fs.s3a.retry.throttle.limit} times, sleeping
 * {@code interval * 2^(n+1) * [0.5, 1.5)}.
 *
 * <p>Hadoop 3.3.6's {@code core-default.xml} says 20 SDK attempts and 20 S3A throttle retries from 100 ms: up to
 * 21 * 21 = 441 requests for one call under sustained throttling, and S3A's last sleeps alone would run for days,
 * holding a poll thread all that time. A daemon has better recourse: a poll that gives up is retried on the table's
 * own backoff, and a failed plan by the worker pool. So: 5 SDK attempts (Hadoop 3.4's default), 7 throttle
 * retries from 500 ms (S3A's own constant default, which core-default.xml lowers to 100 ms): at most 6 * 8 = 48
 * requests and about four minutes of S3A sleeps in the worst case, under a second when a burst passes.
 *
 * <p>And the connection pool: Hadoop 3.3.6's 96 connections ran dry in a daemon compacting two tables (Hudi reads
 * each metadata-table log through {@code inlinefs}, a connection per open reader; 52 in use at the peak for two
 * tables, so a few compactions at once exceed 96), and every poll then waited for a connection for minutes.
 * 500 is Hadoop 3.4's default.
 */
public final class S3aRetryDefaults {
  static final Map<String, String> DEFAULTS = Map.of(
      "fs.s3a.attempts.maximum", "5",
      "fs.s3a.retry.throttle.limit", "7",
      "fs.s3a.retry.throttle.interval", "500ms",
      "fs.s3a.connection.maximum", "500");

  private S3aRetryDefaults() {
  }

  /** Sets each of {@link #DEFAULTS} that is unset or comes from {@code core-default.xml} only; returns it. */
  public static Configuration apply(Configuration configuration) {
    Objects.requireNonNull(configuration, "configuration is null");
    DEFAULTS.forEach((key, value) -> {
      String[] sources = configuration.getPropertySources(key);
      boolean hadoopDefault = sources == null
          || (sources.length == 1 && "core-default.xml".equals(sources[0]));
      if (hadoopDefault) {
        configuration.set(key, value, "hudi-tsd S3A retry defaults");
      }
    });
    return configuration;
  }
}
