package io.huditsd.charts;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The chart's PrometheusRule checked by Prometheus' own promtool: {@code check rules} on the rendered rules, and
 * {@code test rules} with the unit tests in {@code promtool/alerts.test.yaml}, where every alert fires on a synthetic
 * series once its {@code for:} has passed, and stays quiet on a series just under its threshold or before then.
 */
class TestAlertRules {
  private static final String TESTS = "alerts.test.yaml";

  @Test
  void theRenderedRulesPassPromtoolCheckRules(@TempDir Path work) throws Exception {
    for (Rendered rendered : List.of(HelmChart.render(HelmChart.example("monitoring.yaml")),
        HelmChart.render(List.of(HelmChart.example("minimal.yaml")), Map.of("prometheusRule.enabled", "true")))) {
      Path rules = writeRules(rendered, work.resolve("rules.yaml"), false);
      Promtool.Result check = Promtool.run(work, null, "check", "rules", rules.toString());
      assertThat(check.succeeded()).as("promtool check rules:\n%s", check.output()).isTrue();
      assertThat(check.output()).contains("SUCCESS: " + Alerts.NAMES.size() + " rules found");
    }
  }

  @Test
  void everyAlertFiresAfterItsForAndStaysQuietOtherwise(@TempDir Path work) throws Exception {
    // The unit tests are written against the chart's default thresholds and the default job of release tsd in
    // namespace lake (job="tsd-hudi-tsd",namespace="lake").
    Rendered rendered = HelmChart.render(List.of(HelmChart.example("minimal.yaml")),
        Map.of("prometheusRule.enabled", "true"));
    writeRules(rendered, work.resolve("rules.yaml"), true);
    Path tests = work.resolve(TESTS);
    try (InputStream resource = Objects.requireNonNull(
        TestAlertRules.class.getResourceAsStream("/promtool/" + TESTS), "promtool/" + TESTS + " is missing")) {
      Files.copy(resource, tests);
    }

    Promtool.Result result = Promtool.run(work, null, "test", "rules", tests.toString());
    assertThat(result.succeeded()).as("promtool test rules:\n%s", result.output()).isTrue();

    // Each alert has a case where it fires and one where it stays quiet.
    Set<String> firing = new HashSet<>();
    Set<String> quiet = new HashSet<>();
    for (JsonNode test : HelmChart.YAML.readTree(tests.toFile()).path("tests")) {
      for (JsonNode alertCase : test.path("alert_rule_test")) {
        String alert = alertCase.path("alertname").asText();
        (alertCase.path("exp_alerts").isEmpty() ? quiet : firing).add(alert);
      }
    }
    assertThat(firing).as("alerts with a case where they fire").containsExactlyInAnyOrderElementsOf(Alerts.NAMES);
    assertThat(quiet).as("alerts with a case where they stay quiet").containsExactlyInAnyOrderElementsOf(Alerts.NAMES);
  }

  @Test
  void theDashboardQueriesPassPromtoolCheckRules(@TempDir Path work) throws Exception {
    // Each query as a recording rule: promtool parses its PromQL as Prometheus would.
    Map<String, String> queries = DashboardQueries.of(
        Files.readString(HelmChart.directory().resolve("dashboards/hudi-tsd.json")));
    ObjectNode file = HelmChart.YAML.createObjectNode();
    ObjectNode group = file.putArray("groups").addObject().put("name", "dashboard");
    ArrayNode rules = group.putArray("rules");
    int index = 0;
    for (String query : queries.values()) {
      rules.addObject().put("record", "dashboard:query_" + index++).put("expr", query);
    }
    Path rulesFile = work.resolve("dashboard.yaml");
    HelmChart.YAML.writeValue(rulesFile.toFile(), file);
    Promtool.Result check = Promtool.run(work, null, "check", "rules", rulesFile.toString());
    assertThat(check.succeeded()).as("promtool check rules on the dashboard's queries %s:\n%s", queries,
        check.output()).isTrue();
    assertThat(queries).hasSizeGreaterThan(10);
  }

  /**
   * The rule groups of the rendered PrometheusRule (its {@code spec}) as a Prometheus rules file. With
   * {@code summaryOnly}, annotations other than the summary are left out: the unit tests compare annotations
   * exactly, and the summary is the one that expands the alert's labels and value.
   */
  private static Path writeRules(Rendered rendered, Path file, boolean summaryOnly) throws IOException {
    JsonNode spec = rendered.one("PrometheusRule").path("spec").deepCopy();
    if (summaryOnly) {
      for (JsonNode group : spec.path("groups")) {
        for (JsonNode rule : group.path("rules")) {
          ((ObjectNode) rule.path("annotations")).retain("summary");
        }
      }
    }
    HelmChart.YAML.writeValue(file.toFile(), spec);
    return file;
  }
}
