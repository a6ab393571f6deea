package io.huditsd.it;

import io.huditsd.it.support.CommitCallbackSender;
import io.huditsd.it.support.DaemonApi;
import io.huditsd.it.support.DaemonYaml;
import io.huditsd.it.support.PrometheusText;
import io.huditsd.it.support.RowDiff;
import io.huditsd.it.support.SparkPeer;
import io.huditsd.it.support.SparkTable;
import io.huditsd.it.support.TableReader;
import io.huditsd.it.support.Tsd;
import org.apache.hudi.common.table.timeline.HoodieTimeline;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;

import static io.huditsd.it.support.TrackedTable.concat;
import static io.huditsd.it.support.TrackedTable.deletes;
import static io.huditsd.it.support.TrackedTable.rows;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Hudi's HTTP commit callback from a Spark writer (the official bundle through spark-peer) to the packaged daemon,
 * whose regular poll is 10 minutes away: apart from the first regular poll of {@code cb_refused} at start, every
 * poll within the test is one a callback caused. The writer's {@code hoodie.write.commit.callback.*} settings are
 * the ones docs/writers.md ("Commit callbacks") tells writers to add.
 *
 * <p>Three tables, written before the daemon starts (no callback then): {@code cb_mor} takes the writer's upserts
 * and the daemon compacts it after every second delta commit; {@code cb_refused} (one Spark insert) and
 * {@code cb_flood} (a file copy of it) only receive callbacks the test sends with Hudi's message body, so a poll of
 * them never plans anything.
 */
class CommitCallbackIT {
  private static final String KEY = "cbit-" + UUID.randomUUID();
  private static final Duration DEBOUNCE = Duration.ofSeconds(1);
  private static final int DELTA_COMMITS = 2;
  /** How soon after the writer's commit returned its due compaction must be on the timeline. */
  private static final Duration SCHEDULED_WITHIN = Duration.ofSeconds(20);
  private static SparkPeer spark;
  private static Tsd.Running daemon;
  private static DaemonApi api;
  private static CommitCallbackSender callbacks;
  private static int adminPort;
  private static Map<String, SparkTable> tables;

  @BeforeAll
  static void start() throws Exception {
    spark = SparkPeer.shared();
    Path work = Tsd.workDirectory("CommitCallbackIT/daemon");
    Path tablesDirectory = Tsd.workDirectory("CommitCallbackIT/tables");
    int port = DaemonApi.freePort();
    adminPort = DaemonApi.freePort();
    Map<String, String> writer = Map.of(
        "hoodie.write.commit.callback.on", "true",
        "hoodie.write.commit.callback.http.url", "http://127.0.0.1:" + port + "/v1/hoodie/commit-callback",
        "hoodie.write.commit.callback.http.api.key", KEY,
        "hoodie.write.commit.callback.http.timeout.seconds", "10");
    // In this order in tsd.yml: the daemon's first regular polls come at 0, 0.618 and 0.236 of the interval after
    // start (FirstPolls), so cb_refused has had its one before the test and the others have theirs after it.
    tables = new LinkedHashMap<>();
    for (String id : List.of("cb_refused", "cb_flood", "cb_mor")) {
      tables.put(id, SparkTable.create(spark, tablesDirectory.resolve(id), "MERGE_ON_READ", writer));
    }
    // The first delta commit of each table, before the daemon listens: no callback (it would only be logged).
    // cb_flood is a file copy of cb_refused (a Spark write costs seconds): only callbacks name it, never a writer.
    for (String id : List.of("cb_refused", "cb_mor")) {
      tables.get(id).insert(rows(0, 120, 1_000, "v1"), Map.of("hoodie.write.commit.callback.on", "false"));
    }
    copy(tablesDirectory.resolve("cb_refused"), tablesDirectory.resolve("cb_flood"));

    Path keyFile = work.resolve("callback-key");
    Files.writeString(keyFile, KEY + "\n");
    Path config = work.resolve("tsd.yml");
    Files.writeString(config, configuration(port, adminPort, keyFile));
    daemon = Tsd.startDaemon(work.resolve("daemon"), "server", config.toString());
    api = new DaemonApi(port);
    callbacks = new CommitCallbackSender(port);
    await("the daemon lists its three tables and polled cb_refused; daemon log " + daemon.logs() + ".out")
        .atMost(Duration.ofMinutes(1)).pollInterval(Duration.ofMillis(200)).ignoreExceptions()
        .until(() -> api.tables().size() == tables.size() && lastPoll("cb_refused").isPresent());
  }

  @AfterAll
  static void stop() throws InterruptedException {
    if (daemon != null) {
      daemon.close();
    }
  }

