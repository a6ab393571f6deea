package io.huditsd.scheduler;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.util.Arrays;
import java.util.Comparator;

/**
 * What a poll compares: the names and sizes of the files in the table's timeline folder, and the size and
 * modification time of {@code hoodie.properties}. One directory listing and one status call, no file read.
 *
 * @param entries number of timeline files
 * @param digest hash over the sorted (name, length) pairs
 * @param propertiesStamp length and modification time of {@code hoodie.properties}
 */
public record TimelineFingerprint(int entries, long digest, long propertiesStamp) {

  /**
   * @param timelinePath {@code .hoodie/timeline} on table version 8 and later, {@code .hoodie} before
   * @throws FileNotFoundException when the table is gone
   */
  public static TimelineFingerprint read(Configuration hadoopConfiguration, String basePath, String timelinePath)
      throws IOException {
    Path timeline = new Path(timelinePath);
    FileSystem fileSystem = timeline.getFileSystem(hadoopConfiguration);
    FileStatus[] statuses = fileSystem.listStatus(timeline);
    Arrays.sort(statuses, Comparator.comparing(status -> status.getPath().getName()));
    long digest = 1125899906842597L;
    int files = 0;
    for (FileStatus status : statuses) {
      if (status.isDirectory()) {
        continue;
      }
      String name = status.getPath().getName();
      if (name.startsWith(".") && name.endsWith(".crc")) {
        continue;
      }
      digest = 31 * digest + name.hashCode();
      digest = 31 * digest + status.getLen();
      files++;
    }
    FileStatus properties = fileSystem.getFileStatus(new Path(new Path(basePath, ".hoodie"), "hoodie.properties"));
    return new TimelineFingerprint(files, digest, properties.getLen() * 1_000_003L + properties.getModificationTime());
  }
}
