package io.huditsd.it;

import io.huditsd.api.demo.SampleRow;
import io.huditsd.it.support.DaemonApi;
import io.huditsd.it.support.DaemonYaml;
import io.huditsd.it.support.RowDiff;
import io.huditsd.it.support.SparkPeer;
import io.huditsd.it.support.SparkReadBack;
import io.huditsd.it.support.TableReader;
import io.huditsd.it.support.TableReader.Listing;
import io.huditsd.it.support.TrackedTable;
import io.huditsd.it.support.Tsd;
import org.apache.hudi.avro.model.HoodieCompactionOperation;
import org.apache.hudi.avro.model.HoodieCompactionPlan;
import org.apache.hudi.common.model.HoodieTableType;
import org.apache.hudi.common.table.HoodieTableMetaClient;
import org.apache.hudi.common.table.timeline.HoodieInstant;
import org.apache.hudi.common.table.timeline.HoodieTimeline;
import org.apache.hudi.common.util.CompactionUtils;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static io.huditsd.it.support.TrackedTable.rows;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Issue 12, part 1: daemon processes that overlap on one table (two or four {@code once} runs started together, as
 * overlapping cron runs do, and a {@code server} beside a {@code once}) with no lock configured. Each pass must
 * complete exactly one compaction, no file slice may be in two compaction plans, and readers (Spark at the end) must
 * see exactly the rows the writes imply. With Hudi's {@code InProcessLockProvider}, the former default, every process
 * planned the same file groups and every one of them committed.
 *
 * <p>Rounds of each size: {@value #ROUNDS_PROPERTY} (default {@value #DEFAULT_ROUNDS}; the issue's 10 with
 * {@code -Dtsd.it.concurrentOnce.rounds=10}, which takes about a quarter of an hour on two cores).
 */
class ConcurrentOnceIT {
  static final String ROUNDS_PROPERTY = "tsd.it.concurrentOnce.rounds";
  static final int DEFAULT_ROUNDS = 2;
  private static final Duration ONCE_TIMEOUT = Duration.ofMinutes(5);
  private static final int INSERTS = 3;
  private static final int ROWS_PER_INSERT = 300;
  private static final int ROWS = INSERTS * ROWS_PER_INSERT;

  @Test
  void overlappingDaemonProcessesCompactEachSliceOnce() throws Exception {
    Path work = Tsd.workDirectory("ConcurrentOnceIT");
    Path basePath = work.resolve("mor");
    int rounds = Integer.getInteger(ROUNDS_PROPERTY, DEFAULT_ROUNDS);
    TableReader reader = new TableReader(basePath.toString());
    long start = System.nanoTime();
    Map<String, SampleRow> expected;
    try (TrackedTable table = TrackedTable.create(basePath, HoodieTableType.MERGE_ON_READ, 9,
        TrackedTable.MOR_WRITER_KEYS)) {
      for (int insert = 0; insert < INSERTS; insert++) {
        table.insert(rows(insert * ROWS_PER_INSERT, (insert + 1) * ROWS_PER_INSERT, 1_000, "v1"));
      }
      long ts = 2_000;
      for (int processes : new int[] {2, 4}) {
        for (int round = 0; round < rounds; round++) {
          String name = processes + "-once-" + round;
          // Every file group gets a log, so every one is due in the plan the processes race to write.
          String deltaCommit = table.upsert(rows(0, ROWS, ts++, "round " + name));
          runOnceTogether(work.resolve(name), basePath, processes);
          assertOneCompactionAfter(name, reader, deltaCommit);
          RowDiff.assertSameRows("read-optimized after " + name, table.expected().rows(),
              reader.readOptimized(Listing.METADATA_TABLE));
        }
      }
      String deltaCommit = table.upsert(rows(0, ROWS, ts, "server and once"));
      runServerAndOnce(work.resolve("server-and-once"), basePath);
      assertOneCompactionAfter("server and once", reader, deltaCommit);
      expected = table.expected().rows();
    }
    assertNoSliceInTwoPlans(reader.metaClient());
    System.out.printf("ConcurrentOnceIT: %d rounds of 2 and of 4 once processes and a server beside a once took"
        + " %d s before the Spark read%n", rounds, Duration.ofNanos(System.nanoTime() - start).toSeconds());

    SparkReadBack.assertEqualsModel(SparkPeer.shared(), basePath.toString(), expected, "after every pass");
  }

  /** Starts {@code processes} {@code once} runs at the same moment and waits until each has exited 0. */
  private static void runOnceTogether(Path logs, Path basePath, int processes) throws Exception {
    ExecutorService starter = Executors.newFixedThreadPool(processes);
    try {
      List<Callable<Tsd.Finished>> runs = new ArrayList<>();
      for (int process = 0; process < processes; process++) {
        Path log = logs.resolve("once-" + process);
        runs.add(() -> once(log, basePath));
      }
      for (Future<Tsd.Finished> run : starter.invokeAll(runs)) {
        Tsd.Finished finished = run.get();
        assertThat(finished.exitCode()).as("exit code of a once run\n%s", finished.output()).isZero();
      }
    } finally {
      starter.shutdownNow();
    }
  }

