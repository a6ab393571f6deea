package io.huditsd.executors.spark;

import io.dropwizard.util.Duration;
import io.huditsd.config.EngineKind;
import io.huditsd.config.EnginePolicy;
import io.huditsd.config.ServicedTable;
import io.huditsd.config.SparkConfig;
import io.huditsd.executors.HeapEstimate;
import io.huditsd.executors.LocalTables;
import io.huditsd.executors.PendingPlan;
import io.huditsd.executors.PendingPlans;
import io.huditsd.executors.Placement;
import io.huditsd.executors.PlanRunner;
import io.huditsd.executors.PlanSkippedException;
import io.huditsd.executors.RunCancelledException;
import io.huditsd.executors.WorkItem;
import org.apache.hudi.client.HoodieJavaWriteClient;
import org.apache.hudi.common.model.HoodieAvroPayload;
import org.apache.hudi.common.model.HoodieTableType;
import org.apache.hudi.common.util.Option;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * The engine's tracking, kill and timeout through Spark's real launcher library, with a stand-in
 * {@code bin/spark-submit} that is a real child process: it prints its arguments, then fails, exits or sleeps as
 * {@code spark.test.mode} says. It never connects back to the launcher, so the states are the ones Spark's
 * {@code ChildProcAppHandle} derives from the process (FAILED on a non-zero exit, LOST on exit 0 without a final
 * state, KILLED on kill). The successful path, with the real runner and a standalone cluster, is SparkEngineIT's.
 */
class TestSparkEngine {
  private static final String MARKER = "tsd-test-spark-submit";
  private final LocalTables localTables = new LocalTables();

  @TempDir
  Path directory;
  private ServicedTable table;
  private PendingPlan plan;
  private SparkEngine engine;

  @BeforeEach
  void tableWithScheduledCompaction() throws IOException {
    table = localTables.create(directory.resolve("orders"), HoodieTableType.MERGE_ON_READ, 9,
        Map.of("hoodie.compact.inline.max.delta.commits", "1", EnginePolicy.ENGINE, "spark"));
    localTables.upsert(table, 0, 20, 1);
    localTables.upsert(table, 0, 10, 2);
    try (HoodieJavaWriteClient<HoodieAvroPayload> client = localTables.hudiTables().writeClient(table)) {
      client.scheduleCompaction(Option.empty()).get();
    }
    plan = PendingPlans.list(localTables.hudiTables().metaClient(table.basePath())).get(0);
    Path bin = Files.createDirectories(directory.resolve("spark-home/bin"));
    Path submit = bin.resolve("spark-submit");
    Files.writeString(submit, """
        #!/usr/bin/env bash
        # %s
        echo "spark-submit $*"
        mode=none
        for arg in "$@"; do case "$arg" in spark.test.mode=*) mode="${arg#spark.test.mode=}";; esac; done
        case "$mode" in
          fail) echo "Exception in thread main: boom" >&2; exit 3;;
          exit) exit 0;;
          sleep) exec sleep 600;;
        esac
        exit 4
        """.formatted(MARKER));
    Files.setPosixFilePermissions(submit, PosixFilePermissions.fromString("rwxr-xr-x"));
    Files.writeString(directory.resolve("runner.jar"), "");
    Files.writeString(directory.resolve("locks.jar"), "");
  }

  @AfterEach
  void stop() {
    if (engine != null) {
      engine.close();
    }
    // Whatever a test left running (the daemon-stop test leaves its "application" on purpose).
    ProcessHandle.current().descendants().filter(process -> process.info().commandLine()
        .map(line -> line.contains("sleep 600")).orElse(false)).forEach(ProcessHandle::destroyForcibly);
  }

  private SparkEngine engine(String mode, Duration timeout) {
    SparkConfig config = SparkConfig.create(directory.resolve("spark-home").toString(), null, "local[1]", null,
        directory.resolve("runner.jar").toString(), List.of(directory.resolve("locks.jar").toString()),
        Map.of("spark.test.mode", mode), 1, timeout, directory.resolve("logs").toString(),
        "http://history/{appId}");
    SparkSettings.Resolution resolution = SparkSettings.resolve(config, Optional.empty(), directory);
    assertThat(resolution).isInstanceOf(SparkSettings.Resolved.class);
    engine = new SparkEngine(localTables.hudiTables(), PlanRunner.defaultActions(),
        ((SparkSettings.Resolved) resolution).settings(), new SparkApplications());
    return engine;
  }

  private WorkItem item() {
    return WorkItem.forPlan(table, plan, new Placement(EngineKind.SPARK, HeapEstimate.NONE));
  }

  private static List<Path> driverLogs(Path logs) throws IOException {
    try (var files = Files.walk(logs)) {
      return files.filter(path -> path.toString().endsWith(".log")).toList();
    }
  }

  @Test
  void aFailedApplicationFailsTheAttemptNamingTheDriverLogAndItsLastLines() throws IOException {
    SparkEngine failing = engine("fail", Duration.minutes(5));

    assertThatThrownBy(() -> failing.execute(item()))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageStartingWith("table " + table.id() + ": Spark application (no application id yet) ended failed "
            + "with plan " + plan.instant() + " still pending; driver log " + directory.resolve("logs")
            .resolve(table.id()))
        .hasMessageContaining("last lines:\nspark-submit ")
        .hasMessageEndingWith("Exception in thread main: boom");
    assertThat(failing.applications().find(item().key())).get()
        .extracting(SparkApplication::state).isEqualTo("failed");
    assertThat(failing.applications().runningCount()).isZero();
    assertThat(PendingPlans.find(localTables.hudiTables().metaClient(table.basePath()), plan.instant()))
        .as("the plan stays pending for the retry").isPresent();
  }

