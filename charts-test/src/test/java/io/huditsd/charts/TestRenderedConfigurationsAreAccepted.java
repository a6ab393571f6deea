package io.huditsd.charts;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.huditsd.config.HaConfig;
import io.huditsd.config.TsdConfiguration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The tsd.yml in the chart's ConfigMap, for every example, read by the configuration factory the daemon uses at
 * start (Dropwizard's strict YAML binding plus the daemon's own checks of hoodie keys, ids, paths and lock
 * provider): the chart never ships a configuration the daemon rejects.
 */
class TestRenderedConfigurationsAreAccepted {
  @ParameterizedTest
  @ValueSource(strings = {"minimal.yaml", "monitoring.yaml", "existing-secret.yaml", "zookeeper-ha.yaml", "cronjob.yaml",
      "cloud-credentials.yaml"})
  void exampleConfigurationsAreAccepted(String example, @TempDir Path work) throws Exception {
    Rendered rendered = HelmChart.render(HelmChart.example(example));
    TsdConfiguration configuration = DaemonConfigurations.parse(rendered.daemonYaml(), work);
    assertThat(configuration.getHistory().file()).contains("/var/lib/tsd/history.jsonl");
    assertThat(configuration.getTables().size() + configuration.getDiscovery().roots().size()).isPositive();
  }

  /**
   * What the helm test pod runs, {@code check /etc/tsd/tsd.yml} (Dropwizard's command on the daemon's factory), in a
   * JVM of its own on the rendered file: 0 and "Configuration is OK"; a misspelt Hudi key fails it, naming the key.
   */
  @Test
  void theHelmTestsCheckPassesOnTheRenderedFileAndFailsATypo(@TempDir Path work) throws Exception {
    Path good = Files.writeString(work.resolve("tsd.yml"),
        HelmChart.render(HelmChart.example("minimal.yaml")).daemonYaml());
    Process check = check(good, work.resolve("good.log"));
    assertThat(check.exitValue()).as(Files.readString(work.resolve("good.log"))).isZero();
    assertThat(Files.readString(work.resolve("good.log"))).contains("Configuration is OK");

    Path typo = Files.writeString(work.resolve("typo.yml"), HelmChart.render(List.of(HelmChart.example("minimal.yaml")),
        Map.of("config.hoodie.hoodie\\.clean\\.comits\\.retained", "3")).daemonYaml());
    Process failed = check(typo, work.resolve("typo.log"));
    assertThat(failed.exitValue()).isNotZero();
    assertThat(Files.readString(work.resolve("typo.log"))).contains("hoodie.clean.comits.retained");
  }