  private static Tsd.Finished once(Path logs, Path basePath) throws InterruptedException {
    return Tsd.run(logs, ONCE_TIMEOUT, "once", "--table", basePath.toString(), "--services", "compaction,clean",
        "--workers", "1", "--hoodie-conf", "hoodie.compact.inline.max.delta.commits=1");
  }

  /** A {@code server} on the table and a {@code once} started with it; returns once the compaction is done. */
  private static void runServerAndOnce(Path logs, Path basePath) throws Exception {
    int port = DaemonApi.freePort();
    Path config = logs.resolve("tsd.yml");
    Files.createDirectories(logs);
    Files.writeString(config, DaemonYaml.serverAndLogging(port, DaemonApi.freePort()) + DaemonYaml.QUICK_POLLING
        + """
        services: [compaction, clean]
        tables:
          - path: %s
            id: shared
        hoodie:
          hoodie.compact.inline.max.delta.commits: "1"
        """.formatted(basePath));
    TableReader reader = new TableReader(basePath.toString());
    try (Tsd.Running server = Tsd.startDaemon(logs.resolve("server"), "server", config.toString())) {
      Tsd.Finished once = once(logs.resolve("once"), basePath);
      assertThat(once.exitCode()).as("exit code of once beside a server\n%s", once.output()).isZero();
      DaemonApi api = new DaemonApi(port);
      // The server has polled the table at least once after the compaction (whoever ran it) completed.
      await("the server serviced the table with nothing left pending; server log " + server.logs() + ".out")
          .atMost(Duration.ofMinutes(3))
          .pollInterval(Duration.ofMillis(500))
          .ignoreExceptions()
          .untilAsserted(() -> {
            assertThat(reader.metaClient().getActiveTimeline().filterInflightsAndRequested().getInstants())
                .as("unfinished instants").isEmpty();
            assertThat(api.tables()).singleElement().satisfies(table -> assertThat(table)
                .containsEntry("consecutiveFailures", 0));
          });
    }
  }

  /** Exactly one compaction instant, completed, was planned after {@code deltaCommit}; nothing is left pending. */
  private static void assertOneCompactionAfter(String pass, TableReader reader, String deltaCommit) {
    HoodieTimeline timeline = reader.metaClient().getActiveTimeline();
    List<HoodieInstant> compactions = timeline.getCommitsAndCompactionTimeline().getInstantsAsStream()
        .filter(instant -> instant.getAction().equals(HoodieTimeline.COMMIT_ACTION)
            || instant.getAction().equals(HoodieTimeline.COMPACTION_ACTION))
        .filter(instant -> instant.requestedTime().compareTo(deltaCommit) > 0)
        .toList();
    assertThat(compactions).as("compaction instants of pass '%s' after delta commit %s", pass, deltaCommit)
        .singleElement().satisfies(compaction -> assertThat(compaction.isCompleted()).isTrue());
    assertThat(timeline.filterInflightsAndRequested().getInstants())
        .as("unfinished instants after pass '%s'", pass).isEmpty();
  }

  /** Across every compaction plan on the timeline, no file slice (file group and base instant) is planned twice. */
  private static void assertNoSliceInTwoPlans(HoodieTableMetaClient metaClient) {
    Map<String, String> planOfSlice = new HashMap<>();
    List<String> twice = new ArrayList<>();
    List<HoodieInstant> plans = metaClient.getActiveTimeline().getCommitsAndCompactionTimeline()
        .getInstantsAsStream()
        .filter(instant -> instant.getAction().equals(HoodieTimeline.COMMIT_ACTION)
            || instant.getAction().equals(HoodieTimeline.COMPACTION_ACTION))
        .toList();
    assertThat(plans).as("compaction plans on the timeline").isNotEmpty();
    for (HoodieInstant instant : plans) {
      HoodieCompactionPlan plan = CompactionUtils.getCompactionPlan(metaClient, instant.requestedTime());
      for (HoodieCompactionOperation operation : plan.getOperations()) {
        String slice = operation.getPartitionPath() + "/" + operation.getFileId() + "@"
            + operation.getBaseInstantTime();
        String earlier = planOfSlice.putIfAbsent(slice, instant.requestedTime());
        if (earlier != null) {
          twice.add(slice + " in " + earlier + " and " + instant.requestedTime());
        }
      }
    }
    assertThat(twice).as("file slices in two compaction plans").isEmpty();
  }
}
