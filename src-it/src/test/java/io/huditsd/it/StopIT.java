package io.huditsd.it;

import io.huditsd.it.support.DaemonApi;
import io.huditsd.it.support.DaemonYaml;
import io.huditsd.it.support.TrackedTable;
import io.huditsd.it.support.Tsd;
import org.apache.hudi.common.model.HoodieTableType;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.OptionalInt;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * SIGTERM where it used to go wrong, outside a running plan (KillDuringCompactionIT stops one mid-compaction): to
 * {@code bin/tsd demo} while its built-in writer commits every few seconds (its last commit met the daemon's closed
 * lock provider and was retried for a minute), and to {@code bin/tsd server} during its start-up (polls and runs then
 * failed on "Shutdown in progress" for 90 s). Each must exit with 143 well within the default grace period (20 s),
 * with none of those errors in its log.
 */
class StopIT {
  /** The default {@code workers.shutdownGracePeriod}, plus what a JVM takes to exit. */
  private static final Duration STOP_BOUND = Duration.ofSeconds(25);
  private static final Pattern COMMITTED = Pattern.compile("Demo writer committed");

  @Test
  void sigtermToTheDemoStopsItsWriterAndExitsWithinTheGracePeriod() throws Exception {
    Path work = Tsd.workDirectory("StopIT/demo");
    int port = DaemonApi.freePort();
    try (Tsd.Running demo = Tsd.startDaemon(work.resolve("demo"), "demo", work.resolve("demo-dir").toString(),
        "--port", Integer.toString(port))) {
      await("two demo writer commits; demo log " + demo.logs() + ".out").atMost(Duration.ofMinutes(2))
          .pollInterval(Duration.ofMillis(200)).until(() -> count(COMMITTED, demo.stdout()) >= 2);
      String log = stopAndAssertQuickExit(demo);
      int stop = log.indexOf("SIGTERM received");
      assertThat(stop).as("the stop logged, %s.out", demo.logs()).isPositive();
      assertThat(log.substring(stop)).as("demo log after the stop, %s.out", demo.logs()).contains("Stopped in");
      // The writer is stopped first: at most the commit it was making when the signal came lands after it.
      assertThat(count(COMMITTED, log.substring(stop))).as("demo writer commits after SIGTERM").isLessThanOrEqualTo(1);
    }
  }

  @Test
  void sigtermDuringStartUpExitsWithinTheGracePeriod() throws Exception {
    Path work = Tsd.workDirectory("StopIT/start-up");
    Path basePath = work.resolve("orders");
    try (TrackedTable table = TrackedTable.create(basePath, HoodieTableType.MERGE_ON_READ, 9, Map.of())) {
      table.insert(TrackedTable.rows(0, 100, 1_000, "v1"));
    }
    Path config = work.resolve("tsd.yml");
    Files.writeString(config, DaemonYaml.serverAndLogging(DaemonApi.freePort(), DaemonApi.freePort())
        + DaemonYaml.QUICK_POLLING + """
        services: [compaction, clustering, clean, archive]
        tables:
          - path: %s
            id: orders
        """.formatted(basePath));
    try (Tsd.Running server = Tsd.startDaemon(work.resolve("server"), "server", config.toString())) {
      // Signalled as soon as the first table is registered, before (or as) the server starts serving.
      await("the server registers its table; log " + server.logs() + ".out").atMost(Duration.ofMinutes(1))
          .pollInterval(Duration.ofMillis(20)).until(() -> server.stdout().contains("Servicing table orders"));
      String log = stopAndAssertQuickExit(server);
      int serving = log.indexOf("hudi-tsd serving");
      System.out.printf("StopIT: SIGTERM came %s the server was serving%n",
          serving >= 0 && serving < log.indexOf("SIGTERM received") ? "after" : "before");
    }
  }

  /** Sends SIGTERM, asserts exit 143 within {@link #STOP_BOUND} and a log free of stop-time errors; the log. */
  private static String stopAndAssertQuickExit(Tsd.Running process) throws InterruptedException {
    long signalled = System.nanoTime();
    process.terminate();
    OptionalInt exit = process.waitFor(STOP_BOUND);
    Duration took = Duration.ofNanos(System.nanoTime() - signalled);
    assertThat(exit).as("exit status within %s of SIGTERM; %s", STOP_BOUND, process.logTail()).hasValue(143);
    String log = process.stdout() + process.stderr();
    assertThat(log).as("log of the stopped process, %s.out", process.logs())
        .doesNotContain("Shutdown in progress", "Lock provider already closed", "result=failed");
    System.out.printf("StopIT: %s exited %d ms after SIGTERM%n", process.logs().getFileName(), took.toMillis());
    return log;
  }

  private static int count(Pattern pattern, String text) {
    Matcher matcher = pattern.matcher(text);
    int count = 0;
    while (matcher.find()) {
      count++;
    }
    return count;
  }
}
