package io.huditsd.api.metrics;

import io.huditsd.api.PrometheusText;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class TestBuildInfoCollector {
  @Test
  void theBuildsVersionIsALabelOfAnInfoGaugeAtOne() {
    PrometheusRegistry registry = new PrometheusRegistry();
    registry.register(BuildInfoCollector.ofThisBuild());
    String version = BuildInfoCollector.version();
    // Maven filtered the resource: the project's version, not the placeholder.
    assertThat(version).matches("\\d+\\.\\d+\\.\\d+.*");
    String text = Scrape.text(registry);
    // An info metric: a gauge named ..._info in the text format 0.0.4, as simpleclient's gauge was.
    assertThat(PrometheusText.types(text)).containsEntry("tsd_build_info", "gauge");
    assertThat(PrometheusText.parse(text)).containsExactly(
        Map.entry("tsd_build_info{version=\"" + version + "\"}", 1.0));
  }
}