  private static Process check(Path file, Path log) throws Exception {
    Process process = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-Xmx512m", "-cp", System.getProperty("java.class.path"), io.huditsd.api.TsdApplication.class.getName(),
        "check", file.toString()).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    assertThat(process.waitFor(2, java.util.concurrent.TimeUnit.MINUTES)).isTrue();
    return process;
  }

  /**
   * The daemon checks at start that the spark section's files exist: the image's SPARK_HOME and the jars beside
   * hudi-tsd.jar (which the daemon finds only when it runs from that jar). Those paths are moved to a directory of
   * the test machine laid out the same way; every other key is read as rendered.
   */
  @ParameterizedTest
  @ValueSource(strings = {"spark-submit.yaml", "spark-kubernetes.yaml"})
  void sparkExampleConfigurationsAreAccepted(String example, @TempDir Path work) throws Exception {
    Rendered rendered = HelmChart.render(HelmChart.example(example));
    ObjectNode config = (ObjectNode) rendered.daemonConfig();
    ObjectNode spark = (ObjectNode) config.path("spark");
    assertThat(spark.path("sparkHome").asText()).isEqualTo("/opt/spark");
    assertThat(spark.has("applicationJar")).isFalse();
    assertThat(spark.has("jars")).isFalse();
    Path sparkHome = Files.createDirectories(work.resolve("opt/spark/bin"));
    Path submit = Files.writeString(sparkHome.resolve("spark-submit"), "#!/bin/sh\n");
    Files.setPosixFilePermissions(submit, PosixFilePermissions.fromString("rwxr-xr-x"));
    Path besideDaemonJar = Files.createDirectories(work.resolve("opt/hudi-tsd/api/target"));
    spark.put("sparkHome", work.resolve("opt/spark").toString());
    spark.put("applicationJar",
        Files.writeString(besideDaemonJar.resolve("hudi-tsd-spark-runner.jar"), "a jar").toString());
    spark.putArray("jars")
        .add(Files.writeString(besideDaemonJar.resolve("hudi-tsd-lock-providers.jar"), "a jar").toString());
    spark.put("logDir", Files.createDirectories(work.resolve("var/log/tsd/spark")).toString());

    TsdConfiguration configuration = DaemonConfigurations.parse(HelmChart.YAML.writeValueAsString(config), work);
    assertThat(configuration.getTables()).hasSize(1);
  }

  @Test
  void zookeeperAndTokenSettingsAreAcceptedAsTheDaemonReadsThem(@TempDir Path work) throws Exception {
    TsdConfiguration configuration = DaemonConfigurations.parse(
        HelmChart.render(HelmChart.example("zookeeper-ha.yaml")).daemonYaml(), work);
    assertThat(configuration.getHoodie())
        .containsEntry("hoodie.write.lock.provider",
            "org.apache.hudi.client.transaction.lock.ZookeeperBasedLockProvider")
        .containsEntry("hoodie.write.lock.zookeeper.session_timeout_ms", "30000");
    assertThat(configuration.getAuth().tokenFile()).contains("/etc/tsd/secret/token");
    assertThat(configuration.getDiscovery().hoodie()).containsEntry("hoodie.compact.inline.max.delta.commits", "10");
    assertThat(configuration.getHa()).hasValueSatisfying(ha -> {
      assertThat(ha.basePath()).isEqualTo("/hudi-tsd");
      assertThat(ha.replicaId()).isEqualTo(HaConfig.defaultReplicaId());
    });
  }

  @Test
  void theSidecarsConfigurationIsAccepted(@TempDir Path work) throws Exception {
    Rendered rendered = HelmChart.renderSidecarExample(work);
    String yaml = rendered.named("ConfigMap", "orders-hudi-tsd").path("data").path("tsd.yml").asText();
    TsdConfiguration configuration = DaemonConfigurations.parse(yaml, work);
    assertThat(configuration.getTables()).hasSize(1);
  }

  @Test
  void numbersGivenWithSetReachTheDaemonAsStrings(@TempDir Path work) throws Exception {
    Rendered rendered = HelmChart.render(List.of(HelmChart.example("minimal.yaml")),
        Map.of("config.hoodie.hoodie\\.clean\\.commits\\.retained", "20", "config.workers.count", "3"));
    TsdConfiguration configuration = DaemonConfigurations.parse(rendered.daemonYaml(), work);
    assertThat(configuration.getHoodie()).containsEntry("hoodie.clean.commits.retained", "20");
    assertThat(configuration.getWorkers().count()).isEqualTo(3);
  }

  @Test
  void theFactoryIsTheDaemonsStrictOneAndNamesAMisspeltKey(@TempDir Path work) {
    // The chart passes hoodie.* keys through; the daemon checks them at start.
    Rendered rendered = HelmChart.render(List.of(HelmChart.example("minimal.yaml")),
        Map.of("config.hoodie.hoodie\\.compact\\.inline\\.max\\.delta\\.comits", "3"));
    assertThatThrownBy(() -> DaemonConfigurations.parse(rendered.daemonYaml(), work))
        .hasMessageContaining("hoodie: key 'hoodie.compact.inline.max.delta.comits' is not a Hudi configuration key "
            + "(did you mean hoodie.compact.inline.max.delta.commits?)");
  }
}
