package io.huditsd.charts;

import com.fasterxml.jackson.databind.JsonNode;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The alerting rules of a rendered PrometheusRule. */
final class Alerts {
  /** Every alert the chart defines, in the order of docs/runbook.md. */
  static final List<String> NAMES = List.of("HudiTsdBacklogHigh", "HudiTsdBacklogGrowing",
      "HudiTsdPlanPendingTooLong", "HudiTsdCleanBlocked", "HudiTsdRunsFailing", "HudiTsdWriterFailures",
      "HudiTsdPollsFailing", "HudiTsdLockFailures", "HudiTsdIndexesMissing", "HudiTsdTableUnowned",
      "HudiTsdDown");

  private Alerts() {
  }

  static Map<String, JsonNode> rules(Rendered rendered) {
    Map<String, JsonNode> rules = new LinkedHashMap<>();
    for (JsonNode group : rendered.one("PrometheusRule").path("spec").path("groups")) {
      for (JsonNode rule : group.path("rules")) {
        if (rules.put(rule.path("alert").asText(), rule) != null) {
          throw new AssertionError("two alerts named " + rule.path("alert").asText());
        }
      }
    }
    return rules;
  }
}
