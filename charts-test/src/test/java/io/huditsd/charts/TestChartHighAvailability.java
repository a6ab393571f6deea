package io.huditsd.charts;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.dropwizard.testing.DropwizardTestSupport;
import io.huditsd.api.InProcessDaemonAwaits;
import io.huditsd.api.TsdApplication;
import io.huditsd.api.demo.SampleRow;
import io.huditsd.api.demo.SampleTable;
import io.huditsd.config.TsdConfiguration;
import org.apache.curator.test.TestingServer;
import org.apache.hudi.common.model.HoodieTableType;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The chart's HA example (examples/zookeeper-ha.yaml) on a real ZooKeeper: the one tsd.yml Helm renders for every
 * pod starts two replicas, which split the tables between them, each table owned by
 * exactly one. What differs from the cluster: the ZooKeeper address, named tables, ports, files, a 1 s poll interval,
 * and the replica ids: a pod's default id is its hostname (the pod's name) and pid, which two replicas in one JVM
 * share, so each gets the id its pod would have.
 */
class TestChartHighAvailability {
  private static final List<String> TABLES = List.of("orders", "payments", "refunds", "shipments");
  private static final List<String> PODS = List.of("tsd-hudi-tsd-6f7c9d8b4-k2x7q-41", "tsd-hudi-tsd-6f7c9d8b4-x5r2c-41");
  private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  private static TestingServer zookeeper;
  private static Rendered rendered;
  private static final Map<String, DropwizardTestSupport<TsdConfiguration>> replicas = new LinkedHashMap<>();

  @BeforeAll
  static void start() throws Exception {
    InProcessDaemonAwaits.ignoreOtherThreadsExceptions();
    Path work = Files.createTempDirectory("tsd-chart-ha");
    zookeeper = new TestingServer(true);
    Path root = Files.createDirectories(work.resolve("warehouse"));
    for (String name : TABLES) {
      try (SampleTable table = SampleTable.open(root.resolve(name).toString(), name,
          HoodieTableType.COPY_ON_WRITE, 9, Map.of())) {
        table.insert(List.of(SampleRow.of("k1", "p0", 1, "first", 1)));
      }
    }
    // Tables named rather than discovered: a discovered table's id ends in a hash of its path, a temporary
    // directory here, and which replica a table goes to depends on its id: these ids and pod names split two and two.
    StringBuilder tables = new StringBuilder("config:\n  discovery: null\n  services: [clean]\n  tables:\n");
    for (String name : TABLES) {
      tables.append("    - {path: ").append(root.resolve(name)).append(", id: ").append(name).append("}\n");
    }
    Path values = Files.writeString(work.resolve("tables.yaml"), tables);
    rendered = HelmChart.render(List.of(HelmChart.example("zookeeper-ha.yaml"), values), Map.of(
        "zookeeper.connect", zookeeper.getConnectString(),
        "config.polling.interval", "1s"));
    for (String pod : PODS) {
      ObjectNode config = (ObjectNode) rendered.daemonConfig();
      ((ObjectNode) config.path("ha")).put("replicaId", pod);
      ((ObjectNode) config.path("auth")).remove("tokenFile");
      ((ObjectNode) config.path("history")).put("file", work.resolve(pod + "-history.jsonl").toString());
      ((ObjectNode) config.path("server").path("applicationConnectors").get(0)).put("port", 0);
      ((ObjectNode) config.path("server").path("adminConnectors").get(0)).put("port", 0);
      ((ObjectNode) config.path("logging")).put("level", "WARN");
      Path configFile = work.resolve(pod + ".yml");
      HelmChart.YAML.writeValue(configFile.toFile(), config);
      DropwizardTestSupport<TsdConfiguration> replica = new DropwizardTestSupport<>(TsdApplication.class,
          configFile.toString());
      replica.before();
      replicas.put(pod, replica);
    }
  }

  @AfterAll
  static void stop() throws Exception {
    Awaitility.reset();
    replicas.values().forEach(DropwizardTestSupport::after);
    if (zookeeper != null) {
      zookeeper.close();
    }
  }

  @Test
  void everyPodGetsTheSameHaSectionAndAnIdOfItsOwn() {
    JsonNode ha = rendered.daemonConfig().path("ha");
    assertThat(ha.path("zookeeper").asText()).isEqualTo(zookeeper.getConnectString());
    assertThat(ha.path("basePath").asText()).isEqualTo("/hudi-tsd");
    assertThat(ha.path("sessionTimeout").asText()).isEqualTo("30s");
    // One ConfigMap for every pod: an id in it would be every replica's.
    assertThat(ha.has("replicaId")).isFalse();
    assertThat(rendered.one("PodDisruptionBudget").path("spec").path("maxUnavailable").asInt()).isEqualTo(1);
  }

  @Test
  void theTwoReplicasSplitTheTables() throws Exception {
    await("both replicas agree on one owner per table, and both own some").atMost(Duration.ofMinutes(2))
        .pollInterval(Duration.ofMillis(500)).untilAsserted(() -> {
          Map<String, String> first = owners(PODS.get(0));
          assertThat(first).as("tables and owners on %s", PODS.get(0)).containsOnlyKeys(TABLES)
              .doesNotContainValue(null);
          assertThat(owners(PODS.get(1))).as("tables and owners on %s", PODS.get(1)).isEqualTo(first);
          assertThat(new HashSet<>(first.values())).containsExactlyInAnyOrderElementsOf(PODS);
        });
    // Each replica polls the tables it owns.
    Map<String, String> owners = owners(PODS.get(0));
    await().atMost(Duration.ofMinutes(1)).untilAsserted(() -> {
      for (String pod : PODS) {
        for (JsonNode table : tables(pod)) {
          if (owners.get(table.path("id").asText()).equals(pod)) {
            assertThat(table.path("lastPoll").isTextual()).as("polled by its owner %s: %s", pod, table).isTrue();
          }
        }
      }
    });
  }

  private static Map<String, String> owners(String pod) throws Exception {
    Map<String, String> owners = new TreeMap<>();
    for (JsonNode table : tables(pod)) {
      owners.put(table.path("id").asText(), table.path("owner").asText(null));
    }
    return owners;
  }

  private static JsonNode tables(String pod) throws Exception {
    HttpResponse<String> response = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
        + replicas.get(pod).getLocalPort() + "/api/v1/tables")).GET().build(),
        HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
    assertThat(response.statusCode()).isEqualTo(200);
    return HelmChart.YAML.readTree(response.body());
  }
}
