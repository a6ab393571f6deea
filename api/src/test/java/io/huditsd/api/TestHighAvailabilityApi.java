package io.huditsd.api;

import io.dropwizard.testing.DropwizardTestSupport;
import io.huditsd.api.RestClient.Reply;
import io.huditsd.api.demo.SampleRow;
import io.huditsd.api.demo.SampleTable;
import io.huditsd.config.TsdConfiguration;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingServer;
import org.apache.hudi.common.model.HoodieTableType;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

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
 * Two replicas of the real application in one JVM share a table through a real ZooKeeper server: both list it with
 * the same owner, metrics say which one owns it, the other refuses to schedule it (naming the owner), and when the
 * owner stops, the other owns the table.
 */
class TestHighAvailabilityApi {
  private static final String TABLE = "shared";

  private TestingServer zookeeper;
  private final Map<String, DropwizardTestSupport<TsdConfiguration>> replicas = new LinkedHashMap<>();

  @BeforeEach
  void start() throws Exception {
    InProcessDaemonAwaits.ignoreOtherThreadsExceptions();
    zookeeper = new TestingServer(new InstanceSpec(null, -1, -1, -1, true, -1, 500, -1), true);
    Path directory = Files.createTempDirectory("tsd-ha");
    String tablePath = directory.resolve(TABLE).toString();
    try (SampleTable table = SampleTable.open(tablePath, TABLE, HoodieTableType.MERGE_ON_READ, 9, Map.of())) {
      List<SampleRow> rows = new ArrayList<>();
      for (int i = 0; i < 30; i++) {
        rows.add(SampleRow.of("k" + i, "p0", 1, "first", i));
      }
      table.insert(rows);
    }
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
            interval: 1s
          services: [compaction]
          tables:
            - path: %s
              id: %s
          """.formatted(zookeeper.getConnectString(), replica, tablePath, TABLE));
      DropwizardTestSupport<TsdConfiguration> support = new DropwizardTestSupport<>(TsdApplication.class,
          config.toString());
      support.before();
      replicas.put(replica, support);
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
    Reply reply = api(replica).get("/api/v1/tables");
    assertThat(reply.status()).isEqualTo(200);
    return reply.json().get(0).path("owner").asText(null);
  }

  @Test
  void bothReplicasShowTheOwnerAndOnlyTheOwnerSchedules() {
    String owner = await("both replicas name the same owner").atMost(Duration.ofSeconds(60))
        .until(() -> {
          String first = owner("r1");
          return first != null && first.equals(owner("r2")) ? first : null;
        }, name -> name != null);
    String other = owner.equals("r1") ? "r2" : "r1";

    String series = "tsd_table_owned{table=\"" + TABLE + "\"}";
    await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
      assertThat(metrics(owner)).containsEntry(series, 1.0);
      assertThat(metrics(other)).containsEntry(series, 0.0);
    });
    assertThat(metrics(owner).get("tsd_ownership_changes_total")).isPositive();

    Reply refused = api(other).post("/api/v1/tables/" + TABLE + "/schedule", "{\"service\": \"compaction\"}");
    assertThat(refused.status()).as(refused.body()).isEqualTo(409);
    assertThat(refused.json().path("message").asText()).isEqualTo("Table '" + TABLE + "' is owned by replica '"
        + owner + "', not by replica '" + other + "'; ask its owner");
    Reply preview = api(other).post("/api/v1/tables/" + TABLE + "/schedule",
        "{\"service\": \"compaction\", \"dryRun\": true}");
    assertThat(preview.status()).as("a dry run writes nothing and is allowed anywhere: %s", preview.body())
        .isEqualTo(200);
    Reply health = new RestClient("http://localhost:" + replicas.get(other).getAdminPort(), null)
        .get("/healthcheck");
    assertThat(health.status()).as(health.body()).isEqualTo(200);

    // The owner stops cleanly and releases the table: the other replica owns it without waiting for a session.
    replicas.remove(owner).after();
    await("replica " + other + " owns the table").atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
      assertThat(owner(other)).isEqualTo(other);
      assertThat(metrics(other)).containsEntry(series, 1.0);
    });
  }
}
