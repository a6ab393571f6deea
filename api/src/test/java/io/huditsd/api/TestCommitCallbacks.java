package io.huditsd.api;

import com.fasterxml.jackson.databind.JsonNode;
import io.dropwizard.testing.DropwizardTestSupport;
import io.huditsd.api.RestClient.Reply;
import io.huditsd.api.demo.SampleRow;
import io.huditsd.api.demo.SampleTable;
import io.huditsd.config.TsdConfiguration;
import org.apache.hadoop.conf.Configuration;
import org.apache.hudi.callback.common.HoodieWriteCommitCallbackMessage;
import org.apache.hudi.callback.util.HoodieWriteCommitCallbackUtil;
import org.apache.hudi.common.model.HoodieTableType;
import org.apache.hudi.common.model.HoodieWriteStat;
import org.apache.hudi.common.table.HoodieTableMetaClient;
import org.apache.hudi.common.table.timeline.HoodieInstant;
import org.apache.hudi.storage.hadoop.HadoopStorageConfiguration;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Writers' commit callbacks against a real daemon polling every 10 minutes: Hudi's own Java writer, with
 * {@code hoodie.write.commit.callback.on=true}, sends its HTTP callback after each commit, and the compaction that a
 * commit makes due is scheduled seconds later instead of at the next poll. Refused callbacks (no key, wrong key, a
 * body that is not Hudi's message, an unknown table) change nothing; a flood gives about one poll per debounce
 * window.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class TestCommitCallbacks {
  private static final String KEY = "callback-s3cret";
  private static final String TABLE = "events";
  private static final String POLLS = "tsd_commit_callback_polls_total{table=\"" + TABLE + "\"}";
  private static final Duration DEBOUNCE = Duration.ofSeconds(1);

  private static Path dir;
  private static String tablePath;
  private static DropwizardTestSupport<TsdConfiguration> daemon;
  private static RestClient api;
  private static RestClient admin;
  private static String callbackUrl;
  private static final HttpClient HTTP = HttpClient.newHttpClient();

  @BeforeAll
  static void start() throws Exception {
    InProcessDaemonAwaits.ignoreOtherThreadsExceptions();
    dir = Files.createTempDirectory("tsd-callbacks");
    tablePath = dir.resolve(TABLE).toString();
    try (SampleTable table = SampleTable.open(tablePath, TABLE, HoodieTableType.MERGE_ON_READ, 9, Map.of())) {
      table.insert(rows(0, 90, 1));
    }
    Files.writeString(dir.resolve("callback-key"), KEY + "\n");
    Path config = dir.resolve("tsd.yml");
    Files.writeString(config, """
        server:
          applicationConnectors: [{type: http, port: 0}]
          adminConnectors: [{type: http, port: 0}]
        logging:
          level: WARN
        polling:
          interval: 10m
          maxBackoff: 10m
        workers:
          count: 1
          heartbeatInterval: 1s
        commitCallbacks:
          keyFile: %s
          debounce: 1s
        discovery:
          roots: [%s]
          interval: 1h
        tables:
          - path: %s
            id: %s
            services: [compaction]
            hoodie:
              hoodie.compact.inline.max.delta.commits: "3"
              tsd.engine.compaction: java
        """.formatted(dir.resolve("callback-key"), dir.resolve("lake"), tablePath, TABLE));
    daemon = new DropwizardTestSupport<>(TsdApplication.class, config.toString());
    daemon.before();
    api = new RestClient("http://localhost:" + daemon.getLocalPort(), null);
    admin = new RestClient("http://localhost:" + daemon.getAdminPort(), null);
    callbackUrl = "http://localhost:" + daemon.getLocalPort() + "/v1/hoodie/commit-callback";
    // The first table registered polls at once; the next scheduled poll is 10 minutes away.
    await().atMost(Duration.ofSeconds(60)).until(() -> !table().path("lastPoll").isNull());
  }

  @AfterAll
  static void stop() {
    Awaitility.reset();
    if (daemon != null) {
      daemon.after();
    }
  }

  @Test
  @Order(1)
  void aCommitThatMakesCompactionDueIsPlannedAtOnceNotAtTheNextPoll() throws Exception {
    Map<String, String> callbackKeys = Map.of(
        "hoodie.write.commit.callback.on", "true",
        "hoodie.write.commit.callback.http.url", callbackUrl,
        "hoodie.write.commit.callback.http.api.key", KEY);
    String firstPoll = table().path("lastPoll").asText();
    try (SampleTable writer = SampleTable.open(tablePath, TABLE, HoodieTableType.MERGE_ON_READ, 9, callbackKeys)) {
      writer.upsert(rows(0, 30, 2));
      // Two delta commits: the callback's poll finds nothing due.
      await().atMost(Duration.ofSeconds(30)).until(() -> metric(POLLS) >= 1
          && !table().path("lastPoll").asText().equals(firstPoll));
      assertThat(compactions()).isEmpty();

      writer.upsert(rows(30, 60, 3));
      // The third makes compaction due; polling alone would see it in up to 10 minutes.
      await().atMost(Duration.ofSeconds(30)).until(() -> !compactions().isEmpty());
    }
    // The delay is recorded once the poll that wrote the plan has given the table's lock back, which is after the
    // plan is on the timeline (and may be after its worker started it).
    await().atMost(Duration.ofSeconds(10))
        .until(() -> metric("tsd_commit_callback_schedule_delay_seconds_count") >= 1.0);
    Map<String, Double> metrics = metrics();
    assertThat(metrics.get("tsd_commit_callbacks_total{result=\"accepted\",table=\"" + TABLE + "\"}"))
        .isGreaterThanOrEqualTo(2.0);
  }

  @Test
  @Order(2)
  void refusedCallbacksCauseNoPoll() throws Exception {
    // Past the window the writer's last callback in the test before may have opened (and its closing poll), so
    // that a valid callback below polls at once unless a refused one opened a window.
    Thread.sleep(DEBOUNCE.multipliedBy(2).toMillis());
    double polls = metric(POLLS);
    String body = message(tablePath);
    assertThat(post(body, null).statusCode()).isEqualTo(401);
    HttpResponse<String> wrong = post(body, "not-the-key");
    assertThat(wrong.statusCode()).isEqualTo(403);
    assertThat(wrong.body()).contains("commit callback key is not valid").doesNotContain(KEY);
    HttpResponse<String> unknown = post(message(dir.resolve("elsewhere").toString()), KEY);
    assertThat(unknown.statusCode()).isEqualTo(404);
    assertThat(unknown.body()).contains("is not serviced by this daemon");
    HttpResponse<String> invalid = post("{\"commitTime\":\"yesterday\",\"basePath\":\"" + tablePath + "\"}", KEY);
    assertThat(invalid.statusCode()).isEqualTo(400);
    assertThat(invalid.body()).contains("commitTime");
    assertThat(post("[1,2]", KEY).statusCode()).isEqualTo(400);

    // Refused callbacks are answered before they reach the debouncer: none opened a window (a valid one now polls
    // at once) and none polled.
    assertThat(metric(POLLS)).isEqualTo(polls);
    HttpResponse<String> valid = post(body, KEY);
    assertThat(valid.statusCode()).isEqualTo(202);
    JsonNode answer = RestClientJson.parse(valid.body());
    assertThat(answer.path("table").asText()).isEqualTo(TABLE);
    assertThat(answer.path("poll").asText()).isEqualTo("now");
    await().atMost(Duration.ofSeconds(30)).until(() -> metric(POLLS) >= polls + 1);
    Map<String, Double> metrics = metrics();
    assertThat(metrics.get("tsd_commit_callbacks_total{result=\"unauthorized\",table=\"\"}")).isEqualTo(2.0);
    assertThat(metrics.get("tsd_commit_callbacks_total{result=\"unknown_table\",table=\"\"}")).isEqualTo(1.0);
    assertThat(metrics.get("tsd_commit_callbacks_total{result=\"invalid\",table=\"\"}")).isEqualTo(2.0);
  }

  @Test
  @Order(3)
  void aFloodOfCallbacksGivesAboutOnePollPerDebounceWindow() throws Exception {
    // Past the window the test before opened, so that the flood starts one.
    Thread.sleep(DEBOUNCE.multipliedBy(2).toMillis());
    double polls = metric(POLLS);
    String body = message(tablePath);
    long start = System.nanoTime();
    List<String> routes = new ArrayList<>();
    for (int i = 0; i < 60; i++) {
      HttpResponse<String> reply = post(body, KEY);
      assertThat(reply.statusCode()).isEqualTo(202);
      routes.add(RestClientJson.parse(reply.body()).path("poll").asText());
    }
    Duration flood = Duration.ofNanos(System.nanoTime() - start);
    assertThat(routes.get(0)).isEqualTo("now");
    assertThat(routes).contains("coalesced");
    // The flood's last window closes with one more poll.
    await().atMost(Duration.ofSeconds(30)).until(() -> metric(POLLS) >= polls + 2);
    long windows = flood.toMillis() / DEBOUNCE.toMillis() + 1;
    assertThat(metric(POLLS) - polls).isBetween(2.0, (double) windows + 1);
    assertThat(routes.stream().filter("now"::equals).count()).isLessThanOrEqualTo(windows);
  }

  @Test
  @Order(4)
  void aCommitOfManyFilesIsNotRefusedForItsSize() throws Exception {
    List<HoodieWriteStat> stats = new ArrayList<>();
    for (int i = 0; i < 400; i++) {
      HoodieWriteStat stat = new HoodieWriteStat();
      stat.setFileId("file-" + i);
      stat.setPartitionPath("p" + (i % 3));
      stat.setPath("p" + (i % 3) + "/file-" + i + ".parquet");
      stat.setNumWrites(1000);
      stats.add(stat);
    }
    String body = HoodieWriteCommitCallbackUtil.convertToJsonString(new HoodieWriteCommitCallbackMessage(
        "20261201000000000", TABLE, tablePath, stats));
    // Over auth.maxBodyBytes (64 KiB by default), which holds for the REST API's own bodies.
    assertThat(body.length()).isGreaterThan(64 * 1024);
    assertThat(post(body, KEY).statusCode()).isEqualTo(202);
  }

  @Test
  @Order(5)
  void aNewTableUnderADiscoveryRootIsServicedFromItsFirstCallbackNotTheNextScan() throws Exception {
    String newTable = dir.resolve("lake").resolve("clicks").toString();
    try (SampleTable table = SampleTable.open(newTable, "clicks", HoodieTableType.MERGE_ON_READ, 9, Map.of())) {
      table.insert(rows(0, 10, 1));
    }
    // The scan at start found an empty root; the next one is an hour away.
    assertThat(api.get("/api/v1/tables").json().findValuesAsText("basePath")).doesNotContain("file:" + newTable);
    HttpResponse<String> reply = post(message(newTable), KEY);
    assertThat(reply.statusCode()).isEqualTo(202);
    String id = RestClientJson.parse(reply.body()).path("table").asText();
    assertThat(id).startsWith("clicks");
    await().atMost(Duration.ofSeconds(30)).until(() -> !api.get("/api/v1/tables/" + id).json()
        .path("lastPoll").isNull());
    assertThat(api.get("/api/v1/tables/" + id).json().path("basePath").asText()).isEqualTo("file:" + newTable);
    // Outside the roots and not configured: still refused.
    assertThat(post(message(dir.resolve("outside").toString()), KEY).statusCode()).isEqualTo(404);
  }

  private static String message(String basePath) {
    return HoodieWriteCommitCallbackUtil.convertToJsonString(new HoodieWriteCommitCallbackMessage(
        "20261201000000000", TABLE, basePath, List.of()));
  }

  private static HttpResponse<String> post(String body, String key) throws Exception {
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(callbackUrl))
        .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body));
    if (key != null) {
      request.header("HUDI-CALLBACK-KEY", key);
    }
    return HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  private static List<String> compactions() {
    HoodieTableMetaClient metaClient = HoodieTableMetaClient.builder()
        .setConf(new HadoopStorageConfiguration(new Configuration())).setBasePath(tablePath).build();
    return metaClient.getActiveTimeline().filterPendingCompactionTimeline().getInstants().stream()
        .map(HoodieInstant::requestedTime).toList().isEmpty()
        ? metaClient.getActiveTimeline().getCommitTimeline().filterCompletedInstants().getInstants().stream()
            .filter(instant -> instant.getAction().equals("commit")).map(HoodieInstant::requestedTime).toList()
        : metaClient.getActiveTimeline().filterPendingCompactionTimeline().getInstants().stream()
            .map(HoodieInstant::requestedTime).toList();
  }

  private static JsonNode table() {
    Reply reply = api.get("/api/v1/tables/" + TABLE);
    assertThat(reply.status()).isEqualTo(200);
    return reply.json();
  }

  private static double metric(String series) {
    return metrics().getOrDefault(series, 0.0);
  }

  private static Map<String, Double> metrics() {
    Reply reply = admin.get("/prometheus");
    assertThat(reply.status()).isEqualTo(200);
    return PrometheusText.parse(reply.body());
  }

  private static List<SampleRow> rows(int from, int to, long ts) {
    List<SampleRow> rows = new ArrayList<>();
    for (int i = from; i < to; i++) {
      rows.add(SampleRow.of("k" + i, "p" + (i % 3), ts, "v" + ts, i));
    }
    return rows;
  }

  /** Parses a reply body. */
  private static final class RestClientJson {
    private static final com.fasterxml.jackson.databind.ObjectMapper MAPPER =
        new com.fasterxml.jackson.databind.ObjectMapper();

    static JsonNode parse(String body) throws Exception {
      return MAPPER.readTree(body);
    }
  }
}
