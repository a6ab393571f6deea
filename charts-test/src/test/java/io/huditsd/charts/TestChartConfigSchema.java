package io.huditsd.charts;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code config} in values.schema.json is the schema of tsd.yml generated from the daemon's configuration classes
 * (docs/tsd.schema.json, kept current by the config module's TestConfigurationSchema), so that a misspelt key of
 * the daemon's fails at {@code helm install}, naming it, instead of at the pod's start.
 */
class TestChartConfigSchema {
  private static final Path MINIMAL = HelmChart.example("minimal.yaml");

  @Test
  void theChartsConfigSchemaIsThePublishedOne() throws Exception {
    JsonNode values = HelmChart.YAML.readTree(HelmChart.directory().resolve("values.schema.json").toFile());
    ObjectNode published = (ObjectNode) HelmChart.YAML.readTree(HelmChart.directory()
        .resolve("../../docs/tsd.schema.json").normalize().toFile());
    published.remove(List.of("$schema", "title"));
    assertThat(values.path("properties").path("config")).isEqualTo(published);
  }

  @Test
  void aMisspeltKeyOfTheDaemonsFailsAtInstallNamingIt() {
    assertThat(HelmChart.renderFailure(List.of(MINIMAL), Map.of("config.polling.intervall", "1s")))
        .contains("intervall");
    assertThat(HelmChart.renderFailure(List.of(MINIMAL), Map.of("config.service[0]", "compaction")))
        .contains("service");
    assertThat(HelmChart.renderFailure(List.of(MINIMAL), Map.of("config.services[0]", "compact")))
        .contains("services");
    assertThat(HelmChart.renderFailure(List.of(MINIMAL), Map.of("config.polling.interval", "soon")))
        .contains("interval");
  }

  @Test
  void whatTheDaemonAcceptsRendersIncludingNumbersGivenWithSet() {
    Rendered rendered = HelmChart.render(List.of(MINIMAL), Map.of(
        "config.hoodie.hoodie\\.clean\\.commits\\.retained", "20", "config.workers.count", "3",
        "config.polling.interval", "45s", "config.services[0]", "compaction"));
    assertThat(rendered.daemonConfig().path("workers").path("count").asInt()).isEqualTo(3);
  }
}
