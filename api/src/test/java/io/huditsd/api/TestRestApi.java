package io.huditsd.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.dropwizard.testing.DropwizardTestSupport;
import io.huditsd.api.RestClient.Reply;
import io.huditsd.api.demo.SampleRow;
import io.huditsd.api.demo.SampleTable;
import io.huditsd.api.rest.BacklogSeriesResource;
import io.huditsd.api.rest.CommitCallbackResource;
import io.huditsd.api.rest.IndexesResource;
import io.huditsd.api.rest.OpenApiResource;
import io.huditsd.api.rest.RunsResource;
import io.huditsd.api.rest.TableListResource;
import io.huditsd.api.rest.TableServiceManagerResource;
import io.huditsd.api.rest.TablesResource;
import io.huditsd.config.HeartbeatSettings;
import io.huditsd.config.MetadataIndexes;
import io.huditsd.config.ServiceType;
import io.huditsd.config.ServicedTable;
import io.huditsd.config.TsdConfiguration;
import io.huditsd.executors.HudiTables;
import jakarta.ws.rs.Path;
import org.apache.hadoop.conf.Configuration;
import org.apache.hudi.client.HoodieJavaWriteClient;
import org.apache.hudi.common.model.HoodieAvroPayload;
import org.apache.hudi.common.model.HoodieTableType;
import org.apache.hudi.common.util.Option;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

