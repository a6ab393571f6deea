package io.huditsd.api.metrics;

import io.prometheus.client.CollectorRegistry;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class TestBuildInfoCollector {
  @Test
  void theBuildsVersionIsALabelOfAnInfoGaugeAtOne() {
    CollectorRegistry registry = new CollectorRegistry();
    BuildInfoCollector.ofThisBuild().register(registry);
    String version = BuildInfoCollector.version();
    // Maven filtered the resource: the project's version, not the placeholder.
    assertThat(version).matches("\\d+\\.\\d+\\.\\d+.*");
    assertThat(registry.getSampleValue("tsd_build_info", new String[] {"version"}, new String[] {version}))
        .isEqualTo(1.0);
  }
}
