package io.huditsd.charts;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.dropwizard.testing.DropwizardTestSupport;
import io.huditsd.api.InProcessDaemonAwaits;
import io.huditsd.api.PrometheusText;
import io.huditsd.api.TsdApplication;
import io.huditsd.api.demo.SampleRow;
import io.huditsd.api.demo.SampleTable;
import io.huditsd.config.TsdConfiguration;
import org.apache.hudi.common.model.HoodieTableType;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static io.huditsd.charts.HelmChart.FULLNAME;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The chart against the real daemon: the tsd.yml Helm renders starts the daemon (only ports, file locations and the
 * log level are changed for the test machine), the rendered probe paths answer on the admin port, the mounted token
 * protects the API and the admin port's dumps, and every metric and label that an alert or a dashboard panel
 * queries is in the daemon's /prometheus output after a compaction ran.
 */
class TestChartAgainstDaemon {
  private static final String TOKEN = "chart-token";
  /** Labels Prometheus adds to every scraped series; the daemon does not export them. */
  private static final Set<String> TARGET_LABELS = Set.of("job", "namespace", "instance", "pod", "service",
      "container", "endpoint");
  private static final Pattern LABEL = Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)=\"((?:[^\"\\\\]|\\\\.)*)\"");

  private static Path work;
  private static Rendered rendered;
  private static DropwizardTestSupport<TsdConfiguration> daemon;
  private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  @BeforeAll
  static void start() throws Exception {
    InProcessDaemonAwaits.ignoreOtherThreadsExceptions();
    work = Files.createTempDirectory("tsd-chart");
    String tablePath = work.resolve("orders").toString();
    try (SampleTable table = SampleTable.open(tablePath, "orders", HoodieTableType.MERGE_ON_READ, 9, Map.of())) {
      List<SampleRow> rows = new ArrayList<>();
      for (int i = 0; i < 60; i++) {
        rows.add(SampleRow.of("k" + i, "p" + (i % 2), 1, "first", i));
      }
      table.insert(rows);
      table.upsert(rows.subList(0, 20).stream().map(row -> SampleRow.of(row.id(), row.partition(), 2, "second", 7))
          .toList());
    }
    Path values = work.resolve("values.yaml");
    Files.writeString(values, """
        config:
          tables:
            - path: %s
              id: orders
              services: [compaction, clean]
              hoodie:
                hoodie.compact.inline.max.delta.commits: "1"
          polling:
            interval: 1s
          workers:
            count: 1
            retryBackoff: 1s
            heartbeatInterval: 1s
        apiToken:
          value: %s
        prometheusRule:
          enabled: true
        grafanaDashboard:
          enabled: true
        """.formatted(tablePath, TOKEN));
    rendered = HelmChart.render(values);

    ObjectNode config = (ObjectNode) rendered.daemonConfig();
    // What differs between the cluster and this machine: free ports, writable files, the token's mounted file.
    Path tokenFile = work.resolve("token");
    Files.write(tokenFile, Base64.getDecoder().decode(rendered.one("Secret").path("data").path("token").asText()));
    assertThat(config.path("auth").path("tokenFile").asText()).isEqualTo("/etc/tsd/secret/token");
    ((ObjectNode) config.path("auth")).put("tokenFile", tokenFile.toString());
    ((ObjectNode) config.path("history")).put("file", work.resolve("history.jsonl").toString());
    ((ObjectNode) config.path("server").path("applicationConnectors").get(0)).put("port", 0);
    ((ObjectNode) config.path("server").path("adminConnectors").get(0)).put("port", 0);
    ((ObjectNode) config.path("logging")).put("level", "WARN");
    Path configFile = work.resolve("tsd.yml");
    HelmChart.YAML.writeValue(configFile.toFile(), config);

    daemon = new DropwizardTestSupport<>(TsdApplication.class, configFile.toString());
    daemon.before();
  }

  @AfterAll
  static void stop() {
    Awaitility.reset();
    if (daemon != null) {
      daemon.after();
    }
  }

  @Test
  void theRenderedProbesAnswerOnTheAdminPort() {
    JsonNode container = rendered.daemonContainer();
    for (String probe : List.of("startupProbe", "livenessProbe", "readinessProbe")) {
      String path = container.path(probe).path("httpGet").path("path").asText();
      await().atMost(Duration.ofSeconds(30)).untilAsserted(() ->
          assertThat(get(daemon.getAdminPort(), path, null).statusCode()).as(probe).isEqualTo(200));
    }
  }

  @Test
  void theMountedTokenProtectsTheApi() throws Exception {
    String path = "/api/v1/tables/orders/pause";
    assertThat(post(path, null).statusCode()).isEqualTo(401);
    assertThat(post("/api/v1/tables/orders/resume", TOKEN).statusCode()).isEqualTo(200);
    assertThat(get(daemon.getLocalPort(), "/api/v1/tables", null).statusCode()).isEqualTo(200);
  }

  @Test
  void theMountedTokenProtectsTheAdminPortsDumps() throws Exception {
    assertThat(get(daemon.getAdminPort(), "/threads", null).statusCode()).isEqualTo(401);
    assertThat(get(daemon.getAdminPort(), "/threads", TOKEN).statusCode()).isEqualTo(200);
  }

  @Test
  void everyMetricAndLabelInAlertsAndDashboardIsExportedByTheDaemon() throws Exception {
    await().atMost(Duration.ofSeconds(90)).untilAsserted(() -> assertThat(PrometheusText.parse(scrape()))
        .hasEntrySatisfying("tsd_runs_total{engine=\"java\",result=\"succeeded\",service=\"compaction\","
            + "table=\"orders\"}",
            runs -> assertThat(runs).isGreaterThanOrEqualTo(1.0)));
    String exposition = scrape();
    Map<String, List<Map<String, String>>> series = series(PrometheusText.parse(exposition));
    Set<String> families = PrometheusText.types(exposition).keySet();

    Map<String, String> expressions = new LinkedHashMap<>();
    Alerts.rules(rendered).forEach((name, rule) -> expressions.put("alert " + name, rule.path("expr").asText()));
    expressions.putAll(dashboardExpressions());
    assertThat(expressions).hasSizeGreaterThan(20);

    for (Map.Entry<String, String> expression : expressions.entrySet()) {
      List<PromQl.Selector> selectors = PromQl.selectors(expression.getValue());
      assertThat(selectors).as(expression.getKey()).isNotEmpty();
      for (PromQl.Selector selector : selectors) {
        checkSelector(expression.getKey(), selector, series, families);
      }
    }

    // The alerts about a table aggregate by the table label: every metric they read carries it.
    for (Map.Entry<String, JsonNode> rule : Alerts.rules(rendered).entrySet()) {
      if (rule.getKey().equals("HudiTsdDown")) {
        continue;
      }
      for (PromQl.Selector selector : PromQl.selectors(rule.getValue().path("expr").asText())) {
        assertThat(series.get(selector.metric())).as("%s reads %s", rule.getKey(), selector.metric())
            .isNotEmpty().allMatch(labels -> labels.containsKey("table"));
      }
    }
  }

  @Test
  void aScrapeOfTheDaemonPassesPromtoolCheckMetrics() throws Exception {
    // After a compaction ran, so that the run counters and histograms have series.
    await().atMost(Duration.ofSeconds(90)).untilAsserted(() -> assertThat(PrometheusText.parse(scrape()))
        .containsKey("tsd_runs_total{engine=\"java\",result=\"succeeded\",service=\"compaction\",table=\"orders\"}"));
    String exposition = scrape();
    Map<String, Double> samples = PrometheusText.parse(exposition);
    assertThat(samples).anySatisfy((series, value) -> {
      assertThat(series).startsWith("tsd_build_info{version=\"").doesNotContain("${");
      assertThat(value).isEqualTo(1.0);
    });
    // The path as the daemon resolved it (a local path gets file:).
    assertThat(samples).containsEntry("tsd_table_info{base_path=\"file:" + work.resolve("orders")
        + "\",table=\"orders\",type=\"MERGE_ON_READ\",version=\"9\"}", 1.0);
    // Two writer commits and the compaction, at least; far below hoodie.keep.max.commits.
    assertThat(samples.get("tsd_active_timeline_instants{table=\"orders\"}")).isGreaterThanOrEqualTo(3.0);
    assertThat(samples).containsEntry("tsd_archival_backlog_instants{table=\"orders\"}", 0.0);
    // The writes went to the metadata table as delta commits; it compacts after 10 (Hudi's default).
    assertThat(samples.get("tsd_metadata_delta_commits_since_compaction{table=\"orders\"}"))
        .isGreaterThanOrEqualTo(2.0);
    Promtool.Result check = Promtool.run(work, exposition, "check", "metrics");
    assertThat(check.succeeded()).as("promtool check metrics on /prometheus:\n%s", check.output()).isTrue();
    assertThat(check.output()).as("promtool check metrics on /prometheus").isBlank();
  }

  private static void checkSelector(String where, PromQl.Selector selector, Map<String, List<Map<String, String>>> series,
                                    Set<String> families) {
    String metric = selector.metric();
    if (metric.equals("up")) {
      // Prometheus' own series per scrape target.
      assertThat(selector.matchers()).allMatch(matcher -> TARGET_LABELS.contains(matcher.label()));
      return;
    }
    List<Map<String, String>> samples = series.getOrDefault(metric, List.of());
    if (samples.isEmpty()) {
      // A labelled counter or histogram has no series before its first event (a failed poll, say); its family is
      // declared all the same.
      assertThat(families).as("%s: metric %s is neither a series nor a declared family of /prometheus", where, metric)
          .anyMatch(family -> metric.equals(family) || metric.equals(family + "_total")
              || metric.equals(family + "_bucket") || metric.equals(family + "_count")
              || metric.equals(family + "_sum"));
      return;
    }
    Map<String, String> equalities = new HashMap<>();
    for (PromQl.LabelMatcher matcher : selector.matchers()) {
      if (TARGET_LABELS.contains(matcher.label())) {
        continue;
      }
      assertThat(samples).as("%s: label %s of %s", where, matcher.label(), metric)
          .anyMatch(labels -> labels.containsKey(matcher.label()));
      if (matcher.operator().equals("=")) {
        equalities.put(matcher.label(), matcher.value());
      }
    }
    assertThat(samples).as("%s: a series of %s with %s", where, metric, equalities)
        .anyMatch(labels -> labels.entrySet().containsAll(equalities.entrySet()));
  }

  /** Every query of the dashboard, from the rendered ConfigMap, which holds the chart's dashboard file. */
  private static Map<String, String> dashboardExpressions() throws IOException {
    String json = rendered.named("ConfigMap", FULLNAME + "-dashboard").path("data").path("hudi-tsd.json").asText();
    assertThat(json).isEqualTo(Files.readString(HelmChart.directory().resolve("dashboards/hudi-tsd.json")).strip());
    return DashboardQueries.of(json);
  }

  /** Series labels by metric name, from {@code name{a="x",b="y"}} keys. */
  private static Map<String, List<Map<String, String>>> series(Map<String, Double> samples) {
    Map<String, List<Map<String, String>>> series = new HashMap<>();
    for (String key : samples.keySet()) {
      int brace = key.indexOf('{');
      String name = brace < 0 ? key : key.substring(0, brace);
      Map<String, String> labels = new HashMap<>();
      if (brace >= 0) {
        Matcher label = LABEL.matcher(key.substring(brace));
        while (label.find()) {
          labels.put(label.group(1), label.group(2));
        }
      }
      series.computeIfAbsent(name, n -> new ArrayList<>()).add(labels);
    }
    return series;
  }

  private static String scrape() throws Exception {
    HttpResponse<String> response = get(daemon.getAdminPort(), "/prometheus", null);
    assertThat(response.statusCode()).isEqualTo(200);
    return response.body();
  }

  private static HttpResponse<String> get(int port, String path, String token) throws Exception {
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://localhost:" + port + path)).GET();
    if (token != null) {
      request.header("Authorization", "Bearer " + token);
    }
    return HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
  }

  private static HttpResponse<String> post(String path, String token) throws Exception {
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://localhost:" + daemon.getLocalPort() + path))
        .POST(HttpRequest.BodyPublishers.noBody());
    if (token != null) {
      request.header("Authorization", "Bearer " + token);
    }
    return HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
  }
}
