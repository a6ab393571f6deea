package io.huditsd.executors;

import org.apache.hadoop.conf.Configuration;

import java.util.Objects;

/**
 * Hadoop 3.3.6's per-thread I/O statistics, off for the daemon. With them on (Hadoop's default), every input stream
 * of a local or object-store file adds its statistics to its thread's context when it closes, evaluating them with
 * a parallel stream on the common ForkJoin pool: for every file Hudi or the daemon opens (each instant, each
 * metadata-table block, each source of a copy), a wake-up of pool threads on the hot path, and one of the two
 * ingredients of the common-pool deadlock the daemon widens that pool against. Nothing in the daemon reads them: its
 * storage-request metrics read each file system's own statistics.
 *
 * <p>Hadoop reads the switch once, from a new {@link Configuration}, when its context class initializes; so the
 * daemon adds a default resource that turns it off before any file is opened. A value set in the user's
 * {@code core-site.xml} wins.
 */
public final class ThreadIoStatistics {
  static final String KEY = "fs.iostatistics.thread.level.enabled";
  static final String RESOURCE = "hudi-tsd-thread-iostatistics.xml";

  private ThreadIoStatistics() {
  }

  /** Turns them off unless the class path's Hadoop configuration sets them; call before any file is opened. */
  public static void disableUnlessConfigured() {
    if (!userSets(new Configuration())) {
      Configuration.addDefaultResource(RESOURCE);
    }
  }

  /** Whether {@code configuration}'s value of the switch comes from somewhere other than Hadoop's defaults. */
  static boolean userSets(Configuration configuration) {
    String[] sources = Objects.requireNonNull(configuration, "configuration is null").getPropertySources(KEY);
    return sources != null && !(sources.length == 1 && "core-default.xml".equals(sources[0]));
  }
}
