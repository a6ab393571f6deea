package io.huditsd.it;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.huditsd.api.demo.SampleRow;
import io.huditsd.it.support.DataFiles;
import io.huditsd.it.support.DataFiles.BaseFile;
import io.huditsd.it.support.InflightPlans;
import io.huditsd.it.support.RowDiff;
import io.huditsd.it.support.SparkPeer;
import io.huditsd.it.support.SparkReadBack;
import io.huditsd.it.support.TableReader;
import io.huditsd.it.support.TableReader.Listing;
import io.huditsd.it.support.TrackedTable;
import io.huditsd.it.support.Tsd;
import org.apache.hudi.client.heartbeat.HoodieHeartbeatClient;
import org.apache.hudi.common.model.HoodieTableType;
import org.apache.hudi.common.table.timeline.HoodieInstant;
import org.apache.hudi.common.table.timeline.HoodieTimeline;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;

import static io.huditsd.it.support.TrackedTable.concat;
import static io.huditsd.it.support.TrackedTable.deletes;
import static io.huditsd.it.support.TrackedTable.rows;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A {@code once} pass killed with SIGKILL while it writes a plan (the pod OOM-killed, the node gone), and the
 * {@code once} started right after it with the same configuration: the second pass must find the plan held by the
 * dead pass's heartbeat, wait until that heartbeat expires, roll the plan back and complete the same instant, exit 0
 * as serviced, leave nothing pending, and readers must see exactly the rows the writes imply. A plan whose heartbeat
 * a live process keeps renewing must be left untouched, and the pass must say so ({@code plans-left}, exit 4 under
 * {@code --detailed-exit-code}, the plan in {@code --json}'s {@code left}) instead of claiming it serviced the table.
 *
 * <p>The daemon's heartbeat is short here ({@value #HEARTBEAT_INTERVAL}, {@value #HEARTBEAT_MISSES} misses) to keep
 * the waits short. The next pass must still find the dead heartbeat alive, as it does with the default window (10 s,
 * two misses) when it starts within half a minute; on a loaded machine a JVM's start alone can outlast the short
 * window. So the holder dies only when the next pass's JVM is up (its first log line): the killed pass is frozen with
 * SIGSTOP as soon as its plan writes files, the next pass is started, and on its first line the frozen pass is let
 * go (SIGCONT) just long enough to renew its heartbeat, then killed.
 */
class KillDuringOnceIT {
  private static final Duration ONCE_TIMEOUT = Duration.ofMinutes(3);
  private static final String HEARTBEAT_INTERVAL = "2s";
  private static final int HEARTBEAT_MISSES = 2;
  private static final ObjectMapper JSON = new ObjectMapper();
  /** The first line a pass logs, once its JVM, configuration and workers are up and before it reads any table. */
  private static final String PASS_STARTED = "Worker pool:";

  /**
   * Compaction of a MERGE_ON_READ table: the pass after the kill first meets a live process holding the plan (this
   * test renews the plan's heartbeat with Hudi's own heartbeat client, as a running executor does) and leaves it;
   * when that holder dies too, the next pass started at once finishes the plan.
   */
  @Test
  void onceAfterAKilledCompactionLeavesALiveHolderAloneAndFinishesAnAbandonedPlan() throws Exception {
    Path work = Tsd.workDirectory("KillDuringOnceIT/compaction");
    Path basePath = work.resolve("mor");
    Map<String, SampleRow> expected;
    try (TrackedTable table = TrackedTable.create(basePath, HoodieTableType.MERGE_ON_READ, 9,
        TrackedTable.MOR_WRITER_KEYS)) {
      for (int commit = 0; commit < 3; commit++) {
        table.insert(rows(commit * 2_000, (commit + 1) * 2_000, 1_000, "v1"));
      }
      table.upsert(rows(0, 6_000, 2_000, "v2"));
      table.upsert(concat(deletes(0, 300, 3_000), rows(300, 6_000, 3_000, "v3")));
      table.upsert(rows(1_000, 1_500, 2_500, "late"));
      expected = table.expected().rows();
    }
    Path config = configuration(work, basePath, "compaction", """
          hoodie.compact.inline.max.delta.commits: "2"
        """);
    TableReader reader = new TableReader(basePath.toString());

    String compaction;
    try (Tsd.Running first = Tsd.startDaemon(work.resolve("once-1-killed"), "once", "--config", config.toString())) {
      compaction = planWritingFiles(first, basePath, InflightPlans.COMPACTION);
      first.kill();
    }
    assertThat(reader.metaClient().getActiveTimeline().filterPendingCompactionTimeline().getInstants())
        .as("compaction %s still pending after the kill (else it finished first: make it slower)", compaction)
        .extracting(HoodieInstant::requestedTime).containsExactly(compaction);
    List<BaseFile> partial = DataFiles.writtenBy(basePath, compaction);

    Tsd.Finished finished;
    // A live process holds the plan: its heartbeat is renewed every second for as long as the second pass runs.
    try (HoodieHeartbeatClient holder = new HoodieHeartbeatClient(reader.metaClient().getStorage(),
        basePath.toString(), 1_000L, 1)) {
      holder.start(compaction);
      Tsd.Finished left = once(work.resolve("once-2-beside-a-live-holder"), config);
      assertThat(left.exitCode()).as("exit code of once beside a live holder (4: plans left)\n%s", left.output())
          .isEqualTo(4);
      JsonNode summary = summary(left);
      assertThat(summary.get("outcome").asText()).as("outcome in %s", summary).isEqualTo("plans-left");
      assertThat(summary.get("left")).as("plans left in %s", summary).singleElement().satisfies(plan -> {
        assertThat(plan.get("service").asText()).isEqualTo("compaction");
        assertThat(plan.get("instant").asText()).isEqualTo(compaction);
        assertThat(plan.get("reason").asText()).contains("held by a live process");
      });
      assertThat(summary.get("runs")).as("runs in %s", summary).allSatisfy(run ->
          assertThat(run.get("status").asText()).isEqualTo("skipped"));
      // Not touched: still inflight, the killed attempt's files neither rolled back nor rewritten.
      assertThat(reader.metaClient().getActiveTimeline().filterPendingCompactionTimeline().getInstants())
          .as("compaction %s pending while a live process holds it", compaction)
          .singleElement().satisfies(instant -> assertThat(instant.isInflight()).isTrue());
      assertThat(DataFiles.writtenBy(basePath, compaction)).as("files of compaction %s while a live process holds it",
          compaction).isEqualTo(partial);
      // The holder dies as the first pass did (its heartbeat stops being renewed, its file stays) once the next
      // pass is up.
      try (Tsd.Running next = startOnce(work.resolve("once-3-after-the-holder-died"), config)) {
        awaitStarted(next);
        holder.stopHeartbeatTimers();
        finished = finish(next);
      }
    }
    assertServiced(finished, "compaction", compaction);
    HoodieTimeline timeline = reader.metaClient().getActiveTimeline();
    assertThat(completed(timeline.getCommitTimeline())).as("completed compactions").containsExactly(compaction);
    assertNothingPending(reader);
    List<String> latest = reader.latestBaseFiles(Listing.STORAGE);
    assertThat(DataFiles.writtenBy(basePath, compaction)).extracting(BaseFile::path)
        .as("files of compaction %s on disk; the killed attempt had written %s", compaction, partial)
        .isNotEmpty()
        .allMatch(latest::contains, "a latest base file (no leftovers of the killed attempt)");

    RowDiff.assertSameRows("snapshot after the finished compaction", expected, reader.snapshot(Listing.STORAGE));
    SparkReadBack.assertEqualsModel(SparkPeer.shared(), basePath.toString(), expected,
        "after the finished compaction");
    RowDiff.assertSameRows("read-optimized after the finished compaction, listed from the metadata table",
        expected, reader.readOptimized(Listing.METADATA_TABLE));
    RowDiff.assertSameRows("read-optimized after the finished compaction, listed on storage", expected,
        reader.readOptimized(Listing.STORAGE));
  }

  /**
   * Clustering (Hudi's rewrite, which writes long enough to be caught at it) of a copy-on-write table of small files, with the
   * hot-data filter off (every file group was just written): the pass started right after the kill finishes it.
   */
  @Test
  void onceRightAfterAKilledClusteringFinishesIt() throws Exception {
    Path work = Tsd.workDirectory("KillDuringOnceIT/clustering");
    Path basePath = work.resolve("cow");
    Map<String, SampleRow> expected;
    try (TrackedTable table = TrackedTable.create(basePath, HoodieTableType.COPY_ON_WRITE, 9,
        // Every insert commit opens new files instead of filling the existing ones.
        Map.of("hoodie.parquet.small.file.limit", "0"))) {
      for (int commit = 0; commit < 5; commit++) {
        table.insert(rows(commit * 2_000, (commit + 1) * 2_000, 1_000, "v1"));
      }
      table.upsert(concat(deletes(0, 300, 2_000), rows(300, 3_000, 2_000, "v2")));
      expected = table.expected().rows();
    }
    Path config = configuration(work, basePath, "clustering", """
          hoodie.clustering.inline.max.commits: "2"
          hoodie.clustering.plan.strategy.hot.commits: "0"
          hoodie.clustering.plan.strategy.hot.minutes: "0"
          hoodie.clustering.plan.strategy.class: io.huditsd.executors.clustering.HotAwareClusteringPlanStrategy
        """);
    TableReader reader = new TableReader(basePath.toString());

    String clustering;
    Tsd.Finished finished;
    try (Tsd.Running first = Tsd.startDaemon(work.resolve("once-1-killed"), "once", "--config", config.toString())) {
      clustering = planWritingFiles(first, basePath, InflightPlans.CLUSTERING);
      first.signal("STOP");
      try (Tsd.Running next = startOnce(work.resolve("once-2"), config)) {
        awaitStarted(next);
        killRightAfterAHeartbeat(first, basePath, clustering);
        assertThat(reader.metaClient().getActiveTimeline().filterPendingReplaceOrClusteringTimeline()
            .getInstants()).as("clustering %s still pending after the kill", clustering)
            .extracting(HoodieInstant::requestedTime).containsExactly(clustering);
        finished = finish(next);
      }
    }
    assertServiced(finished, "clustering", clustering);
    HoodieTimeline timeline = reader.metaClient().getActiveTimeline();
    assertThat(completed(timeline.getCompletedReplaceTimeline())).as("completed clusterings")
        .containsExactly(clustering);
    assertNothingPending(reader);
    assertThat(reader.latestBaseFiles(Listing.STORAGE)).as("latest base files after clustering %s", clustering)
        .hasSize(TrackedTable.PARTITIONS.size())
        .allMatch(file -> file.endsWith(clustering + ".parquet"), "written by clustering " + clustering);

    RowDiff.assertSameRows("snapshot after the finished clustering", expected, reader.snapshot(Listing.STORAGE));
    SparkReadBack.assertEqualsModel(SparkPeer.shared(), basePath.toString(), expected,
        "after the finished clustering");
    RowDiff.assertSameRows("read-optimized after the finished clustering, listed from the metadata table",
        expected, reader.readOptimized(Listing.METADATA_TABLE));
  }

  /** The tsd.yml both passes read: one table, one service, the short heartbeat. */
  private static Path configuration(Path work, Path basePath, String service, String hoodieKeys) throws IOException {
    Path config = work.resolve("tsd.yml");
    Files.writeString(config, """
        workers:
          count: 2
          heartbeatInterval: %s
          heartbeatTolerableMisses: %d
        services: [%s]
        tables:
          - path: %s
            id: killed
        hoodie:
        %s""".formatted(HEARTBEAT_INTERVAL, HEARTBEAT_MISSES, service, basePath, hoodieKeys));
    return config;
  }

  /** Waits until {@code pass}'s plan (the timeline file ending {@code inflightSuffix}) writes base files. */
  private static String planWritingFiles(Tsd.Running pass, Path basePath, String inflightSuffix) {
    return await("a plan writing its files; log " + pass.logs() + ".out")
        .atMost(Duration.ofMinutes(2))
        .pollInterval(Duration.ofMillis(20))
        .until(() -> InflightPlans.writingFiles(basePath, inflightSuffix), Optional::isPresent)
        .orElseThrow();
  }

  /** Lets the frozen {@code pass} renew the heartbeat of {@code instant} once more, then SIGKILLs it. */
  private static void killRightAfterAHeartbeat(Tsd.Running pass, Path basePath, String instant) throws Exception {
    Path heartbeat = basePath.resolve(".hoodie/.heartbeat").resolve(instant);
    long frozenAt = Files.getLastModifiedTime(heartbeat).toMillis();
    pass.signal("CONT");
    await("a heartbeat of " + instant + " after SIGCONT; log " + pass.logs() + ".out")
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(5))
        .until(() -> Files.getLastModifiedTime(heartbeat).toMillis() > frozenAt);
    pass.kill();
  }

  /** Waits until {@code pass} has logged its first line, failing if it ended first. */
  private static void awaitStarted(Tsd.Running pass) {
    await("the next pass started; log " + pass.logs() + ".err")
        .atMost(Duration.ofMinutes(2))
        .pollInterval(Duration.ofMillis(10))
        .until(() -> {
          assertThat(pass.waitFor(Duration.ZERO)).as("the next pass still runs\n%s", pass.logTail()).isEmpty();
          return pass.stderr().contains(PASS_STARTED) || pass.stdout().contains(PASS_STARTED);
        });
  }

  private static Tsd.Running startOnce(Path logs, Path config) {
    return Tsd.startDaemon(logs, "once", "--config", config.toString(), "--detailed-exit-code", "--json");
  }

  /** Waits for {@code pass} to end by itself. */
  private static Tsd.Finished finish(Tsd.Running pass) throws InterruptedException {
    long start = System.nanoTime();
    int exitCode = pass.waitFor(ONCE_TIMEOUT).orElseThrow(() -> new AssertionError("once did not end within "
        + ONCE_TIMEOUT + "\n" + pass.logTail()));
    return new Tsd.Finished(exitCode, pass.stdout(), pass.stderr(), Duration.ofNanos(System.nanoTime() - start),
        pass.logs());
  }

  private static Tsd.Finished once(Path logs, Path config) throws InterruptedException {
    return Tsd.run(logs, ONCE_TIMEOUT, "once", "--config", config.toString(), "--detailed-exit-code", "--json");
  }

  /**
   * The pass found the plan held by the killed run's heartbeat (a skipped run), waited for it, then ran the same
   * instant to success, and reports the table serviced with nothing left.
   */
  private static void assertServiced(Tsd.Finished once, String service, String instant) {
    assertThat(once.exitCode()).as("exit code of once after the kill (0: serviced)\n%s", once.output()).isZero();
    JsonNode summary = summary(once);
    assertThat(summary.get("outcome").asText()).as("outcome in %s", summary).isEqualTo("serviced");
    assertThat(summary.get("left")).as("plans left in %s", summary).isEmpty();
    assertThat(summary.get("problems")).as("problems in %s", summary).isEmpty();
    List<JsonNode> runs = Stream.of(summary.get("runs")).flatMap(node -> node.valueStream())
        .filter(run -> run.get("service").asText().equals(service))
        .filter(run -> instant.equals(run.path("instant").asText()))
        .toList();
    assertThat(runs).as("runs of %s %s in %s", service, instant, summary)
        .extracting(run -> run.get("status").asText())
        // Skipped first, proving the pass met the dead heartbeat still alive and waited for it.
        .startsWith("skipped").endsWith("succeeded").doesNotContain("failed");
    assertThat(once.stdout() + once.stderr()).as("log of once\n%s", once.output())
        .contains("Waiting until");
  }

  private static void assertNothingPending(TableReader reader) {
    HoodieTimeline timeline = reader.metaClient().getActiveTimeline();
    assertThat(timeline.filterInflightsAndRequested().getInstants()).as("unfinished instants on %s", timeline)
        .isEmpty();
  }

  /** The {@code --json} summary: the last line of stdout. */
  private static JsonNode summary(Tsd.Finished once) {
    List<String> lines = once.stdout().lines().filter(line -> line.startsWith("{")).toList();
    assertThat(lines).as("JSON summary on stdout\n%s", once.output()).isNotEmpty();
    try {
      return JSON.readTree(lines.get(lines.size() - 1));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static List<String> completed(HoodieTimeline timeline) {
    return timeline.filterCompletedInstants().getInstantsAsStream().map(HoodieInstant::requestedTime).toList();
  }
}
