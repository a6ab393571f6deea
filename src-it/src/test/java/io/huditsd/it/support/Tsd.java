package io.huditsd.it.support;

import io.huditsd.api.JvmOpens;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.OptionalInt;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

/**
 * The packaged daemon ({@code api/target/hudi-tsd.jar} with its {@code lib/}) run as a child JVM, the way
 * {@code bin/tsd} runs it. {@code bin/tsd} itself is not used: it rebuilds the project when any source file,
 * these tests included, is newer than the jar.
 *
 * <p>Each process writes its stdout and stderr to {@code <name>.out} and {@code <name>.err} in a directory of the
 * test's choosing, so a failure can be diagnosed from the files left under {@code target/}.
 */
public final class Tsd {
  private Tsd() {
  }

  /** The outcome of a finished process. */
  public record Finished(int exitCode, String stdout, String stderr, Duration elapsed, Path logs) {
    public Finished {
      Objects.requireNonNull(stdout, "stdout is null");
      Objects.requireNonNull(stderr, "stderr is null");
    }

    /** Both streams, for failure messages. */
    public String output() {
      return tails(logs, stdout, stderr);
    }
  }

  /** The ends of a process's two streams, named by their files, for failure messages. */
  private static String tails(Path logs, String stdout, String stderr) {
    return "--- stdout (" + logs + ".out) ---\n" + tail(stdout) + "\n--- stderr (" + logs + ".err) ---\n"
        + tail(stderr);
  }

  private static String tail(String text) {
    return text.length() <= 6000 ? text : "...\n" + text.substring(text.length() - 6000);
  }

  /** A running daemon process. */
  public static final class Running implements AutoCloseable {
    private final Process process;
    private final Path logs;

    private Running(Process process, Path logs) {
      this.process = process;
      this.logs = logs;
    }

    public Path logs() {
      return logs;
    }

    public String stdout() {
      return read(logs.resolveSibling(logs.getFileName() + ".out"));
    }

    /**
     * The last lines of the process's stdout and stderr, for a failure message: CI keeps the test's output but not
     * the files under {@code target/}.
     */
    public String logTail() {
      return tails(logs, stdout(), read(logs.resolveSibling(logs.getFileName() + ".err")));
    }

    /**
     * The process's threads as {@code jcmd Thread.print} prints them (also left in {@code logs.threads}), for a wait
     * that timed out: a stuck thread shows where; a line saying why not if jcmd could not tell.
     */
    public String threadDump() {
      Path dump = logs.resolveSibling(logs.getFileName() + ".threads");
      Path jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd");
      try {
        Process print = new ProcessBuilder(jcmd.toString(), Long.toString(process.pid()), "Thread.print")
            .redirectErrorStream(true).redirectOutput(dump.toFile()).start();
        if (!print.waitFor(30, TimeUnit.SECONDS)) {
          print.destroyForcibly();
          return "(jcmd Thread.print did not finish within 30 s)";
        }
        return read(dump);
      } catch (IOException e) {
        return "(no thread dump: " + e + ")";
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return "(no thread dump: interrupted)";
      }
    }

    public String stderr() {
      return read(logs.resolveSibling(logs.getFileName() + ".err"));
    }

    /**
     * Sends {@code signal} ({@code STOP}, {@code CONT}, ...) with kill(1). SIGSTOP freezes every thread of the
     * process, its heartbeat timers included, as a hung node does; SIGCONT lets them run on.
     */
    public void signal(String signal) throws IOException, InterruptedException {
      Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(process.pid())).redirectErrorStream(true)
          .start();
      assertThat(kill.waitFor(30, TimeUnit.SECONDS)).as("kill -%s %d ended", signal, process.pid()).isTrue();
      assertThat(kill.exitValue()).as("exit code of kill -%s %d: %s", signal, process.pid(),
          new String(kill.getInputStream().readAllBytes(), StandardCharsets.UTF_8)).isZero();
    }

