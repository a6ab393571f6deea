package io.huditsd.executors.spark;

import io.huditsd.executors.WorkItem;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Properties;

/**
 * The files of one submission, under {@code spark.logDir/<table>/}: the write-config keys the runner executes the plan
 * with ({@code .properties}, shipped with the application) and spark-submit's output, stdout and stderr merged
 * ({@code .log}; in client mode that is the driver's log). Named by service, instant and submission time, so every
 * attempt keeps its own log.
 *
 * @param directory the submission's directory (spark-submit's working directory)
 * @param properties the properties file
 * @param driverLog the output file
 */
record Submission(Path directory, Path properties, Path driverLog) {
  private static final DateTimeFormatter STAMP = DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss.SSS")
      .withZone(ZoneOffset.UTC);
  static final int TAIL_LINES = 30;

  static Submission create(Path logDir, WorkItem item, Instant submittedAt) {
    Path directory = logDir.resolve(item.table().id());
    String name = item.service().configName() + "-" + item.instant().orElse("none") + "-"
        + STAMP.format(submittedAt);
    try {
      Files.createDirectories(directory);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot create spark.logDir directory " + directory, e);
    }
    return new Submission(directory, directory.resolve(name + ".properties"), directory.resolve(name + ".log"));
  }

  /** Writes {@code keys} as a Java properties file (Properties.store escapes what needs it). */
  void writeProperties(Map<String, String> keys, String comment) {
    Properties properties = new Properties();
    properties.putAll(keys);
    try (OutputStream out = Files.newOutputStream(properties())) {
      properties.store(out, comment);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot write " + properties(), e);
    }
  }

  /** The last lines of the driver's log, for a failure's message; empty when there is none. */
  List<String> driverLogTail() {
    if (!Files.isRegularFile(driverLog)) {
      return List.of();
    }
    Deque<String> tail = new ArrayDeque<>();
    try (var lines = Files.lines(driverLog, StandardCharsets.UTF_8)) {
      lines.forEach(line -> {
        tail.addLast(line);
        if (tail.size() > TAIL_LINES) {
          tail.removeFirst();
        }
      });
    } catch (IOException | UncheckedIOException e) {
      return List.of("(cannot read " + driverLog + ": " + e.getMessage() + ")");
    }
    return List.copyOf(tail);
  }
}
