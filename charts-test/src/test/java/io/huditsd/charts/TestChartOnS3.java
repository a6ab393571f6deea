package io.huditsd.charts;

import com.amazonaws.SDKGlobalConfiguration;
import com.amazonaws.auth.AWSCredentialsProvider;
import com.amazonaws.auth.WebIdentityTokenCredentialsProvider;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.huditsd.api.PrometheusText;
import io.huditsd.api.TsdApplication;
import io.huditsd.testing.s3.S3MockServer;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

import java.io.ByteArrayInputStream;
import java.io.File;
import java.io.IOException;
import java.net.ConnectException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import javax.xml.parsers.DocumentBuilderFactory;

import static io.huditsd.charts.HelmChart.FULLNAME;
import static io.huditsd.charts.Rendered.byName;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The chart's S3 example (examples/cloud-credentials.yaml) against a real S3 server: the tsd.yml and core-site.xml
 * Helm renders start the daemon in a JVM of its own, with the core-site.xml first on its class path as the image's
 * launcher puts HADOOP_CONF_DIR, and the daemon polls and compacts an {@code s3a://} table on Adobe S3Mock that a
 * writer in another JVM wrote. What differs from the cluster: the ZooKeeper address, ports, file locations, a 1 s
 * poll interval, and S3Mock's endpoint and static keys; the example's own web-identity provider stays in the S3A
 * provider list (with the rendered AWS variables), so a provider class that the daemon's SDK does not have fails the
 * start. The variables themselves are checked against the names SDK v1 reads.
 */
class TestChartOnS3 {
  private static final String TABLE = "s3a://lake/warehouse/orders";
  private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  private static Path work;
  private static S3MockServer s3;
  private static TestingServer zookeeper;
  private static Rendered rendered;
  private static Process daemon;
  private static int apiPort;
  private static int adminPort;
  /** The AWS variables the chart sets on the daemon's container. */
  private static Map<String, String> awsEnvironment = Map.of();

  @BeforeAll
  static void start() throws Exception {
    work = Files.createTempDirectory("tsd-chart-s3");
    s3 = S3MockServer.start(work.resolve("s3"), "lake");
    zookeeper = new TestingServer(true);
    rendered = HelmChart.render(List.of(HelmChart.example("cloud-credentials.yaml")), Map.of(
        "zookeeper.connect", zookeeper.getConnectString(),
        "config.polling.interval", "1s",
        "config.hoodie.hoodie\\.compact\\.inline\\.max\\.delta\\.commits", "1"));

    // HADOOP_CONF_DIR: the rendered core-site.xml, with the test store's endpoint and keys added. S3A builds every
    // provider of its list when it opens the bucket and asks them in order: the static keys first, so the rendered
    // web-identity provider is built (a class the daemon's SDK lacks fails here) but never asked for credentials,
    // which would call STS, not on this machine.
    Map<String, String> coreSite = properties(rendered.named("ConfigMap", FULLNAME + "-hadoop").path("data")
        .path("core-site.xml").asText());
    String provider = coreSite.get("fs.s3a.aws.credentials.provider");
    coreSite.putAll(s3.s3aProperties());
    coreSite.put("fs.s3a.aws.credentials.provider", s3.s3aProperties().get("fs.s3a.aws.credentials.provider")
        + "," + provider);
    Path confDir = Files.createDirectories(work.resolve("hadoop-conf"));
    Files.writeString(confDir.resolve("core-site.xml"), coreSiteXml(coreSite));
    // The rendered AWS variables, the token file moved to this machine.
    awsEnvironment = new LinkedHashMap<>();
    for (JsonNode variable : rendered.daemonContainer().path("env")) {
      String name = variable.path("name").asText();
      if (name.startsWith("AWS_")) {
        awsEnvironment.put(name, variable.path("value").asText());
      }
    }
    Path tokenFile = Files.writeString(work.resolve("aws-token"), "not-a-real-token");
    awsEnvironment.put(SDKGlobalConfiguration.AWS_WEB_IDENTITY_ENV_VAR, tokenFile.toString());

    JsonNode hoodie = rendered.daemonConfig().path("hoodie");
    Process writer = java(confDir, "writer", S3SampleWriter.class.getName(), TABLE,
        hoodie.path("hoodie.write.lock.zookeeper.url").asText(),
        hoodie.path("hoodie.write.lock.zookeeper.base_path").asText());
    assertThat(writer.waitFor(5, TimeUnit.MINUTES)).as("writer done; log " + work.resolve("writer.log")).isTrue();
    assertThat(writer.exitValue()).as("writer's exit; log " + work.resolve("writer.log")).isZero();

    ObjectNode config = (ObjectNode) rendered.daemonConfig();
    ((ObjectNode) config.path("history")).put("file", work.resolve("history.jsonl").toString());
    ((ObjectNode) config.path("logging")).put("level", "WARN");
    // A port found free can be taken by another process's outgoing connection (same ephemeral range) before the
    // daemon binds it, seconds later: a daemon that died of that is started again on other ports (seen in CI).
    for (int attempt = 1; ; attempt++) {
      apiPort = freePort();
      adminPort = freePort();
      ((ObjectNode) config.path("server").path("applicationConnectors").get(0)).put("port", apiPort)
          .put("bindHost", "127.0.0.1");
      ((ObjectNode) config.path("server").path("adminConnectors").get(0)).put("port", adminPort)
          .put("bindHost", "127.0.0.1");
      Path configFile = work.resolve("tsd.yml");
      HelmChart.YAML.writeValue(configFile.toFile(), config);
      daemon = java(confDir, "daemon", TsdApplication.class.getName(), "server", configFile.toString());
      if (attempt == 3 || !diedOfAPortInUse(daemon, work.resolve("daemon.log"))) {
        return;
      }
    }
  }

  /** Waits until {@code daemon} listens on its API port or ends; whether it ended because a port was taken. */
  private static boolean diedOfAPortInUse(Process daemon, Path log) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
    while (daemon.isAlive() && System.nanoTime() < deadline) {
      try (java.net.Socket socket = new java.net.Socket("127.0.0.1", apiPort)) {
        return false;
      } catch (IOException notYet) {
        daemon.waitFor(500, TimeUnit.MILLISECONDS);
      }
    }
    return !daemon.isAlive() && Files.readString(log).contains("Address already in use");
  }

  @AfterAll
  static void stop() throws Exception {
    if (daemon != null) {
      daemon.destroy();
      if (!daemon.waitFor(30, TimeUnit.SECONDS)) {
        daemon.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      }
    }
    if (zookeeper != null) {
      zookeeper.close();
    }
    if (s3 != null) {
      s3.close();
    }
  }

  @Test
  void theRenderedConfigurationPollsAndCompactsTheS3Table() {
    // Connection refused until the daemon listens.
    await().atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(500)).ignoreException(ConnectException.class)
        .untilAsserted(TestChartOnS3::assertPolledWithoutFailure);
    await().atMost(Duration.ofMinutes(3)).pollInterval(Duration.ofSeconds(1)).untilAsserted(() ->
        assertThat(PrometheusText.parse(get(adminPort, "/prometheus").body()))
            .as("daemon log " + work.resolve("daemon.log"))
            .hasEntrySatisfying("tsd_runs_total{engine=\"java\",result=\"succeeded\",service=\"compaction\","
                + "table=\"orders\"}", runs -> assertThat(runs).isGreaterThanOrEqualTo(1.0)));
  }

  private static void assertPolledWithoutFailure() throws Exception {
    assertThat(daemon.isAlive()).as("daemon alive; log " + work.resolve("daemon.log")).isTrue();
    JsonNode table = tables().get(0);
    assertThat(table.path("basePath").asText()).isEqualTo(TABLE);
    assertThat(table.path("tableType").asText()).isEqualTo("MERGE_ON_READ");
    assertThat(table.path("lastPoll").isTextual()).as("polled: " + table).isTrue();
    assertThat(table.path("consecutiveFailures").asInt()).as(table.toString()).isZero();
  }

  /**
   * The example's credentials are web identity as the AWS SDK v1 that hadoop-aws 3.3.6 uses reads it: the SDK v1
   * provider class, the environment variable names it reads, and a projected token file where the variable says.
   */
  @Test
  void theWebIdentityExampleIsWhatTheSdkV1Reads() throws Exception {
    Map<String, String> coreSite = properties(rendered.named("ConfigMap", FULLNAME + "-hadoop").path("data")
        .path("core-site.xml").asText());
    String provider = coreSite.get("fs.s3a.aws.credentials.provider");
    assertThat(provider).isEqualTo(WebIdentityTokenCredentialsProvider.class.getName());
    assertThat(AWSCredentialsProvider.class.isAssignableFrom(Class.forName(provider))).isTrue();

    JsonNode container = rendered.daemonContainer();
    assertThat(byName(container.path("env"), SDKGlobalConfiguration.AWS_ROLE_ARN_ENV_VAR).path("value").asText())
        .startsWith("arn:aws:iam::");
    String tokenFile = byName(container.path("env"), SDKGlobalConfiguration.AWS_WEB_IDENTITY_ENV_VAR)
        .path("value").asText();
    assertThat(tokenFile).isNotEmpty();
    List<String> projected = new ArrayList<>();
    for (JsonNode mount : container.path("volumeMounts")) {
      JsonNode volume = byName(rendered.podSpec().path("volumes"), mount.path("name").asText());
      for (JsonNode source : volume.path("projected").path("sources")) {
        JsonNode token = source.path("serviceAccountToken");
        if (!token.isMissingNode()) {
          assertThat(token.path("audience").asText()).isEqualTo("sts.amazonaws.com");
          projected.add(mount.path("mountPath").asText() + "/" + token.path("path").asText());
        }
      }
    }
    assertThat(projected).containsExactly(tokenFile);
  }

  private static List<JsonNode> tables() throws Exception {
    HttpResponse<String> response = get(apiPort, "/api/v1/tables");
    assertThat(response.statusCode()).isEqualTo(200);
    List<JsonNode> tables = new ArrayList<>();
    HelmChart.YAML.readTree(response.body()).forEach(tables::add);
    assertThat(tables).hasSize(1);
    return tables;
  }

  private static HttpResponse<String> get(int port, String path) throws Exception {
    return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).GET().build(),
        HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
  }

  /**
   * {@code main} in a JVM of its own on this test's class path behind {@code confDir}, as bin/tsd runs the daemon
   * with HADOOP_CONF_DIR; output to {@code <work>/<name>.log}. Its AWS variables are the rendered ones, none of
   * this machine's.
   */
  private static Process java(Path confDir, String name, String main, String... arguments) throws IOException {
    List<String> command = new ArrayList<>(List.of(
        Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx1g",
        "-Djdk.attach.allowAttachSelf=true", "-Djol.skipHotspotSAAttach=true",
        "-cp", confDir + File.pathSeparator + System.getProperty("java.class.path"), main));
    command.addAll(List.of(arguments));
    ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true)
        .redirectOutput(work.resolve(name + ".log").toFile());
    builder.environment().keySet().removeIf(variable -> variable.startsWith("AWS_"));
    builder.environment().putAll(awsEnvironment);
    builder.environment().put("HADOOP_USER_NAME", "tsd");
    return builder.start();
  }

  private static Map<String, String> properties(String xml) throws Exception {
    NodeList properties = DocumentBuilderFactory.newInstance().newDocumentBuilder()
        .parse(new ByteArrayInputStream(xml.strip().getBytes(StandardCharsets.UTF_8)))
        .getElementsByTagName("property");
    Map<String, String> keys = new LinkedHashMap<>();
    for (int i = 0; i < properties.getLength(); i++) {
      Element property = (Element) properties.item(i);
      keys.put(property.getElementsByTagName("name").item(0).getTextContent().strip(),
          property.getElementsByTagName("value").item(0).getTextContent().strip());
    }
    return keys;
  }

  private static String coreSiteXml(Map<String, String> keys) {
    StringBuilder xml = new StringBuilder("<?xml version=\"1.0\"?>\n<configuration>\n");
    keys.forEach((key, value) -> xml.append("  <property><name>").append(key).append("</name><value>")
        .append(value).append("</value></property>\n"));
    return xml.append("</configuration>\n").toString();
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }
}
