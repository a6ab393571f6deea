package io.huditsd.scheduler;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.LocalFileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RawLocalFileSystem;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.util.Collection;
import java.util.List;
import java.util.Objects;

/**
 * Where one table's polls look, resolved once: the file system, the timeline folder and {@code hoodie.properties}.
 * {@code Path.getFileSystem} on every poll cost about half of an idle poll's CPU (the file system cache key builds a
 * {@code UserGroupInformation} and reads the default URI through Hadoop's deprecation-aware {@code Configuration}),
 * so a table keeps this with its loaded state and polls call {@code listStatus} on it directly.
 *
 * @param fileSystem the (cached, shared) file system of the table's base path
 * @param timeline {@code .hoodie/timeline} on table version 8 and later, {@code .hoodie} before
 * @param properties {@code .hoodie/hoodie.properties}
 */
record TimelineLocation(FileSystem fileSystem, Path timeline, Path properties) {
  TimelineLocation {
    Objects.requireNonNull(fileSystem, "fileSystem is null");
    Objects.requireNonNull(timeline, "timeline is null");
    Objects.requireNonNull(properties, "properties is null");
  }

  /** One file system lookup (from Hadoop's cache after the first table of a store) and no storage request. */
  static TimelineLocation resolve(Configuration hadoopConfiguration, String basePath, String timelinePath)
      throws IOException {
    Path timeline = new Path(timelinePath);
    return new TimelineLocation(timeline.getFileSystem(hadoopConfiguration), timeline,
        TimelineFingerprint.propertiesPath(basePath));
  }

  /** The same paths on the file system Hadoop's cache hands out now (the one held may have been closed since). */
  TimelineLocation resolvedAgain(Configuration hadoopConfiguration) throws IOException {
    return new TimelineLocation(timeline.getFileSystem(hadoopConfiguration), timeline, properties);
  }

  /**
   * One listing of the timeline folder.
   *
   * @throws FileNotFoundException when the table is gone
   */
  TimelineFingerprint.Listing list() throws IOException {
    return TimelineFingerprint.list(fileSystem, timeline);
  }

  /**
   * One status call on {@code hoodie.properties} (or its backup).
   *
   * @throws FileNotFoundException when neither exists
   */
  long propertiesStamp() throws IOException {
    return TimelineFingerprint.propertiesStamp(fileSystem, properties);
  }

  /**
   * Whether a status call on {@code hoodie.properties} costs no storage request: a local file system answers it with
   * one {@code stat}; elsewhere it is a request (a billed HEAD on an object store, a NameNode call on HDFS).
   */
  boolean statusIsFree() {
    return fileSystem instanceof LocalFileSystem || fileSystem instanceof RawLocalFileSystem;
  }

  /** A listing and a status call. */
  TimelineFingerprint read() throws IOException {
    return TimelineFingerprint.of(list(), propertiesStamp());
  }

  /**
   * The fingerprint after this process wrote the plans {@code ownInstants}, when they are all that changed since
   * {@code before}; {@code before} itself when anything else changed (a writer's commit, another process's plan), so
   * that the next poll sees that change. Taking the new fingerprint whole would swallow a plan another replica wrote
   * while this one planned: nothing would enqueue it until the timeline changed again.
   */
  TimelineFingerprint afterOwnPlans(TimelineFingerprint before, Collection<String> ownInstants) throws IOException {
    List<TimelineFingerprint.Entry> entries = TimelineFingerprint.entries(fileSystem, timeline);
    TimelineFingerprint.Listing others = TimelineFingerprint.digest(entries.stream()
        .filter(entry -> !TimelineFingerprint.isFileOf(entry.name(), ownInstants)).toList());
    if (!others.equals(before.listing())) {
      return before;
    }
    long propertiesStamp = propertiesStamp();
    return propertiesStamp == before.propertiesStamp()
        ? TimelineFingerprint.of(TimelineFingerprint.digest(entries), propertiesStamp) : before;
  }
}
