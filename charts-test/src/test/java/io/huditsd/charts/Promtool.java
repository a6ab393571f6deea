package io.huditsd.charts;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Prometheus' own {@code promtool}, from Debian's {@code prometheus} package (bin/test installs it), run as a child
 * process: the chart's rules and the daemon's exposition are checked by the tool Prometheus itself uses.
 */
final class Promtool {
  /** Where Debian installs it; {@code -Dtsd.promtool=...} points elsewhere. */
  private static final String DEFAULT = "/usr/bin/promtool";

  /** What promtool printed and how it exited. */
  record Result(int exitCode, String output) {
    boolean succeeded() {
      return exitCode == 0;
    }
  }

  private Promtool() {
  }

  /** The promtool binary; fails, naming the package to install, when there is none. */
  static Path binary() {
    Path binary = Path.of(System.getProperty("tsd.promtool", DEFAULT));
    if (!Files.isExecutable(binary)) {
      throw new AssertionError("promtool not found at " + binary + ": install Debian's prometheus package "
          + "(apt-get install prometheus; bin/test does) or point -Dtsd.promtool at a promtool binary");
    }
    return binary;
  }

  /** {@code promtool ARGS...} in {@code directory}, with {@code stdin} (may be null) as its standard input. */
  static Result run(Path directory, String stdin, String... arguments) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>();
    command.add(binary().toString());
    command.addAll(List.of(arguments));
    Process process = new ProcessBuilder(command).directory(directory.toFile()).redirectErrorStream(true).start();
    CompletableFuture<String> output = CompletableFuture.supplyAsync(() -> readAll(process.getInputStream()));
    try (OutputStream input = process.getOutputStream()) {
      if (stdin != null) {
        input.write(stdin.getBytes(StandardCharsets.UTF_8));
      }
    }
    if (!process.waitFor(2, TimeUnit.MINUTES)) {
      process.destroyForcibly();
      throw new AssertionError("promtool " + String.join(" ", arguments) + " did not finish within 2 minutes");
    }
    return new Result(process.exitValue(), Objects.requireNonNull(output.join(), "output is null"));
  }

  private static String readAll(InputStream stream) {
    try (stream) {
      return new String(stream.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