    /** Waits for the process to end by itself; its exit code, or empty if it still runs after {@code timeout}. */
    public OptionalInt waitFor(Duration timeout) throws InterruptedException {
      return process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)
          ? OptionalInt.of(process.exitValue()) : OptionalInt.empty();
    }

    /** SIGTERM: the daemon's shutdown hooks run (Dropwizard stops its managed objects). */
    public void stop() throws InterruptedException {
      process.destroy();
      if (!process.waitFor(60, TimeUnit.SECONDS)) {
        kill();
      }
    }

    /** SIGTERM without waiting: the caller times the stop with {@link #waitFor(Duration)}. */
    public void terminate() {
      process.destroy();
    }

    /** SIGKILL on Linux: no shutdown hook, no finally block runs in the child. */
    public void kill() throws InterruptedException {
      process.destroyForcibly();
      assertThat(process.waitFor(30, TimeUnit.SECONDS)).as("process %d ended after SIGKILL", process.pid()).isTrue();
    }

    @Override
    public void close() throws InterruptedException {
      if (process.isAlive()) {
        kill();
      }
    }
  }

  /** The work directory of the integration tests ({@code target/it-work}), created on first use. */
  public static Path workDirectory(String name) {
    Path directory = Path.of(System.getProperty("tsd.it.work", "target/it-work")).toAbsolutePath().resolve(name);
    try {
      Files.createDirectories(directory);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return directory;
  }

  /** Runs {@code arguments} to completion, failing the test if it takes longer than {@code timeout}. */
  public static Finished run(Path logs, Duration timeout, String... arguments) throws InterruptedException {
    return run(logs, timeout, null, arguments);
  }

  /**
   * As {@link #run(Path, Duration, String...)} with {@code hadoopConfDir} (core-site.xml) first on the class path,
   * as {@code bin/tsd} puts {@code HADOOP_CONF_DIR}.
   */
  public static Finished run(Path logs, Duration timeout, Path hadoopConfDir, String... arguments)
      throws InterruptedException {
    long start = System.nanoTime();
    Process process = start(logs, hadoopConfDir, arguments);
    if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
      process.destroyForcibly();
      process.waitFor(30, TimeUnit.SECONDS);
      fail("hudi-tsd " + String.join(" ", arguments) + " did not end within " + timeout.toSeconds() + "s; see "
          + logs + ".out and .err");
    }
    return new Finished(process.exitValue(), read(out(logs)), read(err(logs)),
        Duration.ofNanos(System.nanoTime() - start), logs);
  }

  /** Starts a long-running process (the daemon). */
  public static Running startDaemon(Path logs, String... arguments) {
    return new Running(start(logs, null, arguments), logs);
  }

  /** Starts the daemon with {@code hadoopConfDir} (core-site.xml) first on its class path, as {@code bin/tsd} does. */
  public static Running startDaemon(Path logs, Path hadoopConfDir, String... arguments) {
    return new Running(start(logs, Objects.requireNonNull(hadoopConfDir, "hadoopConfDir is null"), arguments), logs);
  }

  /** Starts {@code main} of the test sources in a child JVM on the test class path (a writer, say). */
  public static Running startMain(Path logs, Class<?> main, String... arguments) {
    List<String> command = new ArrayList<>(List.of(javaExecutable(), "-Xmx1g", "-cp",
        System.getProperty("java.class.path"), main.getName()));
    command.addAll(List.of(arguments));
    try {
      Files.createDirectories(logs.getParent());
      return new Running(new ProcessBuilder(command)
          .redirectOutput(out(logs).toFile())
          .redirectError(err(logs).toFile())
          .start(), logs);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot start " + command, e);
    }
  }

  /** {@code java -jar hudi-tsd.jar}, or with a Hadoop configuration directory {@code java -cp DIR:hudi-tsd.jar}. */
  private static Process start(Path logs, Path hadoopConfDir, String... arguments) {
    List<String> command = new ArrayList<>();
    command.add(javaExecutable());
    command.add("-Xmx1g");
    if (hadoopConfDir == null) {
      command.add("-jar");
      command.add(jar().toString());
    } else {
      // As bin/tsd; java -jar takes them from the jar's manifest.
      JvmOpens.PACKAGES.forEach(name -> command.add("--add-opens=java.base/" + name + "=ALL-UNNAMED"));
      // The jar's manifest Class-Path (lib/) still applies to a jar named on -cp.
      command.add("-cp");
      command.add(hadoopConfDir.toAbsolutePath() + java.io.File.pathSeparator + jar());
      command.add("io.huditsd.api.TsdApplication");
    }
    command.addAll(List.of(arguments));
    try {
      Files.createDirectories(logs.getParent());
      return new ProcessBuilder(command)
          .redirectOutput(out(logs).toFile())
          .redirectError(err(logs).toFile())
          .start();
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot start " + command, e);
    }
  }

  private static Path jar() {
    String property = System.getProperty("tsd.jar");
    assertThat(property).as("system property tsd.jar (set by the failsafe configuration)").isNotNull();
    Path jar = Path.of(property).toAbsolutePath().normalize();
    assertThat(jar).as("the packaged daemon; run mvn package first").isRegularFile();
    return jar;
  }

  private static String javaExecutable() {
    return ProcessHandle.current().info().command()
        .orElseGet(() -> Path.of(System.getProperty("java.home"), "bin", "java").toString());
  }

  private static Path out(Path logs) {
    return logs.resolveSibling(logs.getFileName() + ".out");
  }

  private static Path err(Path logs) {
    return logs.resolveSibling(logs.getFileName() + ".err");
  }

  private static String read(Path file) {
    try {
      return Files.exists(file) ? Files.readString(file) : "";
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
