package io.huditsd.charts;

import com.fasterxml.jackson.databind.JsonNode;

import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/** The PromQL queries of the chart's Grafana dashboard (dashboards/hudi-tsd.json). */
final class DashboardQueries {
  private static final Pattern LABEL_VALUES = Pattern.compile("label_values\\((.*), *([a-zA-Z_]+)\\)");

  private DashboardQueries() {
  }

  /**
   * Every query of the dashboard {@code json} by where it is ("panel 'Title' A", "variable table"), with Grafana's
   * variables replaced as Grafana would for table orders of release tsd in namespace lake.
   */
  static Map<String, String> of(String json) throws IOException {
    JsonNode dashboard = HelmChart.YAML.readTree(json);
    Map<String, String> expressions = new LinkedHashMap<>();
    for (JsonNode panel : dashboard.path("panels")) {
      for (JsonNode target : panel.path("targets")) {
        expressions.put("panel '" + panel.path("title").asText() + "' " + target.path("refId").asText(),
            substitute(target.path("expr").asText()));
      }
    }
    for (JsonNode variable : dashboard.path("templating").path("list")) {
      if (variable.path("type").asText().equals("query")) {
        Matcher query = LABEL_VALUES.matcher(variable.path("query").path("query").asText());
        assertThat(query.matches()).as("variable %s", variable.path("name").asText()).isTrue();
        expressions.put("variable " + variable.path("name").asText(), substitute(query.group(1)));
      }
    }
    return expressions;
  }

  private static String substitute(String expression) {
    return expression.replace("$namespace", HelmChart.NAMESPACE).replace("$job", HelmChart.FULLNAME)
        .replace("$table", "orders").replace("$__rate_interval", "1m");
  }
}