  @Test
  void theApplicationGetsThePlanAndTheTablesWriteConfigAsAPropertiesFile() throws IOException {
    SparkEngine failing = engine("fail", Duration.minutes(5));
    assertThatThrownBy(() -> failing.execute(item())).isInstanceOf(IllegalStateException.class);

    List<Path> logs = driverLogs(directory.resolve("logs"));
    assertThat(logs).hasSize(1);
    String log = Files.readString(logs.get(0));
    Path propertiesFile = Path.of(logs.get(0).toString().replaceFirst("\\.log$", ".properties"));
    assertThat(log).contains("--master local[1]", "--deploy-mode client",
        "--class " + SparkSettings.MAIN_CLASS, "--jars " + directory.resolve("locks.jar"),
        "--files " + propertiesFile, "--conf spark.test.mode=fail",
        "--conf spark.driver.extraClassPath=" + directory.resolve("locks.jar"),
        directory.resolve("runner.jar") + " --base-path " + table.basePath() + " --service compaction --instant "
            + plan.instant() + " --props " + propertiesFile);
    Properties properties = new Properties();
    try (InputStream in = new FileInputStream(propertiesFile.toFile())) {
      properties.load(in);
    }
    assertThat(properties.getProperty("hoodie.write.table.version")).isEqualTo("9");
    assertThat(properties.getProperty("hoodie.write.auto.upgrade")).isEqualTo("false");
    assertThat(properties.getProperty("hoodie.write.concurrency.mode")).isEqualTo("OPTIMISTIC_CONCURRENCY_CONTROL");
    assertThat(properties.getProperty("hoodie.cleaner.policy.failed.writes")).isEqualTo("LAZY");
    assertThat(properties.getProperty("hoodie.compact.inline.max.delta.commits")).isEqualTo("1");
    assertThat(properties.getProperty("hoodie.write.lock.provider")).as("the lock the daemon takes by default")
        .isNotBlank();
    assertThat(properties.stringPropertyNames()).filteredOn(key -> key.startsWith("tsd.")).isEmpty();
  }

  @Test
  void anApplicationThatEndsWithoutAFinalStateIsLost() {
    SparkEngine exiting = engine("exit", Duration.minutes(5));

    assertThatThrownBy(() -> exiting.execute(item()))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("ended lost with plan " + plan.instant() + " still pending");
  }

  @Test
  void theTimeoutKillsTheApplicationAndFailsTheAttempt() {
    SparkEngine slow = engine("sleep", Duration.seconds(2));

    assertThatThrownBy(() -> slow.execute(item()))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("ended killed (killed after spark.timeout 2 seconds) with plan " + plan.instant()
            + " still pending");
    await("the application's process ended").atMost(java.time.Duration.ofSeconds(30))
        .until(() -> sleepingApplications() == 0);
    assertThat(slow.applications().find(item().key())).get().extracting(SparkApplication::state)
        .isEqualTo("killed");
  }

  @Test
  void cancellingARunningApplicationKillsItAndTheRunEndsCancelled() throws Exception {
    SparkEngine running = engine("sleep", Duration.hours(1));
    WorkItem item = item();
    CompletableFuture<Throwable> outcome = CompletableFuture.supplyAsync(() -> {
      try {
        running.execute(item);
        return null;
      } catch (RuntimeException e) {
        return e;
      }
    });
    await("the application runs").atMost(java.time.Duration.ofSeconds(30))
        .until(() -> running.applications().runningCount() == 1 && sleepingApplications() == 1);
    assertThat(running.cancel("no/such/run")).isFalse();

    assertThat(running.cancel(item.key())).isTrue();

    assertThat(outcome.get(30, TimeUnit.SECONDS))
        .isInstanceOf(RunCancelledException.class)
        .hasMessage("cancelled: Spark application (no application id yet) was killed; plan " + plan.instant()
            + " stays pending and is rolled back and executed at its next attempt");
    await("the application's process ended").atMost(java.time.Duration.ofSeconds(30))
        .until(() -> sleepingApplications() == 0);
    assertThat(running.cancel(item.key())).as("nothing left to kill").isFalse();
  }

  @Test
  void stoppingTheDaemonLeavesTheApplicationRunning() throws Exception {
    SparkEngine running = engine("sleep", Duration.hours(1));
    CompletableFuture<Void> outcome = CompletableFuture.runAsync(() -> running.execute(item()));
    await("the application runs").atMost(java.time.Duration.ofSeconds(30))
        .until(() -> sleepingApplications() == 1);

    running.close();

    assertThatThrownBy(() -> outcome.get(30, TimeUnit.SECONDS))
        .isInstanceOf(ExecutionException.class)
        .cause().isInstanceOf(PlanSkippedException.class)
        .hasMessage("the daemon stopped while Spark application (no application id yet) executed plan "
            + plan.instant() + "; it was left running and keeps the plan's heartbeat");
    assertThat(sleepingApplications()).as("the application was not killed").isEqualTo(1);
  }

  private static long sleepingApplications() {
    return ProcessHandle.current().descendants().filter(ProcessHandle::isAlive)
        .filter(process -> process.info().commandLine().map(line -> line.contains("sleep 600")).orElse(false))
        .count();
  }
}
