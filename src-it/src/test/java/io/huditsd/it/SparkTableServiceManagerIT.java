package io.huditsd.it;

import io.huditsd.it.support.DaemonApi;
import io.huditsd.it.support.DaemonYaml;
import io.huditsd.it.support.PeerRow;
import io.huditsd.it.support.RowDiff;
import io.huditsd.it.support.SparkPeer;
import io.huditsd.it.support.SparkTable;
import io.huditsd.it.support.TableReader;
import io.huditsd.it.support.Tsd;
import org.apache.hudi.common.table.HoodieTableMetaClient;
import org.apache.hudi.common.table.timeline.HoodieInstant;
import org.apache.hudi.common.table.timeline.HoodieTimeline;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

import static io.huditsd.it.support.TrackedTable.concat;
import static io.huditsd.it.support.TrackedTable.deletes;
import static io.huditsd.it.support.TrackedTable.rows;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * A Spark writer that only schedules compactions, and a daemon that executes them on the writer's table service
 * manager request ({@code GET /v1/hoodie/service/compact}) while Spark keeps writing. The daemon knows no table at
 * start ({@code tableServiceManager.registerUnknownTables}); both sides run in multi-writer mode with Hudi's
 * {@code FileSystemBasedLockProvider} ({@code .hoodie/lock}, created atomically), Hudi's one lock that works across
 * processes on a local file system.
 *
 * <p>Hudi 1.2.0's writer cannot send that request itself: with {@code hoodie.table.service.manager.enabled=true}
 * every write fails after its commit, in {@code HoodieTableServiceManagerConfig.getDeployExtraParams}, which asks
 * for the default of a key that has none ({@code hoodie.table.service.manager.deploy.extra.params}), set or not.
 * {@link #hudi120WritersFailBeforeCallingATableServiceManager} pins that; when a Hudi upgrade makes it fail, let
 * the writer send the requests in the other test instead of the test sending them on its behalf.
 */
class SparkTableServiceManagerIT {
  private static final Map<String, String> MULTI_WRITER = Map.of(
      "hoodie.write.concurrency.mode", "OPTIMISTIC_CONCURRENCY_CONTROL",
      "hoodie.cleaner.policy.failed.writes", "LAZY",
      "hoodie.write.lock.provider", "org.apache.hudi.client.transaction.lock.FileSystemBasedLockProvider");
  private static SparkPeer spark;
  private static Tsd.Running daemon;
  private static DaemonApi api;
  private static int port;

  @BeforeAll
  static void start() throws Exception {
    spark = SparkPeer.shared();
    Path work = Tsd.workDirectory("SparkTableServiceManagerIT/daemon");
    port = DaemonApi.freePort();
    Path config = work.resolve("tsd.yml");
    Files.writeString(config, configuration(port, DaemonApi.freePort()));
    daemon = Tsd.startDaemon(work.resolve("daemon"), "server", config.toString());
    api = new DaemonApi(port);
    await("the daemon's REST API answers; daemon log " + daemon.logs() + ".out")
        .atMost(Duration.ofMinutes(1)).pollInterval(Duration.ofMillis(200)).ignoreExceptions()
        .until(() -> api.tables().isEmpty());
  }

  @AfterAll
  static void stop() throws InterruptedException {
    if (daemon != null) {
      daemon.close();
    }
  }

  @Test
  void daemonExecutesTheCompactionsASparkWriterSchedulesWhileItKeepsWriting() throws Exception {
    Path basePath = Tsd.workDirectory("SparkTableServiceManagerIT/tables").resolve("spark_tsm");
    Map<String, String> writer = new HashMap<>(MULTI_WRITER);
    // The writer schedules a compaction every second delta commit and executes none.
    writer.put("hoodie.compact.inline", "false");
    writer.put("hoodie.compact.schedule.inline", "true");
    writer.put("hoodie.compact.inline.max.delta.commits", "2");
    SparkTable table = SparkTable.create(spark, basePath, "MERGE_ON_READ", writer);
    TableReader reader = new TableReader(basePath.toString());

    table.insert(rows(0, 240, 1_000, "v1"));
    requestPendingCompactions(reader);
    table.upsert(rows(0, 80, 2_000, "v2"));
    requestPendingCompactions(reader);
    table.upsert(concat(deletes(80, 100, 2_000), rows(0, 20, 1_500, "late")));
    requestPendingCompactions(reader);
    table.upsert(rows(100, 140, 3_000, "v3"));
    requestPendingCompactions(reader);
    table.upsert(concat(rows(170, 200, 3_000, "v3"), rows(150, 170, 500, "late")));
    requestPendingCompactions(reader);
    awaitNoPendingCompaction(reader);
    // Whether the writes above left logs behind depends on timing (Hudi counts delta commits completed after the
    // last compaction completed). This one schedules a compaction of everything, so read_optimized must then hold
    // every row.
    table.upsert(rows(0, 40, 4_000, "v4"), Map.of("hoodie.compact.inline.max.delta.commits", "1"));
    requestPendingCompactions(reader);
    awaitNoPendingCompaction(reader);
    Map<String, PeerRow> expected = table.expected();
    assertThat(expected).hasSize(240 - 20);

    HoodieTimeline timeline = reader.metaClient().getActiveTimeline();
    List<String> compactions = timeline.getCommitTimeline().filterCompletedInstants().getInstantsAsStream()
        .map(HoodieInstant::requestedTime).toList();
    assertThat(compactions).as("completed compactions on %s", timeline).hasSizeGreaterThanOrEqualTo(2);
    String log = daemon.stdout();
    for (String compaction : compactions) {
      assertThat(log).as("the request for compaction %s in the daemon log %s.out", compaction, daemon.logs())
          .containsPattern("Table service manager request table=\\S+ service=compaction .*queued=\\[[^]]*"
              + compaction);
      assertThat(api.runs()).as("runs of the daemon")
          .anySatisfy(run -> assertThat(run).containsEntry("service", "compaction")
              .containsEntry("instant", compaction).containsEntry("status", "succeeded"));
    }
    assertThat(log).as("the daemon schedules nothing itself here; daemon log %s.out", daemon.logs())
        .doesNotContain("Scheduled table=");
    assertThat(api.tables()).as("tables the daemon registered on the writer's request")
        .anySatisfy(registered -> assertThat(registered).containsEntry("basePath", "file:" + basePath));
    assertThat(timeline.filterInflightsAndRequested().getInstants()).as("unfinished instants").isEmpty();

    RowDiff.assertSameRows("Spark snapshot after the daemon compacted what Spark scheduled", expected,
        table.snapshot());
    String lastDeltaCommit = timeline.getDeltaCommitTimeline().filterCompletedInstants().lastInstant().get()
        .requestedTime();
    assertThat(compactions.get(compactions.size() - 1)).as("last compaction vs the last delta commit")
        .isGreaterThan(lastDeltaCommit);
    RowDiff.assertSameRows("Spark read_optimized after the daemon compacted what Spark scheduled", expected,
        table.readOptimized());
  }

  @Test
  void hudi120WritersFailBeforeCallingATableServiceManager() throws Exception {
    Path basePath = Tsd.workDirectory("SparkTableServiceManagerIT/tables").resolve("spark_tsm_hook");
    Map<String, String> writer = new HashMap<>(MULTI_WRITER);
    writer.put("hoodie.compact.inline", "true");
    writer.put("hoodie.table.service.manager.enabled", "true");
    writer.put("hoodie.table.service.manager.uris", "http://localhost:" + port);
    writer.put("hoodie.table.service.manager.actions", "compaction");
    writer.put("hoodie.table.service.manager.deploy.extra.params", "none");
    SparkTable table = SparkTable.create(spark, basePath, "MERGE_ON_READ", writer);

    assertThatThrownBy(() -> table.insert(rows(0, 30, 1_000, "v1")))
        .as("a Spark write with the table service manager hook on (Hudi 1.2.0)")
        .hasMessageContaining("There's no default value for this config: "
            + "hoodie.table.service.manager.deploy.extra.params");
    assertThat(daemon.stdout()).as("daemon log %s.out: no request for %s arrived", daemon.logs(), basePath)
        .doesNotContain("spark_tsm_hook");
  }

  private static void awaitNoPendingCompaction(TableReader reader) {
    await("the compactions the writer scheduled completed; daemon log " + daemon.logs() + ".out")
        .atMost(Duration.ofMinutes(3))
        .pollInterval(Duration.ofMillis(500))
        .until(() -> reader.metaClient().getActiveTimeline().filterPendingCompactionTimeline().empty());
  }

  /**
   * What Hudi's {@code HoodieTableServiceManagerClient.executeCompaction} sends after each schedule attempt: every
   * pending compaction instant, and its deploy parameters (defaults here). The daemon must answer 2xx.
   */
  private static void requestPendingCompactions(TableReader reader) {
    HoodieTableMetaClient metaClient = reader.metaClient();
    List<String> pending = metaClient.getActiveTimeline().filterPendingCompactionTimeline().getInstantsAsStream()
        .map(HoodieInstant::requestedTime).toList();
    Map<String, String> query = new LinkedHashMap<>();
    query.put("basepath", metaClient.getBasePath().toString());
    query.put("action", "REQUEST");
    query.put("db_name", Objects.toString(metaClient.getTableConfig().getDatabaseName(), ""));
    query.put("table_name", metaClient.getTableConfig().getTableName());
    query.put("instant", String.join(",", pending));
    query.put("username", "default");
    query.put("queue", "default");
    query.put("resource", "spark:4g,4g");
    query.put("parallelism", "100");
    query.put("extra_params", "");
    query.put("execution_engine", "spark");
    Map<String, Object> answer = api.tableServiceManagerRequest("compact", query);
    assertThat(answer.get("queued")).as("instants queued on the request for %s: %s", pending, answer)
        .isEqualTo(pending.stream().filter(instant -> !ignored(answer).contains(instant)).toList());
    // Only a plan that the daemon completed (on a poll of its own) since the listing above may be ignored.
    HoodieTimeline completed = reader.metaClient().getActiveTimeline().getCommitTimeline().filterCompletedInstants();
    assertThat(ignored(answer)).as("instants ignored on the request for %s: %s", pending, answer)
        .allMatch(instant -> completed.containsInstant(instant), "completed meanwhile");
  }

  @SuppressWarnings("unchecked")
  private static List<String> ignored(Map<String, Object> answer) {
    return (List<String>) answer.get("ignored");
  }

  private static String configuration(int port, int adminPort) {
    StringBuilder hoodie = new StringBuilder();
    MULTI_WRITER.forEach((key, value) -> hoodie.append("  ").append(key).append(": ").append(value).append('\n'));
    return DaemonYaml.serverAndLogging(port, adminPort) + DaemonYaml.QUICK_POLLING + """
        services: [compaction]
        tableServiceManager:
          registerUnknownTables: true
        hoodie:
          # The daemon's own trigger never fires here: every plan is one the writer scheduled.
          hoodie.compact.inline.max.delta.commits: "1000"
        %s""".formatted(hoodie);
  }
}
