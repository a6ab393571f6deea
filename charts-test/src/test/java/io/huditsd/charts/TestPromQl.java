package io.huditsd.charts;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class TestPromQl {
  @Test
  void returnsEverySelectorWithItsMatchers() {
    assertThat(PromQl.selectors(
        "sum by (table) (increase(tsd_runs_total{job=\"j\",result=\"failed\"}[1h])) / on (table) tsd_tables"))
        .containsExactly(
            new PromQl.Selector("tsd_runs_total", List.of(new PromQl.LabelMatcher("job", "=", "j"),
                new PromQl.LabelMatcher("result", "=", "failed"))),
            new PromQl.Selector("tsd_tables", List.of()));
  }

  @Test
  void functionsKeywordsGroupingLabelsStringsAndDurationsAreNotSelectors() {
    assertThat(PromQl.selectors("histogram_quantile(0.95, sum(rate(m_bucket{a=~\"x|y\"}[5m] offset 1d)) by (le))"
        + " > bool 1 and on () vector(1) or label_replace(n, \"dst\", \"$1\", \"src\", \"(.*)\")"
        + " unless a / ignoring (b) group_left (c) d"))
        .extracting(PromQl.Selector::metric).containsExactly("m_bucket", "n", "a", "d");
    assertThat(PromQl.selectors("max_over_time(deriv(m[1h])[6h:5m]) * 3600 > 1e9"))
        .extracting(PromQl.Selector::metric).containsExactly("m");
  }

  @Test
  void aSelectorWithoutAMetricNameKeepsItsMatchers() {
    assertThat(PromQl.selectors("{__name__=\"m\", a!=\"x\\\"y\"}")).containsExactly(new PromQl.Selector("",
        List.of(new PromQl.LabelMatcher("__name__", "=", "m"), new PromQl.LabelMatcher("a", "!=", "x\"y"))));
  }

  @Test
  void anUnterminatedSelectorIsRejected() {
    assertThatThrownBy(() -> PromQl.selectors("m{a=\"x}")).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("unterminated string");
  }
}
