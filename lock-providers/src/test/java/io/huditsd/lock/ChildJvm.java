package io.huditsd.lock;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A main class of the test sources run in a child JVM on the test class path, driven by lines: the test writes
 * commands to its standard input and reads its answers from its standard output, lines starting with
 * {@value #ANSWER} (the rest of standard output is the child's log, copied to {@code target/<name>.log}).
 */
final class ChildJvm implements AutoCloseable {
  static final String ANSWER = ">> ";

  private final Process process;
  private final PrintWriter commands;
  private final BlockingQueue<String> answers = new LinkedBlockingQueue<>();

  private final Path log;

  private ChildJvm(Process process, Path log) {
    this.process = process;
    this.log = log;
    this.commands = new PrintWriter(process.getOutputStream(), true, StandardCharsets.UTF_8);
    Thread reader = new Thread(() -> {
      try (BufferedReader lines = new BufferedReader(
          new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
           PrintWriter copy = new PrintWriter(java.nio.file.Files.newBufferedWriter(log), true)) {
        String line;
        while ((line = lines.readLine()) != null) {
          copy.println(line);
          if (line.startsWith(ANSWER)) {
            answers.add(line.substring(ANSWER.length()));
          }
        }
      } catch (IOException e) {
        answers.add("EOF " + e);
      }
    }, "child-" + process.pid());
    reader.setDaemon(true);
    reader.start();
  }

  static ChildJvm start(String name, Class<?> main, String... arguments) {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.add("-Xmx256m");
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add(main.getName());
    command.addAll(List.of(arguments));
    try {
      Process process = new ProcessBuilder(command)
          .redirectErrorStream(true)
          .start();
      return new ChildJvm(process, Path.of("target", name + ".log"));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Sends {@code command} and returns the child's next line. */
  String ask(String command, Duration timeout) throws InterruptedException {
    commands.println(command);
    return next(timeout);
  }

  /** The child's next line. */
  String next(Duration timeout) throws InterruptedException {
    String answer = answers.poll(timeout.toMillis(), TimeUnit.MILLISECONDS);
    assertThat(answer).as("answer of child process %d within %s (its log: %s)", process.pid(), timeout, log)
        .isNotNull();
    return answer;
  }

  /** SIGSTOP: the child stops where it is, every thread of it (a process paused by the kernel, a long GC). */
  void pause() throws IOException, InterruptedException {
    signal("STOP");
  }

  /** SIGCONT after {@link #pause}. */
  void resume() throws IOException, InterruptedException {
    signal("CONT");
  }

  private void signal(String name) throws IOException, InterruptedException {
    Process kill = new ProcessBuilder("kill", "-" + name, Long.toString(process.pid())).inheritIO().start();
    assertThat(kill.waitFor(30, TimeUnit.SECONDS) && kill.exitValue() == 0).as("kill -%s %d", name, process.pid())
        .isTrue();
  }

  /** SIGTERM, as an orchestrator stops a process: its shutdown hooks run; waits for it to end. */
  void terminate(Duration timeout) throws IOException, InterruptedException {
    signal("TERM");
    assertThat(process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS))
        .as("child %d ended within %s of SIGTERM (its log: %s)", process.pid(), timeout, log).isTrue();
  }

  /** SIGKILL: no shutdown hook, no finally block runs in the child. */
  void kill() throws InterruptedException {
    process.destroyForcibly();
    assertThat(process.waitFor(30, TimeUnit.SECONDS)).as("child ended after SIGKILL").isTrue();
  }

  @Override
  public void close() throws InterruptedException {
    if (process.isAlive()) {
      kill();
    }
  }
}
