package io.huditsd.charts;

import com.marcnuri.helm.LintResult;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code helm lint --strict} of the chart, with each example values file. */
class TestChartLint {
  @ParameterizedTest
  @ValueSource(strings = {"minimal.yaml", "monitoring.yaml", "existing-secret.yaml", "zookeeper-ha.yaml", "cronjob.yaml",
      "cloud-credentials.yaml", "spark-submit.yaml", "spark-kubernetes.yaml", "sidecar/values.yaml"})
  void exampleValuesLintClean(String example, @TempDir Path work) throws Exception {
    Path values = HelmChart.example(example);
    if (example.startsWith("sidecar/")) {
      // The parent chart's values for its hudi-tsd dependency, as that subchart sees them.
      values = work.resolve("sidecar-subchart.yaml");
      HelmChart.YAML.writeValue(values.toFile(),
          HelmChart.YAML.readTree(HelmChart.example(example).toFile()).path("hudi-tsd"));
    }
    LintResult result = HelmChart.lint(values, work);
    assertThat(result.isFailed()).as("lint messages: %s", result.getMessages()).isFalse();
    assertThat(result.getMessages()).noneMatch(message -> message.contains("[WARNING]")
        || message.contains("[ERROR]"));
  }

  @Test
  void theDefaultsAloneLintClean(@TempDir Path work) throws Exception {
    // Lint mode turns the chart's own refusal (no tables) into a log line; helm template and install refuse.
    LintResult result = HelmChart.lint(null, work);
    assertThat(result.isFailed()).as("lint messages: %s", result.getMessages()).isFalse();
    assertThat(result.getMessages()).allMatch(message -> message.startsWith("[INFO]"));
  }
}
