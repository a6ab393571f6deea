package io.huditsd.api;

import com.fasterxml.jackson.databind.JsonNode;
import io.dropwizard.testing.DropwizardTestSupport;
import io.huditsd.api.RestClient.Reply;
import io.huditsd.api.demo.SampleRow;
import io.huditsd.api.demo.SampleTable;
import io.huditsd.config.TsdConfiguration;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingServer;
import org.apache.hudi.callback.common.HoodieWriteCommitCallbackMessage;
import org.apache.hudi.callback.util.HoodieWriteCommitCallbackUtil;
import org.apache.hudi.common.model.HoodieTableType;
import org.apache.hudi.common.util.Option;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Two replicas of the real application in one JVM share a table through a real ZooKeeper server, both with commit
 * callbacks on and a poll interval far longer than the test: a writer's callback sent to the replica that does not
 * own the table is accepted there as forwarded, and the owner polls the table because of it.
 */
class TestHighAvailabilityCommitCallbacks {
  private static final String TABLE = "shared";
  private static final String KEY = "a-callback-key-for-the-test";

  private TestingServer zookeeper;
  private String tablePath;
  private final Map<String, DropwizardTestSupport<TsdConfiguration>> replicas = new LinkedHashMap<>();

  @BeforeEach
  void start() throws Exception {
    InProcessDaemonAwaits.ignoreOtherThreadsExceptions();
    zookeeper = new TestingServer(new InstanceSpec(null, -1, -1, -1, true, -1, 500, -1), true);
    Path directory = Files.createTempDirectory("tsd-ha-callbacks");
    tablePath = directory.resolve(TABLE).toString();
    insert(0);
    Path keyFile = Files.writeString(directory.resolve("callback-key"), KEY + "\n");
    for (String replica : List.of("r1", "r2")) {
      Path config = directory.resolve(replica + ".yml");
      Files.writeString(config, """
          server:
            applicationConnectors: [{type: http, port: 0}]
            adminConnectors: [{type: http, port: 0}]
          logging:
            level: WARN
          ha:
            zookeeper: "%s"
            replicaId: %s
            sessionTimeout: 3s
          polling:
            interval: 10m
          commitCallbacks:
            keyFile: %s
            debounce: 1s
          services: [compaction]
          tables:
            - path: %s
              id: %s
          """.formatted(zookeeper.getConnectString(), replica, keyFile, tablePath, TABLE));
      DropwizardTestSupport<TsdConfiguration> support = new DropwizardTestSupport<>(TsdApplication.class,
          config.toString());
      support.before();
      replicas.put(replica, support);
    }
  }

  /** A commit of 10 rows on the table, as a writer's; its instant time. */
  private String insert(int batch) throws IOException {
    try (SampleTable table = SampleTable.open(tablePath, TABLE, HoodieTableType.MERGE_ON_READ, 9, Map.of())) {
      List<SampleRow> rows = new ArrayList<>();
      for (int i = 0; i < 10; i++) {
        rows.add(SampleRow.of("k" + batch + "-" + i, "p0", 1, "batch " + batch, i));
      }
      return table.insert(rows);
    }
  }

  @AfterEach
  void stop() throws Exception {
    Awaitility.reset();
    replicas.values().forEach(DropwizardTestSupport::after);
    zookeeper.close();
  }

  private RestClient api(String replica) {
    return new RestClient("http://localhost:" + replicas.get(replica).getLocalPort(), null);
  }

  private Map<String, Double> metrics(String replica) {
    Reply reply = new RestClient("http://localhost:" + replicas.get(replica).getAdminPort(), null)
        .get("/prometheus");
    assertThat(reply.status()).isEqualTo(200);
    return PrometheusText.parse(reply.body());
  }

  private String owner(String replica) {
    return table(replica).path("owner").asText(null);
  }

  private JsonNode table(String replica) {
    Reply reply = api(replica).get("/api/v1/tables");
    assertThat(reply.status()).isEqualTo(200);
    return reply.json().get(0);
  }

  /** What Hudi's HoodieWriteCommitHttpCallbackClient sends: its own message, as its own util writes it. */
  private Reply callback(String replica, String commitTime) throws IOException, InterruptedException {
    String body = HoodieWriteCommitCallbackUtil.convertToJsonString(new HoodieWriteCommitCallbackMessage(
        commitTime, TABLE, tablePath, List.of(), Option.of("deltacommit"), Option.empty()));
    HttpRequest request = HttpRequest.newBuilder(
            URI.create("http://localhost:" + replicas.get(replica).getLocalPort() + "/v1/hoodie/commit-callback"))
        .header("Content-Type", "application/json")
        .header("HUDI-CALLBACK-KEY", KEY)
        .timeout(Duration.ofSeconds(30))
        .POST(HttpRequest.BodyPublishers.ofString(body))
        .build();
    HttpResponse<String> response = HttpClient.newHttpClient().send(request, HttpResponse.BodyHandlers.ofString());
    return new Reply(response.statusCode(), response.body(), response.headers().firstValue("Content-Type").orElse(""));
  }

  @Test
  void aCallbackToTheReplicaThatDoesNotOwnTheTableMakesTheOwnerPoll() throws Exception {
    String owner = await("both replicas name the same owner").atMost(Duration.ofSeconds(60))
        .until(() -> {
          String first = owner("r1");
          return first != null && first.equals(owner("r2")) ? first : null;
        }, name -> name != null);
    String other = owner.equals("r1") ? "r2" : "r1";
    String polls = "tsd_commit_callback_polls_total{table=\"" + TABLE + "\"}";
    assertThat(metrics(owner).getOrDefault(polls, 0.0)).as("polls caused by callbacks before any").isZero();

    // Whether the owner polled the table yet or not, its next scheduled poll is minutes away.
    String pollBefore = table(owner).path("lastPoll").asText(null);

    String commitTime = insert(1);
    Reply reply = callback(other, commitTime);

    assertThat(reply.status()).as(reply.body()).isEqualTo(202);
    assertThat(reply.json().path("table").asText()).isEqualTo(TABLE);
    assertThat(reply.json().path("commitTime").asText()).isEqualTo(commitTime);
    assertThat(reply.json().path("poll").asText()).isEqualTo("forwarded");
    assertThat(metrics(other)).containsEntry(
        "tsd_commit_callbacks_total{result=\"forwarded\",table=\"" + TABLE + "\"}", 1.0);
    // The poll interval is ten minutes: only the forwarded request makes the owner poll now.
    await("the owner polls " + TABLE + " for the forwarded callback").atMost(Duration.ofSeconds(30))
        .untilAsserted(() -> assertThat(metrics(owner).getOrDefault(polls, 0.0)).isEqualTo(1.0));
    await("the owner's table view shows the poll").atMost(Duration.ofSeconds(30))
        .untilAsserted(() -> assertThat(table(owner).path("lastPoll").asText(null)).isNotNull()
            .isNotEqualTo(pollBefore));
    assertThat(metrics(other).getOrDefault(polls, 0.0)).as("polls of the replica that does not own it").isZero();
  }
}
