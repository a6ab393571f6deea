package io.huditsd.executors;

import org.apache.hadoop.conf.Configuration;

import java.util.Arrays;
import java.util.Map;
import java.util.Objects;

/**
 * Hadoop settings the daemon makes the default of every {@link Configuration} in its JVM, Hadoop's and Hudi's own
 * {@code new Configuration()} included, as default resources of its jar: a value the user's {@code core-site.xml}
 * sets for a key wins (its resource is then not added).
 *
 * <ul>
 *   <li>{@code fs.file.impl}: {@link ForklessLocalFileSystem}. Hadoop keeps one file system per scheme in a cache,
 *       made by whichever configuration asks first; setting it on the daemon's own configuration alone left the
 *       demo's writer (and any Hudi class asking first) to fill the cache with Hadoop's, which forks a process for
 *       every file it creates.</li>
 *   <li>{@code fs.iostatistics.thread.level.enabled}: off. With it on (Hadoop's default), every input stream adds
 *       its statistics to its thread's context when it closes, through a parallel stream on the common ForkJoin
 *       pool: for every file Hudi or the daemon opens (each instant, each metadata-table block, each source of a
 *       copy), and one of the two ingredients of the common-pool deadlock the daemon widens that pool against.
 *       Nothing in the daemon reads them: its storage-request metrics read each file system's own statistics.
 *       Hadoop reads this switch once, when its context class initializes, so these defaults go in before any file
 *       is opened.</li>
 * </ul>
 */
public final class HadoopJvmDefaults {
  /** Each key, and the resource of this jar that sets the daemon's value. */
  static final Map<String, String> RESOURCES = Map.of(
      ForklessLocalFileSystem.IMPLEMENTATION_KEY, "hudi-tsd-local-file-system.xml",
      "fs.iostatistics.thread.level.enabled", "hudi-tsd-thread-iostatistics.xml");

  private HadoopJvmDefaults() {
  }

  /** Adds the daemon's defaults for the keys the class path's Hadoop configuration leaves unset; call first. */
  public static void install() {
    Configuration current = new Configuration();
    RESOURCES.forEach((key, resource) -> {
      if (!userSets(current, key)) {
        Configuration.addDefaultResource(resource);
      }
    });
  }

  /** Whether {@code configuration}'s value of {@code key} comes from somewhere other than Hadoop's or these defaults. */
  static boolean userSets(Configuration configuration, String key) {
    String[] sources = Objects.requireNonNull(configuration, "configuration is null").getPropertySources(key);
    return sources != null && Arrays.stream(sources)
        .anyMatch(source -> !source.equals("core-default.xml") && !RESOURCES.containsValue(source));
  }
}
