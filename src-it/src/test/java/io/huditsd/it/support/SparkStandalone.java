package io.huditsd.it.support;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A Spark standalone cluster on loopback: {@code org.apache.spark.deploy.master.Master} and one
 * {@code org.apache.spark.deploy.worker.Worker} (1 core, 1 GiB for executors), each in a JVM of its own, run from the
 * SPARK_HOME that {@code spark-runner} assembles ({@code spark-runner/target/spark-home}, system property
 * {@code spark.home}). Every port (RPC and web UI of both) is a free one, so several test classes or helpers on one
 * machine do not collide. {@link #start(Path)} returns once the worker has registered with the master;
 * {@link #close()} ends both with the executors the worker started.
 *
 * <p>Applications submit with {@link #masterUrl()} and {@link #sparkHome()} (its {@code bin/spark-submit}) and should
 * pass {@link #driverConf()} so the driver, too, binds loopback and opens no fixed port. Logs:
 * {@code master.log}, {@code worker.log}, executors' output under {@code worker/<appId>/<executorId>/}.
 */
public final class SparkStandalone implements AutoCloseable {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Duration START_TIMEOUT = Duration.ofMinutes(2);
  private static final String LOOPBACK = "127.0.0.1";

  private final Path sparkHome;
  private final Path work;
  private final Process master;
  private final Process worker;
  private final int masterPort;
  private final int masterWebUiPort;

  private SparkStandalone(Path sparkHome, Path work, Process master, Process worker, int masterPort,
                          int masterWebUiPort) {
    this.sparkHome = sparkHome;
    this.work = work;
    this.master = master;
    this.worker = worker;
    this.masterPort = masterPort;
    this.masterWebUiPort = masterWebUiPort;
  }

  /** The SPARK_HOME that spark-runner builds in its package phase. */
  public static Path defaultSparkHome() {
    String value = System.getProperty("spark.home");
    assertThat(value).as("system property spark.home (set by the failsafe configuration)").isNotNull();
    Path home = Path.of(value).toAbsolutePath().normalize();
    assertThat(home.resolve("bin/spark-submit"))
        .as("%s; build the spark-runner module first (mvn -pl spark-runner package)", home)
        .isExecutable();
    return home;
  }

  /** Starts a master and one worker from {@link #defaultSparkHome()}, their logs and work files under {@code work}. */
  public static SparkStandalone start(Path work) throws InterruptedException {
    return start(defaultSparkHome(), work);
  }

  public static SparkStandalone start(Path sparkHome, Path work) throws InterruptedException {
    try {
      Files.createDirectories(work.resolve("worker"));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    int masterPort = DaemonApi.freePort();
    int masterWebUiPort = DaemonApi.freePort();
    Process master = startJvm(sparkHome, work.resolve("master.log"), "org.apache.spark.deploy.master.Master",
        "--host", LOOPBACK, "--port", Integer.toString(masterPort), "--webui-port", Integer.toString(masterWebUiPort));
    Process worker = null;
    SparkStandalone cluster = null;
    try {
      worker = startJvm(sparkHome, work.resolve("worker.log"), "org.apache.spark.deploy.worker.Worker",
          "spark://" + LOOPBACK + ":" + masterPort, "--host", LOOPBACK,
          "--port", Integer.toString(DaemonApi.freePort()), "--webui-port", Integer.toString(DaemonApi.freePort()),
          "--cores", "1", "--memory", "1g", "--work-dir", work.resolve("worker").toString());
      cluster = new SparkStandalone(sparkHome, work, master, worker, masterPort, masterWebUiPort);
      cluster.awaitWorker();
      return cluster;
    } catch (RuntimeException | Error | InterruptedException e) {
      if (cluster != null) {
        cluster.close();
      } else {
        stop(master);
        if (worker != null) {
          stop(worker);
        }
      }
      throw e;
    }
  }

  /** {@code spark://127.0.0.1:<port>}. */
  public String masterUrl() {
    return "spark://" + LOOPBACK + ":" + masterPort;
  }

  public Path sparkHome() {
    return sparkHome;
  }

  /** The master's web UI ({@code /json/} there lists workers and applications). */
  public URI masterWebUi() {
    return URI.create("http://" + LOOPBACK + ":" + masterWebUiPort + "/");
  }

  public Path work() {
    return work;
  }

  /**
   * Spark conf for a client-mode driver submitting to this cluster from this machine: loopback addresses and no
   * driver UI (its default port 4040 would collide between concurrent drivers), executors of 512 MiB so that a
   * second application's executor fits on the 1 GiB worker while a killed one's is still being cleaned up.
   */
  public static Map<String, String> driverConf() {
    return Map.of(
        "spark.driver.host", LOOPBACK,
        "spark.driver.bindAddress", LOOPBACK,
        "spark.ui.enabled", "false",
        "spark.executor.memory", "512m",
        "spark.driver.memory", "512m",
        "spark.cores.max", "1");
  }

  /** The applications the master knows, as its {@code /json/} reports them ({@code activeapps}, {@code completedapps}). */
  public JsonNode masterState() {
    HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    HttpRequest request = HttpRequest.newBuilder(masterWebUi().resolve("/json/")).timeout(Duration.ofSeconds(5))
        .GET().build();
    try {
      HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
      if (response.statusCode() != 200) {
        throw new IOException("HTTP " + response.statusCode() + " from " + request.uri());
      }
      return JSON.readTree(response.body());
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read the Spark master's state at " + request.uri(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** Stops the worker (with the executors it started), then the master. */
  @Override
  public void close() throws InterruptedException {
    stop(worker);
    stop(master);
  }

  private void awaitWorker() throws InterruptedException {
    long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
    String last = "no answer yet";
    while (System.nanoTime() < deadline) {
      assertThat(master.isAlive()).as("Spark master running; see %s", work.resolve("master.log")).isTrue();
      assertThat(worker.isAlive()).as("Spark worker running; see %s", work.resolve("worker.log")).isTrue();
      try {
        JsonNode state = masterState();
        if (state.path("aliveworkers").asInt() >= 1 && state.path("cores").asInt() >= 1) {
          return;
        }
        last = "aliveworkers=" + state.path("aliveworkers").asInt();
      } catch (UncheckedIOException e) {
        last = e.getMessage(); // The master's UI is not up yet.
      }
      TimeUnit.MILLISECONDS.sleep(250);
    }
    throw new AssertionError("No Spark worker registered with " + masterUrl() + " within " + START_TIMEOUT.toSeconds()
        + "s (" + last + "); see " + work.resolve("master.log") + " and " + work.resolve("worker.log"));
  }

  /**
   * SIGTERM to the process and everything it started (a worker's executors are its children), then SIGKILL to
   * whatever is left after 15 s. The tree is taken before the parent ends, when its children would be reparented.
   */
  private static void stop(Process process) throws InterruptedException {
    List<ProcessHandle> tree = new ArrayList<>(process.descendants().toList());
    tree.add(process.toHandle());
    tree.forEach(ProcessHandle::destroy);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
    for (ProcessHandle handle : tree) {
      long left = deadline - System.nanoTime();
      try {
        handle.onExit().get(Math.max(left, 0), TimeUnit.NANOSECONDS);
      } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
        handle.destroyForcibly();
      }
    }
    for (ProcessHandle handle : tree) {
      try {
        handle.onExit().get(15, TimeUnit.SECONDS);
      } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
        throw new AssertionError("process " + handle.pid() + " did not end after SIGKILL", e);
      }
    }
  }

  private static Process startJvm(Path sparkHome, Path log, String mainClass, String... arguments) {
    List<String> command = new ArrayList<>();
    command.add(SparkPeer.javaExecutable());
    command.add("-Xmx256m");
    command.addAll(SparkPeer.JAVA_17_FLAGS);
    command.add("-cp");
    command.add(sparkHome.resolve("conf") + "/:" + sparkHome.resolve("jars") + "/*");
    command.add(mainClass);
    command.addAll(List.of(arguments));
    ProcessBuilder builder = new ProcessBuilder(command)
        .redirectErrorStream(true)
        .redirectOutput(log.toFile());
    // What Spark's sbin scripts export: the worker starts executors from SPARK_HOME, and SPARK_LOCAL_IP makes them
    // (and every RPC server of these JVMs) bind loopback.
    builder.environment().put("SPARK_HOME", sparkHome.toString());
    builder.environment().put("SPARK_SCALA_VERSION", "2.12");
    builder.environment().put("SPARK_LOCAL_IP", LOOPBACK);
    builder.environment().put("SPARK_LOCAL_HOSTNAME", LOOPBACK);
    try {
      return builder.start();
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot start " + mainClass + ": " + command, e);
    }
  }
}