  @Test
  void eachDueCompactionIsScheduledSecondsAfterTheWriterCommitThatMadeItDue() {
    SparkTable table = tables.get("cb_mor");
    TableReader reader = new TableReader(table.basePath());
    List<Duration> delays = new ArrayList<>();
    // Delta commit 1 was the insert, so the first upsert makes a compaction due; then (after that compaction
    // completed, which restarts Hudi's count) one that does not and one that does.
    delays.add(due(table, reader, () -> table.upsert(concat(rows(0, 40, 2_000, "v2"), deletes(40, 50, 2_000)))));
    notDue(table, reader, () -> table.upsert(concat(rows(50, 90, 3_000, "v3"), rows(0, 10, 1_500, "late"))));
    delays.add(due(table, reader, () -> table.upsert(concat(rows(0, 30, 4_000, "v4"), rows(120, 140, 1_000, "v1")))));
    System.out.printf("CommitCallbackIT: commit-to-schedule %s (polling.interval 10m)%n", delays);

    assertThat(delays).as("commit-to-schedule delays of the due compactions (polling.interval 10m)")
        .hasSize(2).allSatisfy(delay -> assertThat(delay).isLessThanOrEqualTo(SCHEDULED_WITHIN));
    HoodieTimeline timeline = reader.metaClient().getActiveTimeline();
    assertThat(timeline.getCommitTimeline().filterCompletedInstants().countInstants())
        .as("compactions completed on %s", timeline).isEqualTo(2);
    assertThat(timeline.filterInflightsAndRequested().getInstants()).as("unfinished instants").isEmpty();
    assertThat(metric("tsd_commit_callbacks_total", "table=\"cb_mor\"", "result=\"accepted\""))
        .as("callbacks the writer's three commits sent").isEqualTo(3);
    // The last upsert made the second compaction due and it covered every log: both reads see the writer's model.
    RowDiff.assertSameRows("Spark snapshot after the compactions", table.expected(), table.snapshot());
    RowDiff.assertSameRows("Spark read_optimized after the compactions", table.expected(), table.readOptimized());
  }

  @Test
  void aCallbackWithAWrongKeyIsRefusedAndCausesNoPoll() {
    SparkTable table = tables.get("cb_refused");
    String message = CommitCallbackSender.deltaCommitMessage("20261201000000000", "cb_refused", table.basePath());
    Optional<Instant> lastPoll = lastPoll("cb_refused");
    double polls = metric("tsd_commit_callback_polls_total", "table=\"cb_refused\"");
    double unauthorized = metric("tsd_commit_callbacks_total", "result=\"unauthorized\"");

    assertThat(callbacks.send(KEY + "x", message).status()).as("answer to a wrong key").isEqualTo(403);
    assertThat(callbacks.send("hudi_write_commit_http_callback", message).status())
        .as("answer to Hudi's default key").isEqualTo(403);
    assertThat(callbacks.send(null, message).status()).as("answer to no key").isEqualTo(401);

    // Nothing may follow: the window of a poll the callbacks would have caused passes three times over.
    await("no poll of cb_refused after refused callbacks").during(DEBOUNCE.multipliedBy(3))
        .atMost(DEBOUNCE.multipliedBy(6)).pollInterval(Duration.ofMillis(200))
        .until(() -> lastPoll("cb_refused").equals(lastPoll)
            && metric("tsd_commit_callback_polls_total", "table=\"cb_refused\"") == polls);
    assertThat(metric("tsd_commit_callbacks_total", "result=\"unauthorized\"") - unauthorized)
        .as("refused callbacks counted as unauthorized").isEqualTo(3);
  }

  @Test
  void aFloodOfCallbacksGivesAboutOnePollPerDebounceWindow() throws InterruptedException {
    SparkTable table = tables.get("cb_flood");
    String message = CommitCallbackSender.deltaCommitMessage("20261201000000000", "cb_flood", table.basePath());
    double before = metric("tsd_commit_callback_polls_total", "table=\"cb_flood\"");
    int callbacksSent = 200;
    int coalesced = 0;
    long start = System.nanoTime();
    for (int i = 0; i < callbacksSent; i++) {
      CommitCallbackSender.Answer answer = callbacks.send(KEY, message);
      assertThat(answer.status()).as("answer to callback %d: %s", i, answer.body()).isEqualTo(202);
      assertThat(answer.body()).containsEntry("table", "cb_flood");
      if ("coalesced".equals(answer.body().get("poll"))) {
        coalesced++;
      }
      Thread.sleep(20);
    }
    Duration flood = Duration.ofNanos(System.nanoTime() - start);
    // The last window's trailing poll comes at most one window after the last callback.
    AtomicReference<Double> seen = new AtomicReference<>(Double.NaN);
    await("cb_flood's callback polls stop moving").during(DEBOUNCE.multipliedBy(2)).atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(200))
        .until(() -> {
          double now = metric("tsd_commit_callback_polls_total", "table=\"cb_flood\"");
          return now == seen.getAndSet(now);
        });
    long polls = Math.round(metric("tsd_commit_callback_polls_total", "table=\"cb_flood\"") - before);

