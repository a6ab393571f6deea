package io.huditsd.api;

import io.dropwizard.testing.DropwizardTestSupport;
import io.huditsd.api.RestClient.Reply;
import io.huditsd.config.TsdConfiguration;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The admin port of a real daemon with a token: its probes answer anyone, its tasks and dumps only the token; and
 * with Jetty's loggers raised to DEBUG through that task, the token reaches no log file, neither the daemon's (where
 * Jetty prints every header and raw request bytes) nor a request log whose format prints the headers.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class TestAdminAccess {
  private static final String TOKEN = "adm1n-t0ken-8c1f5e0b9a";
  private static final String CALLBACK_KEY = "cb-k3y-77aa41";

  private static Path dir;
  private static DropwizardTestSupport<TsdConfiguration> daemon;
  private static RestClient admin;
  private static RestClient adminWithToken;

  @BeforeAll
  static void start() throws Exception {
    InProcessDaemonAwaits.ignoreOtherThreadsExceptions();
    dir = Files.createTempDirectory("tsd-admin");
    Files.writeString(dir.resolve("token"), TOKEN + "\n");
    Path config = dir.resolve("tsd.yml");
    Files.writeString(config, """
        server:
          applicationConnectors: [{type: http, port: 0}]
          adminConnectors: [{type: http, port: 0}]
          requestLog:
            appenders:
              - type: file
                currentLogFilename: %s
                archive: false
                logFormat: '%%h "%%r" %%s auth=%%i{Authorization} key=%%i{HUDI-CALLBACK-KEY} headers=%%i'
        logging:
          level: INFO
          appenders:
            - type: file
              currentLogFilename: %s
              archive: false
              threshold: ALL
        history:
          file: %s
        auth:
          tokenFile: %s
        tableServiceManager:
          registerUnknownTables: true
        """.formatted(dir.resolve("requests.log"), dir.resolve("daemon.log"), dir.resolve("history.jsonl"),
        dir.resolve("token")));
    daemon = new DropwizardTestSupport<>(TsdApplication.class, config.toString());
    daemon.before();
    admin = new RestClient(adminBase(), null);
    adminWithToken = new RestClient(adminBase(), TOKEN);
  }

  @AfterAll
  static void stop() {
    Awaitility.reset();
    if (daemon != null) {
      daemon.after();
    }
  }

  private static String adminBase() {
    return "http://localhost:" + daemon.getAdminPort();
  }

  @Test
  @Order(1)
  void probesAnswerWithoutAToken() {
    assertThat(admin.get("/live").status()).isEqualTo(200);
    assertThat(admin.get("/ready").status()).isEqualTo(200);
    assertThat(admin.get("/healthcheck").status()).isEqualTo(200);
    Reply metrics = admin.get("/prometheus");
    assertThat(metrics.status()).isEqualTo(200);
    assertThat(metrics.body()).contains("tsd_worker_queued");
  }

  /**
   * What Prometheus sends decides the format: the text format 0.0.4 by default, OpenMetrics (ending in {@code # EOF},
   * counters and info metrics typed as such) when asked, as Prometheus 2.5+ does; neither shows _created series.
   */
  @Test
  @Order(1)
  void prometheusServesOpenMetricsWhenAskedForIt() {
    Reply text = admin.get("/prometheus");
    assertThat(text.contentType()).isEqualTo("text/plain; version=0.0.4; charset=utf-8");
    assertThat(text.body()).contains("# TYPE tsd_worker_rejected_total counter\n", "# TYPE tsd_build_info gauge\n")
        .doesNotContain("# EOF").doesNotContainPattern("(?m)^tsd_\\w+_created[ {]");

    Reply openMetrics = admin.getAccepting("/prometheus",
        "application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,"
            + "text/plain;version=0.0.4;q=0.5,*/*;q=0.1");
    assertThat(openMetrics.status()).isEqualTo(200);
    assertThat(openMetrics.contentType()).startsWith("application/openmetrics-text; version=1.0.0");
    assertThat(openMetrics.body()).endsWith("# EOF\n")
        .contains("# TYPE tsd_worker_rejected counter\n", "\ntsd_worker_rejected_total 0.0\n",
            "# TYPE tsd_build info\n", "\ntsd_build_info{version=\"")
        .doesNotContainPattern("(?m)^tsd_\\w+_created[ {]");
  }

  @Test
  @Order(2)
  void tasksAndDumpsNeedTheToken() throws Exception {
    Reply missing = admin.post("/tasks/log-level?logger=org.eclipse.jetty&level=DEBUG", null);
    assertThat(missing.status()).isEqualTo(401);
    assertThat(missing.json().path("message").asText())
        .isEqualTo("A bearer token is required (Authorization: Bearer <token>)");
    Reply wrong = admin.postWithToken("/tasks/log-level?logger=org.eclipse.jetty&level=DEBUG", null, "guess");
    assertThat(wrong.status()).isEqualTo(403);
    assertThat(wrong.json().path("message").asText()).isEqualTo("The bearer token is not valid");
    assertThat(admin.post("/tasks/gc", null).status()).isEqualTo(401);
    for (String dump : new String[] {"/threads", "/metrics", "/ping", "/", "/pprof", "/tasks/unknown"}) {
      assertThat(admin.get(dump).status()).as(dump).isEqualTo(401);
    }
    // Judged by where the request is dispatched, not by how its path starts.
    assertThat(admin.post("/live/../tasks/gc", null).status()).isEqualTo(401);
    assertThat(admin.post("/live/%2e%2e/tasks/gc", null).status()).isIn(400, 401);

    assertThat(send(adminBase() + "/threads", "GET", TOKEN).statusCode()).isEqualTo(200);
    assertThat(adminWithToken.post("/tasks/gc", null).status()).isEqualTo(200);
  }

  @Test
  @Order(3)
  void noLogLinePrintsTheTokenEvenWithJettyAtDebug() throws Exception {
    Reply raised = adminWithToken.post("/tasks/log-level?logger=org.eclipse.jetty&level=DEBUG", null);
    assertThat(raised.status()).as(raised.body()).isEqualTo(200);

    String api = "http://localhost:" + daemon.getLocalPort();
    // Fresh clients: Jetty's parsers read the DEBUG flag when a connection opens.
    assertThat(send(api + "/api/v1/tables/none/pause", "POST", TOKEN).statusCode()).isEqualTo(404);
    assertThat(send(api + "/api/v1/tables/none/pause", "POST", "not-the-" + TOKEN).statusCode()).isEqualTo(403);
    assertThat(send(adminBase() + "/tasks/gc", "POST", TOKEN).statusCode()).isEqualTo(200);
    assertThat(send(api + "/api/v1/tables/last-request", "GET", TOKEN).statusCode()).isEqualTo(404);
    await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
      assertThat(read("daemon.log")).contains("last-request");
      assertThat(read("requests.log")).contains("last-request");
    });
    adminWithToken.post("/tasks/log-level?logger=org.eclipse.jetty&level=INFO", null);
    daemon.after();
    daemon = null;

    String daemonLog = read("daemon.log");
    assertThat(daemonLog).doesNotContain(TOKEN, CALLBACK_KEY);
    assertThat(daemonLog).as("Jetty's DEBUG lines of the request headers were logged")
        .contains("parsedHeader(Authorization: [REDACTED])", "headerString=[Authorization], valueString=[[REDACTED]]",
            "headerString=[HUDI-CALLBACK-KEY], valueString=[[REDACTED]]", "<<<[REDACTED]>>>");
    String requestLog = read("requests.log");
    assertThat(requestLog).doesNotContain(TOKEN, CALLBACK_KEY);
    assertThat(requestLog).contains("auth=[REDACTED] key=[REDACTED] headers={Authorization=[REDACTED], ",
        "HUDI-CALLBACK-KEY=[REDACTED], ");
  }

  /** A request on a new connection, with a bearer token and a Hudi callback key. */
  private static HttpResponse<String> send(String url, String method, String token)
      throws IOException, InterruptedException {
    HttpRequest request = HttpRequest.newBuilder(URI.create(url)).method(method, HttpRequest.BodyPublishers.noBody())
        .header("Authorization", "Bearer " + token).header("HUDI-CALLBACK-KEY", CALLBACK_KEY)
        .timeout(Duration.ofSeconds(30)).build();
    return HttpClient.newHttpClient().send(request, HttpResponse.BodyHandlers.ofString());
  }

  private static String read(String file) throws IOException {
    return Files.readString(dir.resolve(file));
  }
}
