package io.huditsd.scheduler;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;

/**
 * The files of a local timeline folder with {@code java.nio}: what Hadoop's {@code LocalFileSystem.listStatus} gives
 * the fingerprint (name, length, modification time in milliseconds), for a fraction of its CPU. Hadoop builds and
 * qualifies a {@code Path} (three URI parses) for every entry, {@code .crc} files included; at 10,000 idle local
 * tables that was half the polls' CPU (docs/benchmarks.md, "Poll cost: 10,000 idle tables").
 */
final class LocalTimelineListing {
  private LocalTimelineListing() {
  }

  /**
   * The files directly in {@code folder}; a file deleted while listing is left out, as Hadoop's local listing does.
   *
   * @param shownAs the folder as Hadoop names it ({@code file:/...}), for the message of a missing folder
   * @throws FileNotFoundException when the folder does not exist, with Hadoop's message, so the poll reports the
   *     table as gone as before
   */
  static List<TimelineFingerprint.Entry> list(Path folder, String shownAs) throws IOException {
    List<TimelineFingerprint.Entry> entries = new ArrayList<>();
    try (DirectoryStream<Path> stream = Files.newDirectoryStream(folder)) {
      for (Path file : stream) {
        BasicFileAttributes attributes;
        try {
          attributes = Files.readAttributes(file, BasicFileAttributes.class);
        } catch (NoSuchFileException deleted) {
          continue;
        }
        if (!attributes.isDirectory()) {
          entries.add(new TimelineFingerprint.Entry(file.getFileName().toString(), attributes.size(),
              attributes.lastModifiedTime().toMillis()));
        }
      }
    } catch (NoSuchFileException | NotDirectoryException e) {
      FileNotFoundException missing = new FileNotFoundException("File " + shownAs + " does not exist");
      missing.initCause(e);
      throw missing;
    }
    return entries;
  }
}