import java.io.IOException;
import java.lang.reflect.Method;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The REST API, metrics and health endpoints of a real daemon (Dropwizard's test support starts the real
 * application on free ports) against a real MOR table written by Hudi's Java writer in the same JVM.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class TestRestApi {
  private static final String TOKEN = "s3cret-token";
  private static final String TABLE = "orders";
  private static final String[] PARTITIONS = {"p0", "p1", "p2"};

  private static java.nio.file.Path dir;
  private static java.nio.file.Path config;
  private static String tablePath;
  private static DropwizardTestSupport<TsdConfiguration> daemon;
  private static RestClient api;
  private static RestClient admin;

  @BeforeAll
  static void start() throws Exception {
    InProcessDaemonAwaits.ignoreOtherThreadsExceptions();
    dir = Files.createTempDirectory("tsd-rest");
    tablePath = dir.resolve("orders").toString();
    try (SampleTable table = SampleTable.open(tablePath, "orders", HoodieTableType.MERGE_ON_READ, 9, Map.of())) {
      List<SampleRow> rows = new ArrayList<>();
      for (int i = 0; i < 300; i++) {
        rows.add(SampleRow.of("k" + i, PARTITIONS[i % 3], 1, "first", i));
      }
      table.insert(rows);
      table.upsert(updates(0, 60, 2));
      table.upsert(updates(30, 90, 3));
    }
    Files.writeString(dir.resolve("token"), TOKEN + "\n");
    config = dir.resolve("tsd.yml");
    Files.writeString(config, """
        server:
          applicationConnectors: [{type: http, port: 0}]
          adminConnectors: [{type: http, port: 0}]
        logging:
          level: WARN
        polling:
          interval: 1s
        workers:
          count: 2
          retryBackoff: 1s
          heartbeatInterval: 1s
        history:
          file: %s
        auth:
          tokenFile: %s
          maxBodyBytes: 4096
        tableServiceManager:
          registerUnknownTables: false
        tables:
          - path: %s
            id: %s
            services: [compaction, clean]
            hoodie:
              # The test drives compaction itself.
              hoodie.compact.inline.max.delta.commits: "1000"
              tsd.engine.compaction: java
        """.formatted(dir.resolve("history.jsonl"), dir.resolve("token"), tablePath, TABLE));
    startDaemon();
  }

  private static void startDaemon() throws Exception {
    daemon = new DropwizardTestSupport<>(TsdApplication.class, config.toString());
    daemon.before();
    api = new RestClient("http://localhost:" + daemon.getLocalPort(), TOKEN);
    admin = new RestClient("http://localhost:" + daemon.getAdminPort(), null);
  }

  @AfterAll
  static void stop() {
    Awaitility.reset();
    if (daemon != null) {
      daemon.after();
    }
  }

  @Test
  void commitCallbacksAnswer404SayingHowToTurnThemOnWhenOff() {
    Reply reply = api.post("/v1/hoodie/commit-callback",
        "{\"commitTime\":\"20261201000000000\",\"basePath\":\"" + tablePath + "\"}");
    assertThat(reply.status()).isEqualTo(404);
    assertThat(reply.json().path("message").asText()).contains("commitCallbacks section");
  }

  private static List<SampleRow> updates(int from, int to, long ts) {
    List<SampleRow> rows = new ArrayList<>();
    for (int i = from; i < to; i++) {
      rows.add(SampleRow.of("k" + i, PARTITIONS[i % 3], ts, "update-" + ts, i * 10L));
    }
    return rows;
  }

  @Test
  @Order(1)
  void tablesShowBacklogThatMatchesFileGroupsAndMetrics() {
    await().atMost(Duration.ofSeconds(60)).untilAsserted(() ->
        assertThat(api.get("/api/v1/tables/" + TABLE).json().path("backlog").path("logFileUnscheduledBytes").asLong())
            .isPositive());
    JsonNode table = api.get("/api/v1/tables/" + TABLE).json();
    assertThat(table.path("tableType").asText()).isEqualTo("MERGE_ON_READ");
    assertThat(table.path("tableVersion").asInt()).isEqualTo(9);
    assertThat(table.path("effectivePolicy").path("hoodie.compact.inline.max.delta.commits").asText())
        .isEqualTo("1000");
    assertThat(table.path("effectivePolicy").path("hoodie.write.table.version").asText()).isEqualTo("9");
    assertThat(table.path("effectivePolicy").path("hoodie.write.auto.upgrade").asText()).isEqualTo("false");
    assertThat(table.path("effectivePolicy").path("tsd.engine.compaction").asText())
        .as("the daemon's engine policy is shown, though never passed to Hudi").isEqualTo("java");
    assertThat(table.path("pendingPlans").path("compaction").asInt()).isZero();

    long unscheduled = table.path("backlog").path("logFileUnscheduledBytes").asLong();
    assertThat(sumOfFileGroups("Log_File_Unscheduled")).isEqualTo(unscheduled);
    assertThat(sumOfFileGroups("Log_File_Scheduled")).isZero();
    assertThat(metrics()).containsEntry("tsd_log_file_unscheduled_bytes{table=\"orders\"}", (double) unscheduled)
        .containsEntry("tsd_log_file_scheduled_bytes{table=\"orders\"}", 0.0)
        .containsEntry("tsd_pending_plans{service=\"compaction\",table=\"orders\"}", 0.0)
        .containsEntry("tsd_tables", 1.0)
        // Nothing was cleaned yet, so the figures exist; the table view and the gauges tell the same.
        .containsEntry("tsd_cleanable_files{table=\"orders\"}", table.path("backlog").path("cleanableFiles")
            .asDouble(-1))
        .containsEntry("tsd_cleanable_bytes{table=\"orders\"}", table.path("backlog").path("cleanableBytes")
            .asDouble(-1));

    JsonNode list = api.get("/api/v1/tables").json();
    assertThat(list).hasSize(1);
    assertThat(list.get(0).path("id").asText()).isEqualTo(TABLE);
    assertThat(list.get(0).has("effectivePolicy")).isFalse();
  }

  @Test
  @Order(2)
  void fileGroupsListEverySliceWithHudiColumns() {
    JsonNode rows = api.get("/api/v1/tables/" + TABLE + "/file-groups?partition=p1").json();
    assertThat(rows.size()).isPositive();
    for (JsonNode row : rows) {
      assertThat(row.path("Partition_Path").asText()).isEqualTo("p1");
      assertThat(row.path("Log_File_Size").asLong())
          .isEqualTo(row.path("Log_File_Scheduled").asLong() + row.path("Log_File_Unscheduled").asLong());
      assertThat(row.path("Base_File_Path").asText()).contains("/p1/").endsWith(".parquet");
    }
  }

  @Test
  @Order(3)
  void errorsAreJsonAndNameWhatWasWrong() {
    assertError(api.get("/api/v1/tables/nope"), 404, "No table with id 'nope'");
    assertError(api.get("/api/v1/tables/" + TABLE + "/plans/20990101000000000"), 404,
        "Table 'orders' has no plan at instant '20990101000000000'");
    assertError(api.post("/api/v1/tables/" + TABLE + "/schedule", "{}"), 400,
        "service: is required, one of compaction, clustering, clean, index");
    assertError(api.post("/api/v1/tables/" + TABLE + "/schedule", "{\"service\":\"compacton\"}"), 400,
        "service: Unknown service 'compacton', expected one of compaction, clustering, clean, archive, index");
    Reply badType = api.post("/api/v1/tables/" + TABLE + "/schedule", "{\"service\":\"compaction\",\"dryRun\":[1]}");
    assertThat(badType.status()).isEqualTo(400);
    assertThat(badType.json().path("message").asText()).startsWith("dryRun: ");
    assertError(api.post("/api/v1/tables/" + TABLE + "/schedule", "{\"service\":\"compaction\"," + "\"x\":\""
        + "a".repeat(5000) + "\"}"), 413, "Request body is larger than 4096 bytes");
    assertError(api.post("/api/v1/tables/" + TABLE + "/plans/20990101000000000/execute", null), 404,
        "Table 'orders' has no pending plan at instant '20990101000000000'");
    assertError(api.post("/api/v1/tables/" + TABLE + "/plans/20990101000000000/execute", "{\"engine\":\"flink\"}"),
        400, "engine: unknown engine 'flink'; expected one of java, spark");
    assertError(api.post("/api/v1/tables/" + TABLE + "/plans/20990101000000000/execute", "{\"engin\":\"spark\"}"),
        400, "unknown field 'engin'; expected engine");
    assertError(api.delete("/api/v1/runs/abc"), 400, "runId: 'abc' is not a number");
    assertError(api.delete("/api/v1/tables/nope/indexes/record_index"), 404, "No table with id 'nope'");
    Reply drop = api.delete("/api/v1/tables/" + TABLE + "/indexes/record_index");
    assertError(drop, 405, "Dropping the metadata index 'record_index' of table 'orders' is not supported: "
        + "Hudi 1.2.0's Java engine cannot drop metadata partitions, and hudi-tsd never drops an index; drop it "
        + "with Spark SQL (DROP INDEX) after removing it from the table's indexes in tsd.yml");
    assertError(api.delete("/api/v1/runs/99999"), 404, "No queued run with id 99999");
    assertError(api.post("/api/v1/tables/" + TABLE + "/schedule", "{\"service\":\"compaction\",\"dryrun\":true}"),
        400, "unknown field 'dryrun'; expected dryRun, service");
    assertError(api.delete("/api/v1/tables/" + TABLE + "/indexes/bogus"), 400,
        "kind: 'bogus' is not a metadata index; expected one of column_stats, bloom_filters, record_index, "
            + "partition_stats");
    Reply notFound = api.get("/api/v1/nothing-here");
    assertThat(notFound.status()).isEqualTo(404);
    assertThat(notFound.body()).doesNotContain("Exception").doesNotContain("\tat ");
  }

  /** Requests Jetty rejects before Jersey sees them, sent byte for byte (HTTP clients normalize these paths). */
  @Test
  @Order(3)
  void requestsJettyRejectsAnswerTheJsonErrorBodyForEveryMethod() {
    assertJsonError(api.raw("DELETE", "/api/v1/runs/a%2Fb", ""), 400, "Ambiguous URI path separator");
    assertJsonError(api.raw("GET", "/api/v1/tables/..%2F..%2Fetc", ""), 400, "Ambiguous URI path separator");
    assertJsonError(api.raw("GET", "/api/v1/tables/%2e%2e/indexes", ""), 400, "Ambiguous URI path segment");
    assertJsonError(api.raw("DELETE", "/api/v1/runs/%00", ""), 400, "Bad Request");
    assertJsonError(api.raw("POST", "/api/v1/tables/a%5Cb/pause", ""), 400, "Suspicious Path Character");
    assertJsonError(api.raw("GET", "/api/v1/runs/" + "a".repeat(20_000), ""), 414, "URI Too Long");
    assertJsonError(api.raw("GET", "/api/v1/runs", "X-Filler: " + "b".repeat(20_000) + "\r\n"), 431,
        "Request Header Fields Too Large");
  }

  @Test
  @Order(4)
  void mutationsNeedTheBearerToken() {
    Reply missing = api.postWithToken("/api/v1/tables/" + TABLE + "/pause", null, null);
    assertError(missing, 401, "A bearer token is required (Authorization: Bearer <token>)");
    assertError(api.postWithToken("/api/v1/tables/" + TABLE + "/pause", null, "wrong"), 403,
        "The bearer token is not valid");
    assertThat(api.get("/api/v1/tables/" + TABLE).json().path("paused").asBoolean()).isFalse();
    assertThat(api.get("/api/v1/runs").status()).isEqualTo(200);
  }

  @Test
  @Order(5)
  void dryRunShowsThePlanWithoutWritingIt() throws IOException {
    Set<String> before = timelineFiles();
    Reply reply = api.post("/api/v1/tables/" + TABLE + "/schedule", "{\"service\":\"compaction\",\"dryRun\":true}");
    assertThat(reply.status()).isEqualTo(200);
    JsonNode plan = reply.json().path("plan");
    assertThat(plan.path("state").asText()).isEqualTo("preview");
    assertThat(plan.path("compaction").size()).isPositive();
    long planned = 0;
    for (JsonNode operation : plan.path("compaction")) {
      assertThat(operation.path("logFiles").size()).isPositive();
      planned += operation.path("logBytes").asLong();
    }
    assertThat(planned).isEqualTo(sumOfFileGroups("Log_File_Unscheduled"));
    assertThat(timelineFiles()).isEqualTo(before);
  }

  @Test
  @Order(6)
  void scheduledBytesFollowAWriterScheduledPlanAndFallAfterItRuns() throws Exception {
    assertThat(api.post("/api/v1/tables/" + TABLE + "/pause", null).json().path("paused").asBoolean()).isTrue();
    assertError(api.post("/api/v1/tables/" + TABLE + "/schedule", "{\"service\":\"compaction\"}"), 409,
        "Table 'orders' is paused; resume it first");
    long backlog = sumOfFileGroups("Log_File_Unscheduled");

    String instant = scheduleCompactionAsAWriter();
    await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> assertThat(metrics())
        .containsEntry("tsd_log_file_scheduled_bytes{table=\"orders\"}", (double) backlog)
        .containsEntry("tsd_log_file_unscheduled_bytes{table=\"orders\"}", 0.0)
        .containsEntry("tsd_pending_plans{service=\"compaction\",table=\"orders\"}", 1.0));
    assertThat(sumOfFileGroups("Log_File_Scheduled")).isEqualTo(backlog);
    JsonNode plan = api.get("/api/v1/tables/" + TABLE + "/plans/" + instant).json();
    assertThat(plan.path("state").asText()).isEqualTo("requested");
    // Paused: the plan is known but not executed.
    assertThat(api.get("/api/v1/tables/" + TABLE + "/runs").json()).noneMatch(run ->
        run.path("status").asText().equals("succeeded"));

    api.post("/api/v1/tables/" + TABLE + "/resume", null);
    await().atMost(Duration.ofSeconds(120)).untilAsserted(() ->
        assertThat(api.get("/api/v1/tables/" + TABLE + "/plans/" + instant).json().path("state").asText())
            .isEqualTo("completed"));
    await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> assertThat(metrics())
        .containsEntry("tsd_log_file_scheduled_bytes{table=\"orders\"}", 0.0)
        .containsEntry("tsd_log_file_unscheduled_bytes{table=\"orders\"}", 0.0)
        .containsEntry("tsd_pending_plans{service=\"compaction\",table=\"orders\"}", 0.0)
        .containsEntry("tsd_runs_total{engine=\"java\",result=\"succeeded\",service=\"compaction\","
            + "table=\"orders\"}", 1.0)
        .containsEntry("tsd_runs_total{engine=\"java\",result=\"failed\",service=\"compaction\","
            + "table=\"orders\"}", 0.0));
    JsonNode runs = api.get("/api/v1/tables/" + TABLE + "/runs").json();
    assertThat(runs).anySatisfy(run -> {
      assertThat(run.path("instant").asText()).isEqualTo(instant);
      assertThat(run.path("status").asText()).isEqualTo("succeeded");
      assertThat(run.path("bytesIn").asLong()).isEqualTo(backlog);
      assertThat(run.path("engine").asText()).isEqualTo("java");
      assertThat(run.path("heapEstimateBasis").isTextual()).isTrue();
      assertThat(run.path("sparkAppId").isNull()).as("no Spark application for a run in the daemon").isTrue();
    });
    assertThat(api.get("/api/v1/tables/" + TABLE).json().path("services").path("compaction").path("lastSuccess")
        .isTextual()).isTrue();
  }

  @Test
  @Order(7)
  void writersHandPlansOverThroughTheTableServiceManagerEndpoint() throws Exception {
    api.post("/api/v1/tables/" + TABLE + "/pause", null);
    try (SampleTable table = SampleTable.open(tablePath, "orders", HoodieTableType.MERGE_ON_READ, 9, Map.of())) {
      table.upsert(updates(100, 160, 4));
    }
    String instant = scheduleCompactionAsAWriter();
    Reply reply = api.get("/v1/hoodie/service/compact?basepath=" + tablePath + "&instant=" + instant
        + ",20990101000000000&table_name=orders&action=REQUEST");
    assertThat(reply.status()).isEqualTo(200);
    assertThat(reply.json().path("queued").get(0).asText()).isEqualTo(instant);
    assertThat(reply.json().path("ignored").get(0).asText()).isEqualTo("20990101000000000");
    api.post("/api/v1/tables/" + TABLE + "/resume", null);
    await().atMost(Duration.ofSeconds(120)).untilAsserted(() ->
        assertThat(api.get("/api/v1/tables/" + TABLE + "/plans/" + instant).json().path("state").asText())
            .isEqualTo("completed"));

    assertError(api.get("/v1/hoodie/service/compact?basepath=/elsewhere/t&instant=1"), 404,
        "Table at file:/elsewhere/t is not serviced by this daemon: not configured, not under a discovery root, and "
            + "tableServiceManager.registerUnknownTables is off");
    assertError(api.get("/v1/hoodie/service/index?basepath=" + tablePath), 404,
        "Unknown action 'index', expected one of compact, cluster, clean");
  }

  @Test
  @Order(8)
  void metricsParseStrictlyAndHealthEndpointsAnswer() {
    Map<String, Double> samples = metrics();
    assertThat(samples).containsKeys("tsd_worker_queued", "tsd_worker_running", "tsd_worker_rejected_total",
        "tsd_file_groups{table=\"orders\"}", "tsd_log_files{table=\"orders\"}",
        "tsd_small_base_files{table=\"orders\"}", "tsd_oldest_pending_plan_age_seconds{table=\"orders\"}",
        "tsd_delta_commits_since_compaction{table=\"orders\"}",
        "tsd_last_success_timestamp_seconds{service=\"compaction\",table=\"orders\"}",
        "tsd_poll_duration_seconds_count", "jvm_memory_used_bytes{area=\"heap\"}",
        "tsd_lock_wait_seconds_count{table=\"orders\"}", "tsd_lock_held_seconds_count{table=\"orders\"}",
        "tsd_clustering_binary_copy_groups_total", "tsd_clustering_binary_copy_fallbacks_total{reason=\"log_files\"}");
    assertThat(admin.get("/live").status()).isEqualTo(200);
    assertThat(admin.get("/ready").status()).isEqualTo(200);
    Reply health = admin.get("/healthcheck");
    assertThat(health.status()).isEqualTo(200);
    assertThat(health.json().path("tables").path("healthy").asBoolean()).isTrue();
    assertThat(health.json().path("worker-pool").path("message").asText()).startsWith("workers=2/2");
  }

  @Test
  @Order(3)
  void indexesShowWhatTheTableHasAndNothingIsPlannedWhenNoneIsWanted() {
    JsonNode indexes = api.get("/api/v1/tables/" + TABLE + "/indexes").json();
    assertThat(indexes.path("wanted")).isEmpty();
    assertThat(indexes.path("built").toString()).isEqualTo("[\"files\"]");
    assertThat(indexes.path("building")).isEmpty();
    assertThat(indexes.path("missing")).isEmpty();
    assertThat(indexes.path("plans")).isEmpty();
    Reply preview = api.post("/api/v1/tables/" + TABLE + "/schedule", "{\"service\":\"index\",\"dryRun\":true}");
    assertThat(preview.status()).isEqualTo(200);
    assertThat(preview.json().path("message").asText()).isEqualTo("nothing to plan");
  }

  @Test
  @Order(9)
  void openApiDocumentCoversEveryServedPath() throws Exception {
    Reply reply = api.get("/api/v1/openapi.yaml");
    assertThat(reply.status()).isEqualTo(200);
    JsonNode document = new ObjectMapper(new YAMLFactory()).readTree(reply.body());
    Set<String> documented = new TreeSet<>();
    for (Iterator<String> names = document.path("paths").fieldNames(); names.hasNext(); ) {
      documented.add(names.next());
    }
    Set<String> served = new TreeSet<>();
    for (Class<?> resource : List.of(TablesResource.class, RunsResource.class, TableServiceManagerResource.class,
        OpenApiResource.class, IndexesResource.class, CommitCallbackResource.class, TableListResource.class,
        BacklogSeriesResource.class)) {
      String root = resource.getAnnotation(Path.class).value();
      served.add(root);
      for (Method method : resource.getMethods()) {
        Path path = method.getAnnotation(Path.class);
        if (path != null) {
          served.add(root + (path.value().startsWith("/") ? "" : "/") + path.value());
        }
      }
    }
    served.remove("/v1/hoodie/service");
    assertThat(documented).isEqualTo(served);
  }

  /** The console's list and series: the table with its backlog, one sample per changed poll, and clear 400s. */
  @Test
  @Order(9)
  void theConsolesTableListAndBacklogSeriesAreServed() throws Exception {
    Reply page = api.get("/api/v1/table-list?sort=-logFileUnscheduledBytes&limit=10&q=ORD");
    assertThat(page.status()).isEqualTo(200);
    JsonNode json = new ObjectMapper().readTree(page.body());
    assertThat(json.path("total").asInt()).isEqualTo(1);
    assertThat(json.at("/items/0/id").asText()).isEqualTo(TABLE);
    assertThat(json.at("/items/0/tableType").asText()).isEqualTo("MERGE_ON_READ");
    assertThat(json.at("/items/0/polled").asBoolean()).isTrue();

    Reply badSort = api.get("/api/v1/table-list?sort=size");
    assertThat(badSort.status()).isEqualTo(400);
    assertThat(new ObjectMapper().readTree(badSort.body()).path("message").asText())
        .startsWith("sort: 'size' is not a sort key");
    Reply badLimit = api.get("/api/v1/table-list?limit=5000");
    assertThat(badLimit.status()).isEqualTo(400);
    assertThat(badLimit.body()).contains("limit: '5000' is not a whole number from 1 to 1000");

    Reply series = api.get("/api/v1/tables/" + TABLE + "/backlog-series");
    assertThat(series.status()).isEqualTo(200);
    JsonNode samples = new ObjectMapper().readTree(series.body()).path("samples");
    assertThat(samples.size()).isGreaterThanOrEqualTo(1);
    assertThat(samples.get(0).has("logFileUnscheduledBytes")).isTrue();
    assertThat(api.get("/api/v1/tables/nope/backlog-series").status()).isEqualTo(404);

    Reply console = api.get("/console/");
    assertThat(console.status()).isEqualTo(200);
    assertThat(console.body()).contains("console.js");
    assertThat(api.get("/console/lib/tabulator-tables/dist/js/tabulator.min.js").status()).isEqualTo(200);
    assertThat(api.get("/console/lib/unknown/x.js").status()).isEqualTo(404);
    assertThat(api.get("/console/.hidden.js").status()).isEqualTo(404);
  }

  /** The table runs compaction and clean only; a writer may still schedule clustering on it, which is its own. */
  @Test
  @Order(9)
  void plansOfAServiceDisabledOnTheTableAreNeverQueued() {
    String instant = scheduleClusteringAsAWriter();
    assertError(api.post("/api/v1/tables/" + TABLE + "/plans/" + instant + "/execute", null), 409,
        "Service clustering is not enabled on table 'orders'");
    Reply handover = api.get("/v1/hoodie/service/cluster?basepath=" + tablePath + "&instant=" + instant
        + "&table_name=orders");
    assertThat(handover.status()).isEqualTo(200);
    assertThat(handover.json().path("queued")).isEmpty();
    assertThat(handover.json().path("ignored").get(0).asText()).isEqualTo(instant);
    assertThat(handover.json().path("message").asText()).isEqualTo("clustering is not enabled on this table; "
        + "the daemon does not execute its plans");
    assertThat(api.get("/api/v1/runs").json()).noneMatch(run -> run.path("instant").asText().equals(instant));
    assertError(api.post("/api/v1/tables/" + TABLE + "/schedule", "{\"service\":\"clustering\"}"), 409,
        "Service clustering is not enabled on table 'orders'");
  }

  @Test
  @Order(10)
  void runHistorySurvivesARestart() throws Exception {
    Set<String> before = new HashSet<>();
    for (JsonNode run : api.get("/api/v1/runs").json()) {
      if (run.path("status").asText().equals("succeeded")) {
        before.add(run.path("service").asText() + "@" + run.path("instant").asText());
      }
    }
    assertThat(before).isNotEmpty();
    daemon.after();
    startDaemon();
    Set<String> after = new HashSet<>();
    for (JsonNode run : api.get("/api/v1/runs").json()) {
      after.add(run.path("service").asText() + "@" + run.path("instant").asText());
    }
    assertThat(after).containsAll(before);
  }

  private static String scheduleCompactionAsAWriter() {
    HudiTables tables = new HudiTables(new Configuration(), new HeartbeatSettings(1000, 1));
    ServicedTable table = new ServicedTable(TABLE, "file:" + tablePath, Set.of(ServiceType.COMPACTION),
        Duration.ofSeconds(1), Map.of("hoodie.compact.inline.max.delta.commits", "1"), MetadataIndexes.none());
    try (HoodieJavaWriteClient<HoodieAvroPayload> client = tables.writeClient(table)) {
      Option<String> instant = client.scheduleCompaction(Option.empty());
      assertThat(instant.isPresent()).as("the writer scheduled a compaction").isTrue();
      return instant.get();
    }
  }

  private static String scheduleClusteringAsAWriter() {
    HudiTables tables = new HudiTables(new Configuration(), new HeartbeatSettings(1000, 1));
    ServicedTable table = new ServicedTable(TABLE, "file:" + tablePath, Set.of(ServiceType.CLUSTERING),
        Duration.ofSeconds(1), Map.of("hoodie.clustering.inline.max.commits", "1",
        "hoodie.clustering.plan.strategy.hot.commits", "0", "hoodie.clustering.plan.strategy.hot.minutes", "0"),
        MetadataIndexes.none());
    try (HoodieJavaWriteClient<HoodieAvroPayload> client = tables.writeClient(table)) {
      Option<String> instant = client.scheduleClustering(Option.empty());
      assertThat(instant.isPresent()).as("the writer scheduled a clustering").isTrue();
      return instant.get();
    }
  }

  private static long sumOfFileGroups(String column) {
    long sum = 0;
    for (JsonNode row : api.get("/api/v1/tables/" + TABLE + "/file-groups").json()) {
      sum += row.path(column).asLong();
    }
    return sum;
  }

  private static Map<String, Double> metrics() {
    Reply reply = admin.get("/prometheus");
    assertThat(reply.status()).isEqualTo(200);
    return PrometheusText.parse(reply.body());
  }

  private static Set<String> timelineFiles() throws IOException {
    try (var files = Files.list(java.nio.file.Path.of(tablePath, ".hoodie", "timeline"))) {
      return new TreeSet<>(files.map(path -> path.getFileName().toString()).toList());
    }
  }

  private static void assertJsonError(Reply reply, int status, String message) {
    assertThat(reply.contentType()).as(reply.body()).startsWith("application/json");
    assertError(reply, status, message);
  }

  private static void assertError(Reply reply, int status, String message) {
    assertThat(reply.status()).as(reply.body()).isEqualTo(status);
    assertThat(reply.json().path("code").asInt()).isEqualTo(status);
    assertThat(reply.json().path("message").asText()).isEqualTo(message);
  }
}
