package io.huditsd.it.support;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A Spark 3.5.5 session with the official {@code hudi-spark3.5-bundle_2.12:1.2.0}, run as a child JVM from the
 * {@code spark-peer} module ({@code io.huditsd.sparkpeer.SparkPeer}): the independent client that writes and reads
 * the tables the daemon services. Its classpath shares nothing with the daemon's Hudi; it is the one Maven resolved
 * for {@code spark-peer} and wrote to {@code spark-peer/target/spark-peer.classpath}.
 *
 * <p>One process serves every test class that needs the default configuration ({@link #shared()}; starting Spark
 * costs tens of seconds), each on tables of its own; a class with a configuration of its own starts its own
 * ({@link #start(Path, Map)}). Commands go over stdin, one JSON object a line, and every answer comes back on
 * stdout. Rows travel through JSON-lines files under the peer's work
 * directory, kept with its stderr ({@code spark-peer.err}) and a log of commands and answers
 * ({@code commands.log}) for diagnosis.
 */
public final class SparkPeer implements AutoCloseable {
  private static final String ANSWER = "@@peer ";
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Duration START_TIMEOUT = Duration.ofMinutes(3);
  private static final Duration COMMAND_TIMEOUT = Duration.ofMinutes(5);
  /** What Spark 3.5 needs opened on Java 17, as spark-submit's launcher passes it (also for SparkStandalone). */
  static final List<String> JAVA_17_FLAGS = List.of(
      "--add-opens=java.base/java.lang=ALL-UNNAMED",
      "--add-opens=java.base/java.lang.invoke=ALL-UNNAMED",
      "--add-opens=java.base/java.lang.reflect=ALL-UNNAMED",
      "--add-opens=java.base/java.io=ALL-UNNAMED",
      "--add-opens=java.base/java.net=ALL-UNNAMED",
      "--add-opens=java.base/java.nio=ALL-UNNAMED",
      "--add-opens=java.base/java.util=ALL-UNNAMED",
      "--add-opens=java.base/java.util.concurrent=ALL-UNNAMED",
      "--add-opens=java.base/java.util.concurrent.atomic=ALL-UNNAMED",
      "--add-opens=java.base/jdk.internal.ref=ALL-UNNAMED",
      "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
      "--add-opens=java.base/sun.nio.cs=ALL-UNNAMED",
      "--add-opens=java.base/sun.security.action=ALL-UNNAMED",
      "--add-opens=java.base/sun.util.calendar=ALL-UNNAMED",
      "-Djdk.reflect.useDirectMethodHandle=false",
      "-Dio.netty.tryReflectionSetAccessible=true");

  /** The peer {@link #shared()} hands out; replaced only when it died. */
  private static SparkPeer shared;
  private static int sharedStarts;

  private final Process process;
  private final Path work;
  private final BufferedWriter commands;
  private final BlockingQueue<String> answers = new LinkedBlockingQueue<>();
  private final AtomicInteger sequence = new AtomicInteger();

  private SparkPeer(Process process, Path work) {
    this.process = process;
    this.work = work;
    this.commands = new BufferedWriter(new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8));
    Thread reader = new Thread(this::readAnswers, "spark-peer-answers");
    reader.setDaemon(true);
    reader.start();
  }

  /**
   * The peer of the default configuration shared by every test of this Failsafe JVM, started on first use and
   * stopped when the JVM exits. Sharing is safe because a peer keeps no state between commands that another test
   * would see: writes carry their options, reads load the table afresh ({@code spark.read.format("hudi").load}),
   * and no test changes the session's configuration; each test writes and reads tables of its own. Tests must not
   * close it. A peer that died (a test's command crashed it) is replaced, in a new directory, so its log stays.
   */
  public static synchronized SparkPeer shared() throws InterruptedException {
    if (shared == null || !shared.process.isAlive()) {
      sharedStarts++;
      SparkPeer peer = start(Tsd.workDirectory("shared-spark-peer-" + sharedStarts));
      Runtime.getRuntime().addShutdownHook(new Thread(() -> {
        try {
          peer.close();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }, "shared-spark-peer-stop"));
      shared = peer;
    }
    return shared;
  }

  /** Starts a peer working under {@code work} and waits until its Spark session is up. */
  public static SparkPeer start(Path work) throws InterruptedException {
    return start(work, Map.of());
  }

  /**
   * Starts a peer whose Spark session also has {@code sparkConf} ({@code spark.*} keys, e.g. the
   * {@code spark.hadoop.fs.s3a.*} keys of an S3 store): passed as {@code -D} system properties, which a
   * {@code SparkConf} loads as spark-submit's {@code --conf} would.
   */
  public static SparkPeer start(Path work, Map<String, String> sparkConf) throws InterruptedException {
    return start(work, sparkConf, classpath());
  }

  /** Starts a peer whose Hudi is {@code writer}'s official Spark bundle (in place of 1.2.0's). */
  public static SparkPeer start(Path work, HudiWriter writer) throws InterruptedException {
    return start(work, Map.of(), writer.peerClasspath(classpath()));
  }

  private static SparkPeer start(Path work, Map<String, String> sparkConf, String classpath)
      throws InterruptedException {
    List<String> command = new ArrayList<>();
    command.add(javaExecutable());
    command.add("-Xmx2g");
    command.addAll(JAVA_17_FLAGS);
    sparkConf.forEach((key, value) -> {
      if (!key.startsWith("spark.")) {
        throw new IllegalArgumentException("not a Spark key: " + key);
      }
      command.add("-D" + key + "=" + value);
    });
    command.add("-cp");
    command.add(classpath);
    command.add("io.huditsd.sparkpeer.SparkPeer");
    command.add(work.toString());
    Process process;
    try {
      // Numbered files of an earlier run would mix with this run's.
      deleteRecursively(work);
      Files.createDirectories(work);
      process = new ProcessBuilder(command)
          .redirectError(work.resolve("spark-peer.err").toFile())
          .start();
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot start the Spark peer: " + command, e);
    }
    long started = System.nanoTime();
    SparkPeer peer = new SparkPeer(process, work);
    String ready = peer.answer(START_TIMEOUT, "start");
    peer.log("start -> " + ready + " after " + (System.nanoTime() - started) / 1_000_000 + " ms");
    assertThat(ready).as("first answer of the Spark peer; see %s", peer.errors()).startsWith("ready 3.5.5");
    return peer;
  }

  /**
   * Writes {@code rows} to the table at {@code basePath} with the Hudi datasource: {@code df.write.format("hudi")
   * .options(options).mode(Append).save(basePath)}, the input read with the Spark DDL {@code schema}.
   */
  public void write(String basePath, List<Map<String, Object>> rows, String schema, Map<String, String> options) {
    Path input = ioFile("input");
    try {
      List<String> lines = new ArrayList<>(rows.size());
      for (Map<String, Object> row : rows) {
        lines.add(JSON.writeValueAsString(row));
      }
      Files.write(input, lines, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    Map<String, Object> command = new LinkedHashMap<>();
    command.put("command", "write");
    command.put("path", basePath);
    command.put("input", input.toString());
    command.put("schema", schema);
    command.put("options", options);
    call(command);
  }

  /** Every row of {@code spark.read.format("hudi").options(options).load(basePath)}. */
  public List<Map<String, Object>> read(String basePath, Map<String, String> options) {
    Path output = ioFile("read");
    Map<String, Object> command = new LinkedHashMap<>();
    command.put("command", "read");
    command.put("path", basePath);
    command.put("options", options);
    command.put("output", output.toString());
    call(command);
    return rows(output);
  }

  /** The rows of {@code spark.read.format("hudi").options(options).load(basePath).filter(filter)}. */
  public List<Map<String, Object>> read(String basePath, Map<String, String> options, String filter) {
    Path output = ioFile("read");
    Map<String, Object> command = new LinkedHashMap<>();
    command.put("command", "read");
    command.put("path", basePath);
    command.put("options", options);
    command.put("filter", filter);
    command.put("output", output.toString());
    call(command);
    return rows(output);
  }

  /** Every row of {@code spark.sql(sql)}. */
  public List<Map<String, Object>> sql(String sql) {
    Path output = ioFile("sql");
    Map<String, Object> command = new LinkedHashMap<>();
    command.put("command", "sql");
    command.put("sql", sql);
    command.put("output", output.toString());
    call(command);
    return rows(output);
  }

  /** Where Spark's and Hudi's log of this peer goes. */
  public Path errors() {
    return work.resolve("spark-peer.err");
  }

  /**
   * Kills the peer's JVM with SIGKILL ({@link Process#destroyForcibly()}), as a crashed or preempted writer dies: no
   * shutdown hook runs, its instant stays inflight and its heartbeat stops. A command in flight fails with "Spark
   * peer exited".
   */
  public void kill() throws InterruptedException {
    process.destroyForcibly();
    assertThat(process.waitFor(30, TimeUnit.SECONDS)).as("the Spark peer died after SIGKILL").isTrue();
  }

  @Override
  public void close() throws InterruptedException {
    if (process.isAlive()) {
      try {
        commands.write("{\"command\":\"stop\"}\n");
        commands.flush();
      } catch (IOException e) {
        // Already gone; destroyed below.
      }
      if (!process.waitFor(60, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        process.waitFor(30, TimeUnit.SECONDS);
      }
    }
  }

  private void call(Map<String, Object> command) {
    String what = command.get("command") + " " + command.getOrDefault("path", command.getOrDefault("sql", ""))
        + (command.containsKey("input") ? " from " + command.get("input") : "")
        + (command.containsKey("output") ? " to " + command.get("output") : "");
    try {
      commands.write(JSON.writeValueAsString(command));
      commands.write('\n');
      commands.flush();
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot send '" + what + "' to the Spark peer; see " + errors(), e);
    }
    String answer;
    try {
      answer = answer(COMMAND_TIMEOUT, what);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
    log(what + " -> " + answer);
    if (!answer.startsWith("ok ")) {
      throw new AssertionError("Spark peer failed on '" + what + "': " + answer + "\n(stack trace in " + errors()
          + ")");
    }
  }

  private String answer(Duration timeout, String what) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (System.nanoTime() < deadline) {
      String answer = answers.poll(1, TimeUnit.SECONDS);
      if (answer != null) {
        return answer;
      }
      if (!process.isAlive()) {
        throw new AssertionError("Spark peer exited with " + process.exitValue() + " during '" + what + "'; see "
            + errors());
      }
    }
    throw new AssertionError("Spark peer gave no answer to '" + what + "' within " + timeout.toSeconds() + "s; see "
        + errors());
  }

  private void readAnswers() {
    try (BufferedReader stdout = new BufferedReader(new InputStreamReader(process.getInputStream(),
        StandardCharsets.UTF_8))) {
      String line;
      while ((line = stdout.readLine()) != null) {
        if (line.startsWith(ANSWER)) {
          answers.add(line.substring(ANSWER.length()));
        }
      }
    } catch (IOException e) {
      // The process ended; answer() reports it.
    }
  }

  /** Each command and its answer (with its duration), in {@code commands.log} beside the peer's stderr. */
  private void log(String line) {
    try {
      Files.writeString(work.resolve("commands.log"), line + System.lineSeparator(), StandardCharsets.UTF_8,
          StandardOpenOption.CREATE, StandardOpenOption.APPEND);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private Path ioFile(String kind) {
    return work.resolve("%03d-%s.json".formatted(sequence.incrementAndGet(), kind));
  }

  private static List<Map<String, Object>> rows(Path output) {
    try {
      List<Map<String, Object>> rows = new ArrayList<>();
      for (String line : Files.readAllLines(output, StandardCharsets.UTF_8)) {
        rows.add(JSON.readValue(line, new TypeReference<Map<String, Object>>() {
        }));
      }
      return rows;
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read the rows the Spark peer wrote to " + output, e);
    }
  }

  private static String classpath() {
    Path classes = peerPath("spark.peer.classes");
    Path classpathFile = peerPath("spark.peer.classpath");
    try {
      String classpath = classes + java.io.File.pathSeparator + Files.readString(classpathFile).trim();
      // The daemon's classes writers put beside Hudi's (lock providers, the ingestion-first conflict resolution),
      // after the bundle, as a writer's job would have the lock-providers jar.
      String extra = System.getProperty("spark.peer.extra.classes");
      return extra == null ? classpath : classpath + java.io.File.pathSeparator + extra;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static Path peerPath(String property) {
    String value = System.getProperty(property);
    assertThat(value).as("system property %s (set by the failsafe configuration)", property).isNotNull();
    Path path = Path.of(value).toAbsolutePath().normalize();
    assertThat(path).as("%s; build the spark-peer module first (mvn -pl spark-peer package)", property).exists();
    return path;
  }

  private static void deleteRecursively(Path path) throws IOException {
    if (!Files.exists(path)) {
      return;
    }
    try (Stream<Path> files = Files.walk(path)) {
      for (Path file : files.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(file);
      }
    }
  }

  static String javaExecutable() {
    return ProcessHandle.current().info().command()
        .orElseGet(() -> Path.of(System.getProperty("java.home"), "bin", "java").toString());
  }
}