    double windows = (double) flood.toMillis() / DEBOUNCE.toMillis();
    System.out.printf("CommitCallbackIT: %d callbacks over %d ms (debounce %s): %d polls, %d answered coalesced%n",
        callbacksSent, flood.toMillis(), DEBOUNCE, polls, coalesced);
    assertThat(polls).as("polls caused by %d callbacks over %d ms (debounce %s; %d answered coalesced)",
            callbacksSent, flood.toMillis(), DEBOUNCE, coalesced)
        .isBetween((long) Math.max(2, Math.floor(windows / 2)), (long) Math.ceil(windows) + 2);
    assertThat(coalesced).as("callbacks answered coalesced").isGreaterThanOrEqualTo(callbacksSent - (int) polls);
  }

  /** A write the daemon polls for (its callback) and after which no compaction may be on the timeline. */
  private static void notDue(SparkTable table, TableReader reader, Runnable write) {
    double polls = metric("tsd_commit_callback_polls_total", "table=\"cb_mor\"");
    int compactions = pendingOrCompletedCompactions(reader);
    Instant before = Instant.now();
    write.run();
    await("the poll the writer's callback caused; daemon log " + daemon.logs() + ".out").atMost(SCHEDULED_WITHIN)
        .pollInterval(Duration.ofMillis(100))
        .until(() -> metric("tsd_commit_callback_polls_total", "table=\"cb_mor\"") > polls
            && lastPoll("cb_mor").map(poll -> poll.isAfter(before)).orElse(false));
    // A due plan is scheduled right after the poll that found it due; two seconds with none is the answer.
    await("no compaction of " + table.basePath() + " after a delta commit that made none due")
        .during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(100))
        .until(() -> pendingOrCompletedCompactions(reader) == compactions);
  }

  /** A write that makes a compaction due: how long after it returned the plan was on the timeline. */
  private static Duration due(SparkTable table, TableReader reader, Runnable write) {
    int compactions = pendingOrCompletedCompactions(reader);
    write.run();
    long returned = System.nanoTime();
    await("a compaction of " + table.basePath() + " scheduled; daemon log " + daemon.logs() + ".out")
        .atMost(SCHEDULED_WITHIN.plusSeconds(10)).pollInterval(Duration.ofMillis(100))
        .until(() -> pendingOrCompletedCompactions(reader) > compactions);
    Duration delay = Duration.ofNanos(System.nanoTime() - returned);
    await("the compaction completed; daemon log " + daemon.logs() + ".out").atMost(Duration.ofMinutes(2))
        .pollInterval(Duration.ofMillis(250))
        .until(() -> reader.metaClient().getActiveTimeline().filterPendingCompactionTimeline().empty());
    return delay;
  }

  private static void copy(Path from, Path to) throws IOException {
    try (Stream<Path> files = Files.walk(from)) {
      for (Path file : files.toList()) {
        Files.copy(file, to.resolve(from.relativize(file).toString()), StandardCopyOption.COPY_ATTRIBUTES);
      }
    }
  }

  private static int pendingOrCompletedCompactions(TableReader reader) {
    HoodieTimeline timeline = reader.metaClient().getActiveTimeline();
    return timeline.filterPendingCompactionTimeline().countInstants() + completedCompactions(reader);
  }

  private static int completedCompactions(TableReader reader) {
    return reader.metaClient().getActiveTimeline().getCommitTimeline().filterCompletedInstants().countInstants();
  }

  private static Optional<Instant> lastPoll(String tableId) {
    Object value = api.tables().stream().filter(table -> tableId.equals(table.get("id"))).findFirst()
        .orElseThrow(() -> new AssertionError("table " + tableId + " not listed")).get("lastPoll");
    if (value == null) {
      return Optional.empty();
    }
    return Optional.of(value instanceof Number seconds
        ? Instant.ofEpochMilli(Math.round(seconds.doubleValue() * 1000)) : Instant.parse(value.toString()));
  }

  private static double metric(String metric, String... labels) {
    return PrometheusText.sum(DaemonApi.metrics(adminPort), metric, labels);
  }

  private static String configuration(int port, int adminPort, Path keyFile) {
    StringBuilder listed = new StringBuilder();
    tables.forEach((id, table) -> listed.append("  - path: ").append(table.basePath()).append("\n    id: ")
        .append(id).append('\n'));
    return DaemonYaml.serverAndLogging(port, adminPort) + """
        # Only callbacks make the daemon poll within this test: the regular poll is 10 minutes away.
        polling:
          interval: 10m
          maxBackoff: 10m
        workers:
          count: 2
          retryBackoff: 1s
        commitCallbacks:
          keyFile: %s
          debounce: %ds
        services: [compaction]
        tables:
        %s
        hoodie:
          hoodie.compact.inline.max.delta.commits: "%d"
        """.formatted(keyFile, DEBOUNCE.toSeconds(), listed.toString().stripTrailing(), DELTA_COMMITS);
  }
}
