package io.huditsd.it;

import io.huditsd.it.support.DaemonApi;
import io.huditsd.it.support.TrackedTable;
import io.huditsd.it.support.Tsd;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * {@code hudi-tsd demo} as shipped, the packaged jar, for {@code -Dtsd.demo.minutes} (docs/benchmarks.md has
 * 10-minute runs). Before the daemon rolled failed writer commits back itself, one of them stopped cleaning for good
 * within about a minute (one clean over a whole run); before ingestion first, the demo's writer batches conflicted
 * with its clusterings. The test samples {@code tsd_clean_blocked_seconds} every 10 s; at the end cleaning must
 * still be going on (cleans in the last third of the run, nothing holding the clean boundary back for long) and no
 * writer batch may have conflicted.
 *
 * <p>A long-running check, not part of {@code mvn verify}: it runs only when {@code tsd.demo.minutes} is set.
 * {@code api}'s {@code TestDemoLoop} runs the demo's loop in every build; {@code FailedWriteIT} covers the rollback
 * of a killed writer's commit.
 */
class DemoCleaningIT {
  private static final String TABLE = "demo_mor";
  private static final Pattern CLEAN_BLOCKED = Pattern.compile(
      "^tsd_clean_blocked_seconds\\{table=\"" + TABLE + "\"} ([0-9.E]+)$", Pattern.MULTILINE);

  @Test
  @EnabledIfSystemProperty(named = "tsd.demo.minutes", matches = "[0-9]+")
  void theDemoKeepsCleaningAndItsWriterNeverConflicts() throws Exception {
    Duration length = Duration.ofMinutes(Long.getLong("tsd.demo.minutes", 10));
    Path work = Tsd.workDirectory("DemoCleaningIT");
    Path dir = work.resolve("tsd-demo");
    TrackedTable.deleteRecursively(dir);
    int port = DaemonApi.freePort();
    try (Tsd.Running demo = Tsd.startDaemon(work.resolve("demo"), "demo", dir.toString(), "--port",
        Integer.toString(port))) {
      DaemonApi api = new DaemonApi(port);
      await("the demo's REST API; its log " + demo.logs() + ".out").atMost(Duration.ofMinutes(2))
          .pollInterval(Duration.ofSeconds(1)).ignoreExceptions()
          .until(() -> api.tables().stream().anyMatch(table -> TABLE.equals(table.get("id"))));
      Instant start = Instant.now();
      Instant end = start.plus(length);
      List<Double> blocked = new ArrayList<>();
      while (Instant.now().isBefore(end)) {
        // A measurement loop, not a wait for a condition: the demo runs for its set length.
        Thread.sleep(10_000);
        blocked.add(cleanBlockedSeconds(DaemonApi.metrics(port + 1)));
      }

      List<Map<String, Object>> cleans = api.runs().stream()
          .filter(run -> "clean".equals(run.get("service")) && "succeeded".equals(run.get("status"))
              && run.get("instant") != null)
          .toList();
      Instant lastThird = end.minus(length.dividedBy(3));
      long cleansInLastThird = cleans.stream()
          .filter(run -> Instant.parse((String) run.get("finishedAt")).isAfter(lastThird)).count();
      long filesDeleted = cleans.stream().map(run -> run.get("fileGroups")).filter(Objects::nonNull)
          .mapToLong(files -> ((Number) files).longValue()).sum();
      String log = demo.stdout();
      long writerCommits = count(log, "Demo writer committed");
      long conflicts = count(log, "Demo writer batch conflicted");
      long rolledBack = count(log, "Rolled back failed writes table=" + TABLE);
      long compactions = api.runs().stream().filter(run -> "compaction".equals(run.get("service"))
          && "succeeded".equals(run.get("status"))).count();
      int slicesOnStorage = api.fileGroups(TABLE, true).size();
      int liveSlices = api.fileGroups(TABLE, false).size();
      double maxBlocked = blocked.stream().mapToDouble(Double::doubleValue).max().orElse(0);
      double lastBlocked = blocked.isEmpty() ? 0 : blocked.get(blocked.size() - 1);
      System.out.printf("DemoCleaningIT over %d min: writer commits %d, conflicts %d, failed writes rolled back %d,"
              + " compactions %d, cleans %d (%d in the last third, %d files deleted), slices on storage %d, live %d,"
              + " tsd_clean_blocked_seconds max %.0f, last %.0f%n", length.toMinutes(), writerCommits, conflicts,
          rolledBack, compactions, cleans.size(), cleansInLastThird, filesDeleted, slicesOnStorage, liveSlices,
          maxBlocked, lastBlocked);

      String figures = "; demo log " + demo.logs() + ".out";
      assertThat(conflicts).as("writer batches that conflicted with a table service" + figures).isZero();
      assertThat(cleansInLastThird).as("cleans in the last third of the run" + figures).isPositive();
      // A failed write is rolled back within the heartbeat window (15 s) plus a poll; planning and a compaction
      // hold the boundary for seconds. Without the rollback the figure grows for the rest of the run.
      assertThat(lastBlocked).as("tsd_clean_blocked_seconds at the end" + figures).isLessThan(120);
    }
  }

  private static double cleanBlockedSeconds(String metrics) {
    Matcher matcher = CLEAN_BLOCKED.matcher(metrics);
    return matcher.find() ? Double.parseDouble(matcher.group(1)) : 0;
  }

  private static long count(String text, String needle) {
    return text.lines().filter(line -> line.contains(needle)).count();
  }
}
