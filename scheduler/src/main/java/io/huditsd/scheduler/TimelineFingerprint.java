package io.huditsd.scheduler;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.LocalFileSystem;
import org.apache.hadoop.fs.Path;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;

/**
 * What a poll compares: the names and sizes of the files in the table's timeline folder, and the size and
 * modification time of {@code hoodie.properties}. The two are read apart ({@link #list} and
 * {@link #propertiesStamp}) so that a poll of an unchanged table can skip the second: on an object store every
 * call is a billed request, and {@link TablePoller} reads {@code hoodie.properties} only when the listing changed
 * or a recheck is due.
 *
 * @param entries number of timeline files
 * @param digest hash over the sorted (name, length) pairs
 * @param propertiesStamp length and modification time of {@code hoodie.properties}
 */
public record TimelineFingerprint(int entries, long digest, long propertiesStamp) {
  private static final String PROPERTIES = "hoodie.properties";
  private static final String BACKUP_SUFFIX = ".backup";

  /**
   * The timeline listing on its own.
   *
   * @param entries number of timeline files
   * @param digest hash over the sorted (name, length) pairs
   */
  public record Listing(int entries, long digest) {
  }

  public static TimelineFingerprint of(Listing listing, long propertiesStamp) {
    return new TimelineFingerprint(listing.entries(), listing.digest(), propertiesStamp);
  }

  /** The listing this fingerprint was made from. */
  public Listing listing() {
    return new Listing(entries, digest);
  }

  /**
   * One listing and one status call.
   *
   * @param timelinePath {@code .hoodie/timeline} on table version 8 and later, {@code .hoodie} before
   * @throws FileNotFoundException when the table is gone
   */
  public static TimelineFingerprint read(Configuration hadoopConfiguration, String basePath, String timelinePath)
      throws IOException {
    return of(list(hadoopConfiguration, timelinePath), propertiesStamp(hadoopConfiguration, basePath));
  }

  /**
   * One directory listing of the timeline folder. On S3A {@code listStatus} of a folder that has files is one LIST
   * request (S3A lists first and probes the path with HEAD requests only when the listing comes back empty;
   * measured in TestS3PollRequests); {@code listStatusIterator} and {@code listFiles} are no cheaper.
   *
   * @param timelinePath {@code .hoodie/timeline} on table version 8 and later, {@code .hoodie} before
   * @throws FileNotFoundException when the table is gone
   */
  public static Listing list(Configuration hadoopConfiguration, String timelinePath) throws IOException {
    Path timeline = new Path(timelinePath);
    return list(timeline.getFileSystem(hadoopConfiguration), timeline);
  }

  /**
   * As {@link #list(Configuration, String)}, on a file system already resolved (see {@link TimelineLocation}). A
   * local folder is listed with {@code java.nio} ({@link LocalTimelineListing}): the same entries, lengths and
   * modification times, without Hadoop's three URI parses per entry, which were half of an idle local poll's CPU.
   */
  static Listing list(FileSystem fileSystem, Path timeline) throws IOException {
    return digest(entries(fileSystem, timeline));
  }

  /** The files of the timeline folder, in no particular order: one listing, as {@link #list(FileSystem, Path)}. */
  static List<Entry> entries(FileSystem fileSystem, Path timeline) throws IOException {
    if (fileSystem instanceof LocalFileSystem local) {
      return LocalTimelineListing.list(local.pathToFile(timeline).toPath(), timeline.toString());
    }
    return hadoopEntries(fileSystem, timeline);
  }

  /** The listing through Hadoop's {@code listStatus}: one LIST request on an object store. */
  static Listing hadoopListing(FileSystem fileSystem, Path timeline) throws IOException {
    return digest(hadoopEntries(fileSystem, timeline));
  }

  private static List<Entry> hadoopEntries(FileSystem fileSystem, Path timeline) throws IOException {
    FileStatus[] statuses = fileSystem.listStatus(timeline);
    List<Entry> entries = new ArrayList<>(statuses.length);
    for (FileStatus status : statuses) {
      if (!status.isDirectory()) {
        entries.add(new Entry(status.getPath().getName(), status.getLen(), status.getModificationTime()));
      }
    }
    return entries;
  }

  /**
   * Whether {@code name} is a timeline file of one of {@code instants}: {@code <instant>.<action>[.<state>]}, or a
   * completed instant's {@code <instant>_<completion>.<action>} from table version 8 on.
   */
  static boolean isFileOf(String name, Collection<String> instants) {
    for (String instant : instants) {
      if (name.length() > instant.length() && name.startsWith(instant)
          && (name.charAt(instant.length()) == '.' || name.charAt(instant.length()) == '_')) {
        return true;
      }
    }
    return false;
  }

  /** A file of the timeline folder as the fingerprint reads it. */
  record Entry(String name, long length, long modificationTime) {
  }

  /** The listing of {@code entries} (files only), in name order; checksum files left out. */
  static Listing digest(List<Entry> entries) {
    List<Entry> sorted = new ArrayList<>(entries);
    sorted.sort(Comparator.comparing(Entry::name));
    long digest = 1125899906842597L;
    int files = 0;
    for (Entry entry : sorted) {
      String name = entry.name();
      if (name.startsWith(".") && name.endsWith(".crc")) {
        continue;
      }
      digest = 31 * digest + name.hashCode();
      digest = 31 * digest + entry.length();
      if (name.startsWith(PROPERTIES)) {
        // Before table version 8 the timeline is .hoodie itself: an update of hoodie.properties (or its backup)
        // changes the listing even when the length stays the same.
        digest = 31 * digest + entry.modificationTime();
      }
      files++;
    }
    return new Listing(files, digest);
  }

  /**
   * One status call (a HEAD request on S3A): the length and modification time of {@code hoodie.properties}. Hudi
   * rewrites that file by writing {@code hoodie.properties.backup}, deleting the file and writing it again; a poll in
   * between (a real window on object stores) takes the backup's stamp, as Hudi's own reader falls back to the backup.
   *
   * @throws FileNotFoundException when neither exists
   */
  public static long propertiesStamp(Configuration hadoopConfiguration, String basePath) throws IOException {
    Path path = propertiesPath(basePath);
    return propertiesStamp(path.getFileSystem(hadoopConfiguration), path);
  }

  /** {@code .hoodie/hoodie.properties} of the table at {@code basePath}. */
  static Path propertiesPath(String basePath) {
    return new Path(new Path(basePath, ".hoodie"), PROPERTIES);
  }

  /** As {@link #propertiesStamp(Configuration, String)}, on a file system already resolved. */
  static long propertiesStamp(FileSystem fileSystem, Path path) throws IOException {
    FileStatus properties;
    try {
      properties = fileSystem.getFileStatus(path);
    } catch (FileNotFoundException missing) {
      try {
        properties = fileSystem.getFileStatus(path.suffix(BACKUP_SUFFIX));
      } catch (FileNotFoundException noBackup) {
        throw missing;
      }
    }
    return properties.getLen() * 1_000_003L + properties.getModificationTime();
  }
}
