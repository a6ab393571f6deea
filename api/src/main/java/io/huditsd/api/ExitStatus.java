package io.huditsd.api;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Ends the JVM with a command's exit status, written first to the file that the system property {@value #FILE_PROPERTY}
 * names, if set. {@code bin/tsd} sets it on the run that writes its class-data archive: a JVM that fails to write
 * the archive as it exits ends with status 1 whatever the command's own was, and the launcher then exits with the
 * status in this file, so that a start-up optimisation never turns a good pass into a failed one.
 */
final class ExitStatus {
  static final String FILE_PROPERTY = "tsd.exitStatusFile";

  private ExitStatus() {
  }

  static void exit(int status) {
    record(status);
    System.exit(status);
  }

  static void record(int status) {
    String file = System.getProperty(FILE_PROPERTY);
    if (file == null || file.isEmpty()) {
      return;
    }
    try {
      Files.writeString(Path.of(file), status + "\n", StandardCharsets.US_ASCII);
    } catch (IOException | RuntimeException e) {
      // Only the launcher's fallback is lost: the JVM's own exit status stands, as without the file.
    }
  }
}
