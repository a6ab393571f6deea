package io.huditsd.charts;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class TestPromQl {
  @ParameterizedTest
  @ValueSource(strings = {
      "up",
      "up{job=\"a\",namespace=\"b\"} == 0 or absent(up{job=\"a\"})",
      "max by (namespace, table) (tsd_log_file_unscheduled_bytes{job=\"x\"}) > 10737418240",
      "max by (table) (deriv(m[6h])) * 3600 > 1073741824",
      "sum by (le, service) (rate(m_bucket[5m]))",
      "histogram_quantile(0.95, sum by (le) (rate(m_bucket{a=~\"x|y\"}[5m])))",
      "sum without (instance) (increase(m_total[1h])) >= 3",
      "time() - max by (table) (m)",
      "-m ^ 2",
      "a / on (table) group_left (service) b",
      "a > bool 1",
      "1 > bool 2",
      "topk(3, sum(rate(m[5m])) by (table))",
      "count_values(\"v\", m)",
      "max_over_time(deriv(m[1h])[6h:5m])",
      "m offset 5m",
      "rate(m[1h] offset 1d)",
      "{__name__=\"m\"}",
      "label_replace(m, \"dst\", \"$1\", \"src\", \"(.*)\")",
      "m and on () vector(1)",
  })
  void acceptsValidExpressions(String expression) {
    assertThat(PromQl.parse(expression).type()).isIn(PromQl.Type.VECTOR, PromQl.Type.SCALAR);
  }

  @Test
  void rejectsWhatPrometheusRejectsWithThePosition() {
    assertRejected("max(m", "expected ), found end of expression");
    assertRejected("max(m))", "unexpected ')' at 6");
    assertRejected("rate(m)", "rate() argument 1 must be a range vector, not a instant vector");
    assertRejected("rate(sum(m)[5m])", "a range [..] follows a vector selector only");
    assertRejected("m[5]", "range must be a duration such as 5m, found '5'");
    assertRejected("frobnicate(m)", "unknown function frobnicate()");
    assertRejected("m{table=orders}", "expected a quoted label value, found 'orders'");
    assertRejected("m{table==\"x\"}", "expected =, !=, =~ or !~ after label table");
    assertRejected("m >", "expected an expression, found end of expression");
    assertRejected("1 > 2", "comparisons between scalars need bool");
    assertRejected("1 and m", "set operator and takes two vectors");
    assertRejected("m[5m]", "expression must be a vector or a scalar, not a range vector");
    assertRejected("histogram_quantile(m)", "histogram_quantile() takes 2 arguments, got 1");
    assertRejected("sum(m) by table", "expected (, found 'table'");
    assertRejected("m{a=~\"(\"}", "label a: bad regular expression '('");
    assertRejected("{a=\"\"}", "a selector without a metric name needs a non-empty equality matcher");
  }

  @Test
  void returnsEverySelectorWithItsMatchers() {
    PromQl.Parsed parsed = PromQl.parse(
        "sum by (table) (increase(tsd_runs_total{job=\"j\",result=\"failed\"}[1h])) / on (table) tsd_tables");
    assertThat(parsed.selectors()).containsExactly(
        new PromQl.Selector("tsd_runs_total", List.of(new PromQl.LabelMatcher("job", "=", "j"),
            new PromQl.LabelMatcher("result", "=", "failed"))),
        new PromQl.Selector("tsd_tables", List.of()));
  }

  private static void assertRejected(String expression, String message) {
    assertThatThrownBy(() -> PromQl.parse(expression)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(message);
  }
}
