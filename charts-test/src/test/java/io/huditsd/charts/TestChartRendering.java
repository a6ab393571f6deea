package io.huditsd.charts;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static io.huditsd.charts.HelmChart.FULLNAME;
import static io.huditsd.charts.HelmChart.example;
import static io.huditsd.charts.HelmChart.render;
import static io.huditsd.charts.HelmChart.renderFailure;
import static io.huditsd.charts.Rendered.byName;
import static io.huditsd.charts.Rendered.hasName;
import static org.assertj.core.api.Assertions.assertThat;

/** Each value of the chart does what values.yaml says, checked on the objects Helm renders. */
class TestChartRendering {
  private static final Path MINIMAL = example("minimal.yaml");
  private static final String ZOOKEEPER_PROVIDER = "org.apache.hudi.client.transaction.lock.ZookeeperBasedLockProvider";

  @Test
  void defaultsAloneAreRefusedWithWhatToSet() {
    assertThat(renderFailure(List.of(), Map.of()))
        .contains("hudi-tsd: set config.tables or config.discovery.roots; the daemon refuses a configuration with "
            + "nothing to service");
  }

  @Test
  void minimalValuesGiveADaemonWithSafeDefaults() {
    Rendered rendered = render(MINIMAL);
    assertThat(rendered.objects()).extracting(object -> object.path("kind").asText())
        .containsExactlyInAnyOrder("ServiceAccount", "ConfigMap", "Service", "Deployment");

    JsonNode deployment = rendered.one("Deployment");
    assertThat(deployment.path("metadata").path("name").asText()).isEqualTo(FULLNAME);
    assertThat(deployment.path("spec").path("replicas").asInt()).isEqualTo(1);
    assertThat(deployment.path("spec").path("strategy").path("type").asText()).isEqualTo("Recreate");

    JsonNode pod = rendered.podSpec();
    assertThat(pod.path("securityContext").path("runAsNonRoot").asBoolean()).isTrue();
    assertThat(pod.path("securityContext").path("runAsUser").asInt()).isEqualTo(10001);
    assertThat(pod.path("automountServiceAccountToken").asBoolean()).isFalse();
    assertThat(pod.path("serviceAccountName").asText()).isEqualTo(FULLNAME);

    JsonNode container = rendered.daemonContainer();
    assertThat(container.path("image").asText()).isEqualTo("hudi-tsd:0.1.0");
    assertThat(container.path("args").toString()).isEqualTo("[\"server\",\"/etc/tsd/tsd.yml\"]");
    JsonNode security = container.path("securityContext");
    assertThat(security.path("runAsNonRoot").asBoolean()).isTrue();
    assertThat(security.path("readOnlyRootFilesystem").asBoolean()).isTrue();
    assertThat(security.path("allowPrivilegeEscalation").asBoolean()).isFalse();
    assertThat(security.path("capabilities").path("drop").toString()).isEqualTo("[\"ALL\"]");
    assertThat(container.path("resources").path("limits").path("memory").asText()).isEqualTo("3Gi");

    // The probes hit the daemon's own paths on the admin port, by the port's name.
    assertThat(byName(container.path("ports"), "tsd-admin").path("containerPort").asInt()).isEqualTo(8081);
    assertThat(byName(container.path("ports"), "tsd-api").path("containerPort").asInt()).isEqualTo(8080);
    assertProbe(container.path("livenessProbe"), "/live");
    assertProbe(container.path("startupProbe"), "/live");
    assertProbe(container.path("readinessProbe"), "/ready");

    // A read-only root: the JVM's /tmp and the history directory are volumes.
    assertThat(mountPath(container, "hudi-tsd-tmp")).isEqualTo("/tmp");
    assertThat(mountPath(container, "hudi-tsd-history")).isEqualTo("/var/lib/tsd");
    assertThat(byName(pod.path("volumes"), "hudi-tsd-tmp").has("emptyDir")).isTrue();
    assertThat(byName(pod.path("volumes"), "hudi-tsd-history").has("emptyDir")).isTrue();
    JsonNode configMount = byName(container.path("volumeMounts"), "hudi-tsd-config");
    assertThat(configMount.path("mountPath").asText()).isEqualTo("/etc/tsd/tsd.yml");
    assertThat(configMount.path("subPath").asText()).isEqualTo("tsd.yml");
    assertThat(byName(pod.path("volumes"), "hudi-tsd-config").path("configMap").path("name").asText())
        .isEqualTo(FULLNAME);
    assertThat(hasName(pod.path("volumes"), "hudi-tsd-token")).isFalse();

    JsonNode config = rendered.daemonConfig();
    assertThat(config.path("tables").get(0).path("path").asText()).isEqualTo("hdfs://namenode:8020/warehouse/orders");
    assertThat(config.path("history").path("file").asText()).isEqualTo("/var/lib/tsd/history.jsonl");
    assertThat(config.path("auth").has("tokenFile")).isFalse();
    assertThat(config.path("server").path("applicationConnectors").get(0).path("port").asInt()).isEqualTo(8080);
    assertThat(config.path("server").path("adminConnectors").get(0).path("port").asInt()).isEqualTo(8081);

    JsonNode service = rendered.one("Service");
    assertThat(byName(service.path("spec").path("ports"), "http").path("port").asInt()).isEqualTo(8080);
    assertThat(byName(service.path("spec").path("ports"), "http").path("targetPort").asText()).isEqualTo("tsd-api");
    assertThat(byName(service.path("spec").path("ports"), "admin").path("port").asInt()).isEqualTo(8081);
    assertThat(service.path("spec").path("selector"))
        .isEqualTo(deployment.path("spec").path("selector").path("matchLabels"));
  }

  @Test
  void imageReplicasResourcesPortsAndPolicyValuesReachTheirObjects() {
    Rendered rendered = render(List.of(MINIMAL), Map.of(
        "image.repository", "registry.example.com/data/hudi-tsd", "image.tag", "0.2.0-rc1",
        "resources.limits.memory", "6Gi", "resources.requests.cpu", "2",
        "ports.api", "9080", "ports.admin", "9081",
        "config.polling.interval", "10s", "config.hoodie.hoodie\\.clean\\.commits\\.retained", "20"));
    JsonNode container = rendered.daemonContainer();
    assertThat(container.path("image").asText()).isEqualTo("registry.example.com/data/hudi-tsd:0.2.0-rc1");
    assertThat(container.path("resources").path("limits").path("memory").asText()).isEqualTo("6Gi");
    assertThat(container.path("resources").path("requests").path("cpu").asText()).isEqualTo("2");
    assertThat(byName(container.path("ports"), "tsd-admin").path("containerPort").asInt()).isEqualTo(9081);
    JsonNode config = rendered.daemonConfig();
    assertThat(config.path("server").path("adminConnectors").get(0).path("port").asInt()).isEqualTo(9081);
    assertThat(config.path("server").path("applicationConnectors").get(0).path("port").asInt()).isEqualTo(9080);
    assertThat(config.path("polling").path("interval").asText()).isEqualTo("10s");
    assertThat(config.path("hoodie").path("hoodie.clean.commits.retained").asText()).isEqualTo("20");
    assertThat(byName(rendered.one("Service").path("spec").path("ports"), "admin").path("port").asInt())
        .isEqualTo(9081);
  }

  @Test
  void aTokenValueBecomesASecretMountedAsTheTokenFile() {
    Rendered rendered = render(List.of(MINIMAL), Map.of("apiToken.value", "s3cret"));
    JsonNode secret = rendered.one("Secret");
    assertThat(secret.path("metadata").path("name").asText()).isEqualTo(FULLNAME + "-token");
    assertThat(new String(Base64.getDecoder().decode(secret.path("data").path("token").asText()),
        StandardCharsets.UTF_8)).isEqualTo("s3cret");
    JsonNode volume = byName(rendered.podSpec().path("volumes"), "hudi-tsd-token").path("secret");
    assertThat(volume.path("secretName").asText()).isEqualTo(FULLNAME + "-token");
    assertThat(volume.path("items").get(0).path("key").asText()).isEqualTo("token");
    assertThat(volume.path("items").get(0).path("path").asText()).isEqualTo("token");
    assertThat(mountPath(rendered.daemonContainer(), "hudi-tsd-token")).isEqualTo("/etc/tsd/secret");
    assertThat(rendered.daemonConfig().path("auth").path("tokenFile").asText()).isEqualTo("/etc/tsd/secret/token");
    // The daemon reads the token at start only: a new token rolls the pods.
    assertThat(rendered.one("Deployment").path("spec").path("template").path("metadata").path("annotations")
        .path("checksum/token").asText())
        .isNotEqualTo(render(List.of(MINIMAL), Map.of("apiToken.value", "other")).one("Deployment")
            .path("spec").path("template").path("metadata").path("annotations").path("checksum/token").asText());
  }

  @Test
  void anExistingSecretIsMountedAndNoSecretIsRendered() {
    Rendered rendered = render(example("existing-secret.yaml"));
    assertThat(rendered.has("Secret")).isFalse();
    JsonNode volume = byName(rendered.podSpec().path("volumes"), "hudi-tsd-token").path("secret");
    assertThat(volume.path("secretName").asText()).isEqualTo("tsd-api");
    assertThat(volume.path("items").get(0).path("key").asText()).isEqualTo("api-token");
    assertThat(volume.path("items").get(0).path("path").asText()).isEqualTo("token");
    JsonNode auth = rendered.daemonConfig().path("auth");
    assertThat(auth.path("tokenFile").asText()).isEqualTo("/etc/tsd/secret/token");
    assertThat(auth.path("protectReads").asBoolean()).isTrue();
  }

  @Test
  void zookeeperValuesBecomeTheLockKeysAndAllowReplicas() {
    Rendered rendered = render(example("zookeeper-ha.yaml"));
    assertThat(rendered.one("Deployment").path("spec").path("replicas").asInt()).isEqualTo(2);
    assertThat(rendered.one("Deployment").path("spec").path("strategy").path("type").asText())
        .isEqualTo("RollingUpdate");
    JsonNode hoodie = rendered.daemonConfig().path("hoodie");
    assertThat(hoodie.path("hoodie.write.lock.provider").asText()).isEqualTo(ZOOKEEPER_PROVIDER);
    assertThat(hoodie.path("hoodie.write.lock.zookeeper.url").asText())
        .isEqualTo("zk-0.zk-headless.zk:2181,zk-1.zk-headless.zk:2181,zk-2.zk-headless.zk:2181");
    assertThat(hoodie.path("hoodie.write.lock.zookeeper.base_path").asText()).isEqualTo("/hudi/locks");
    assertThat(hoodie.path("hoodie.write.lock.zookeeper.session_timeout_ms").isTextual()).isTrue();
    assertThat(hoodie.path("hoodie.write.lock.zookeeper.session_timeout_ms").asText()).isEqualTo("30000");
    assertThat(rendered.daemonConfig().path("discovery").path("roots").get(0).asText())
        .isEqualTo("s3a://lake/warehouse");
  }

  @Test
  void unsafeOrContradictoryValuesAreRefusedWithTheirNames() {
    assertThat(renderFailure(List.of(MINIMAL), Map.of("replicaCount", "2")))
        .contains("hudi-tsd: replicaCount > 1 needs a lock shared across processes: set zookeeper.connect");
    assertThat(renderFailure(List.of(example("zookeeper-ha.yaml")), Map.of("history.persistence.enabled", "true")))
        .contains("hudi-tsd: history.persistence with replicaCount > 1 would have the replicas share one history "
            + "file");
    assertThat(renderFailure(List.of(MINIMAL), Map.of("zookeeper.connect", "zk:2181",
        "config.hoodie.hoodie\\.write\\.lock\\.provider",
        "org.apache.hudi.client.transaction.lock.FileSystemBasedLockProvider")))
        .contains("hudi-tsd: zookeeper.connect is set, and config.hoodie sets hoodie.write.lock.provider to "
            + "org.apache.hudi.client.transaction.lock.FileSystemBasedLockProvider; set one of them");
    assertThat(renderFailure(List.of(MINIMAL), Map.of("apiToken.value", "x", "config.auth.tokenEnv", "TSD_TOKEN")))
        .contains("hudi-tsd: apiToken is set, and so is config.auth.tokenFile or config.auth.tokenEnv");
  }

  @Test
  void misspeltOrMistypedValuesAreRefusedByTheSchema() {
    assertThat(renderFailure(List.of(MINIMAL), Map.of("replicas", "2")))
        .contains("at '': additional properties 'replicas' not allowed");
    assertThat(renderFailure(List.of(MINIMAL), Map.of("prometheusRule.alerts.backlogHigh.byte", "1")))
        .contains("at '/prometheusRule/alerts/backlogHigh': additional properties 'byte' not allowed");
    assertThat(renderFailure(List.of(MINIMAL), Map.of("ports.api", "http")))
        .contains("at '/ports/api': got string, want integer");
    assertThat(renderFailure(List.of(MINIMAL), Map.of("prometheusRule.alerts.down.for", "5 minutes")))
        .contains("/prometheusRule/alerts/down/for");
  }

  @Test
  void historyPersistenceUsesAClaim() {
    Rendered rendered = render(List.of(MINIMAL), Map.of("history.persistence.enabled", "true",
        "history.persistence.size", "2Gi", "history.persistence.storageClass", "standard"));
    JsonNode claim = rendered.one("PersistentVolumeClaim");
    assertThat(claim.path("metadata").path("name").asText()).isEqualTo(FULLNAME + "-history");
    assertThat(claim.path("spec").path("resources").path("requests").path("storage").asText()).isEqualTo("2Gi");
    assertThat(claim.path("spec").path("storageClassName").asText()).isEqualTo("standard");
    assertThat(byName(rendered.podSpec().path("volumes"), "hudi-tsd-history").path("persistentVolumeClaim")
        .path("claimName").asText()).isEqualTo(FULLNAME + "-history");

    Rendered existing = render(List.of(MINIMAL), Map.of("history.persistence.enabled", "true",
        "history.persistence.existingClaim", "tsd-history"));
    assertThat(existing.has("PersistentVolumeClaim")).isFalse();
    assertThat(byName(existing.podSpec().path("volumes"), "hudi-tsd-history").path("persistentVolumeClaim")
        .path("claimName").asText()).isEqualTo("tsd-history");
  }

  @Test
  void hadoopAndCloudCredentialsArePassedTheUsualWays() {
    Rendered rendered = render(example("cloud-credentials.yaml"));
    JsonNode hadoop = rendered.named("ConfigMap", FULLNAME + "-hadoop");
    // hadoop-aws 3.3.6 ships with the AWS SDK v1: its class, not SDK v2's (TestChartOnS3 starts the daemon with it).
    assertThat(hadoop.path("data").path("core-site.xml").asText())
        .contains("<value>com.amazonaws.auth.WebIdentityTokenCredentialsProvider</value>")
        .doesNotContain("software.amazon.awssdk");
    JsonNode container = rendered.daemonContainer();
    assertThat(byName(container.path("env"), "AWS_ROLE_ARN").path("value").asText())
        .isEqualTo("arn:aws:iam::123456789012:role/hudi-tsd");
    assertThat(mountPath(container, "aws-token")).isEqualTo("/var/run/secrets/aws");
    assertThat(byName(container.path("env"), "HADOOP_CONF_DIR").path("value").asText()).isEqualTo("/etc/hadoop/conf");
    assertThat(mountPath(container, "hudi-tsd-hadoop-conf")).isEqualTo("/etc/hadoop/conf");
    assertThat(byName(container.path("env"), "HADOOP_USER_NAME").path("value").asText()).isEqualTo("tsd");
    assertThat(byName(container.path("env"), "AWS_REGION").path("value").asText()).isEqualTo("eu-west-1");
    assertThat(byName(container.path("env"), "TSD_JAVA_OPTS").path("value").asText())
        .contains("-XX:MaxRAMPercentage=70.0");
    assertThat(container.path("envFrom").get(0).path("secretRef").path("name").asText()).isEqualTo("lake-credentials");
    assertThat(mountPath(container, "gcp-key")).isEqualTo("/var/run/secrets/gcp");
    assertThat(byName(rendered.podSpec().path("volumes"), "gcp-key").path("secret").path("secretName").asText())
        .isEqualTo("gcp-key");

    Rendered existingConfigMap = render(List.of(MINIMAL), Map.of("hadoop.configMap", "hadoop-site"));
    assertThat(byName(existingConfigMap.podSpec().path("volumes"), "hudi-tsd-hadoop-conf").path("configMap")
        .path("name").asText()).isEqualTo("hadoop-site");
    assertThat(existingConfigMap.all("ConfigMap")).hasSize(1);
  }

  @Test
  void monitoringObjectsAppearOnlyWhenEnabled() {
    Rendered plain = render(MINIMAL);
    assertThat(plain.has("ServiceMonitor")).isFalse();
    assertThat(plain.has("PrometheusRule")).isFalse();

    Rendered rendered = render(example("monitoring.yaml"));
    JsonNode monitor = rendered.one("ServiceMonitor");
    assertThat(monitor.path("metadata").path("labels").path("release").asText()).isEqualTo("kube-prometheus-stack");
    JsonNode endpoint = monitor.path("spec").path("endpoints").get(0);
    assertThat(endpoint.path("port").asText()).isEqualTo("admin");
    assertThat(endpoint.path("path").asText()).isEqualTo("/prometheus");
    assertThat(endpoint.path("interval").asText()).isEqualTo("15s");
    JsonNode serviceLabels = rendered.one("Service").path("metadata").path("labels");
    monitor.path("spec").path("selector").path("matchLabels").fields().forEachRemaining(label ->
        assertThat(serviceLabels.path(label.getKey()).asText()).isEqualTo(label.getValue().asText()));

    JsonNode dashboard = rendered.named("ConfigMap", FULLNAME + "-dashboard");
    assertThat(dashboard.path("metadata").path("namespace").asText()).isEqualTo("monitoring");
    assertThat(dashboard.path("metadata").path("labels").path("grafana_dashboard").asText()).isEqualTo("1");
    assertThat(dashboard.path("metadata").path("annotations").path("grafana_folder").asText())
        .isEqualTo("Data platform");
  }

  @Test
  void alertThresholdsFromValuesAreInTheExpressions() throws Exception {
    Map<String, JsonNode> rules = Alerts.rules(render(example("monitoring.yaml")));
    assertThat(rules).containsOnlyKeys(Alerts.NAMES);
    String selector = "job=\"" + FULLNAME + "\",namespace=\"lake\"";
    assertThat(rules.get("HudiTsdBacklogHigh").path("expr").asText()).isEqualTo(
        "max by (namespace, table) (tsd_log_file_unscheduled_bytes{" + selector + "}) > 21474836480");
    assertThat(rules.get("HudiTsdBacklogHigh").path("for").asText()).isEqualTo("45m");
    assertThat(rules.get("HudiTsdBacklogGrowing").path("expr").asText()).isEqualTo(
        "max by (namespace, table) (deriv(tsd_log_file_unscheduled_bytes{" + selector + "}[4h])) * 3600 > 536870912");
    assertThat(rules.get("HudiTsdPlanPendingTooLong").path("expr").asText()).isEqualTo(
        "max by (namespace, table) (tsd_oldest_pending_plan_age_seconds{" + selector + "}) > 7200");
    assertThat(rules.get("HudiTsdCleanBlocked").path("expr").asText()).isEqualTo(
        "max by (namespace, table) (tsd_clean_blocked_seconds{" + selector + "}) > 14400");
    assertThat(rules.get("HudiTsdRunsFailing").path("expr").asText()).isEqualTo(
        "sum by (namespace, table, service) (increase(tsd_runs_total{" + selector + ",result=\"failed\"}[2h])) >= 5");
    assertThat(rules.get("HudiTsdDown").path("expr").asText())
        .isEqualTo("up{" + selector + "} == 0 or absent(up{" + selector + "})");
    assertThat(rules.get("HudiTsdDown").path("labels").path("severity").asText()).isEqualTo("page");
    for (Map.Entry<String, JsonNode> rule : rules.entrySet()) {
      assertThat(rule.getValue().path("labels").path("team").asText()).isEqualTo("data-platform");
      assertThat(rule.getValue().path("annotations").path("runbook_url").asText()).isEqualTo(
          "https://git.example.com/data/hudi-tsd/blob/main/docs/runbook.md#" + rule.getKey().toLowerCase());
      assertThat(rule.getValue().path("annotations").path("summary").asText()).isNotBlank();
    }
    // Every alert but the one about the daemon itself keeps the table label.
    for (String name : List.of("HudiTsdBacklogHigh", "HudiTsdBacklogGrowing", "HudiTsdPlanPendingTooLong",
        "HudiTsdCleanBlocked", "HudiTsdRunsFailing", "HudiTsdWriterFailures", "HudiTsdPollsFailing",
        "HudiTsdLockFailures", "HudiTsdIndexesMissing", "HudiTsdTableUnowned")) {
      assertThat(rules.get(name).path("expr").asText()).contains("by (namespace, table");
      assertThat(rules.get(name).path("annotations").path("summary").asText()).contains("{{ $labels.table }}");
    }
    // Default thresholds print as plain integers, not as Helm's floats (1.073741824e+10).
    Map<String, JsonNode> defaults = Alerts.rules(render(List.of(MINIMAL), Map.of("prometheusRule.enabled", "true")));
    assertThat(defaults.get("HudiTsdBacklogHigh").path("expr").asText()).endsWith(" > 10737418240");
    assertThat(defaults.get("HudiTsdBacklogGrowing").path("expr").asText()).endsWith("[6h])) * 3600 > 1073741824");
    assertThat(defaults.get("HudiTsdPlanPendingTooLong").path("expr").asText()).endsWith(" > 21600");
    assertThat(defaults.get("HudiTsdCleanBlocked").path("expr").asText()).endsWith(" > 7200");
    assertThat(defaults.get("HudiTsdRunsFailing").path("expr").asText()).endsWith("[1h])) >= 3");
    assertThat(defaults.get("HudiTsdWriterFailures").path("expr").asText()).contains("[15m])) >= 1 and on");
    assertThat(defaults.get("HudiTsdBacklogHigh").path("annotations").path("runbook_url").asText())
        .isEqualTo("docs/runbook.md#huditsdbackloghigh");
    Map<String, JsonNode> someOff = Alerts.rules(render(List.of(MINIMAL), Map.of("prometheusRule.enabled", "true",
        "prometheusRule.alerts.backlogGrowing.enabled", "false", "prometheusRule.job", "tsd-sidecars")));
    assertThat(someOff).doesNotContainKey("HudiTsdBacklogGrowing").hasSize(Alerts.NAMES.size() - 1);
    assertThat(someOff.get("HudiTsdDown").path("expr").asText()).contains("job=\"tsd-sidecars\"");
  }

  @Test
  void everyAlertLinksToASectionOfTheRunbook() throws Exception {
    String runbook = Files.readString(Path.of(System.getProperty("tsd.runbook", "../docs/runbook.md")));
    List<String> headings = new ArrayList<>();
    Matcher heading = Pattern.compile("(?m)^## (\\S+)$").matcher(runbook);
    while (heading.find()) {
      headings.add(heading.group(1));
    }
    assertThat(headings).containsExactlyElementsOf(Alerts.NAMES);
  }

  @Test
  void theSidecarExampleAddsTheDaemonToTheJobsPodWithTheSameLock(@TempDir Path work) throws Exception {
    Rendered rendered = HelmChart.renderSidecarExample(work);
    assertThat(rendered.has("Deployment")).isFalse();
    assertThat(rendered.has("Service")).isFalse();
    JsonNode pod = rendered.one("Job").path("spec").path("template").path("spec");
    JsonNode sidecar = Rendered.container(pod.path("initContainers"), "hudi-tsd");
    assertThat(sidecar.path("restartPolicy").asText()).isEqualTo("Always");
    assertThat(sidecar.path("args").toString()).isEqualTo("[\"server\",\"/etc/tsd/tsd.yml\"]");
    assertThat(byName(sidecar.path("ports"), "tsd-admin").path("containerPort").asInt()).isEqualTo(18081);
    assertProbe(sidecar.path("readinessProbe"), "/ready");
    assertThat(sidecar.path("securityContext").path("readOnlyRootFilesystem").asBoolean()).isTrue();
    Rendered.container(pod.path("containers"), "writer");
    for (JsonNode mount : sidecar.path("volumeMounts")) {
      assertThat(hasName(pod.path("volumes"), mount.path("name").asText())).as("volume of %s", mount).isTrue();
    }
    String configMap = byName(pod.path("volumes"), "hudi-tsd-config").path("configMap").path("name").asText();
    assertThat(configMap).isEqualTo("orders-hudi-tsd");
    JsonNode daemon = HelmChart.YAML.readTree(rendered.named("ConfigMap", configMap).path("data").path("tsd.yml")
        .asText());
    assertThat(daemon.path("server").path("adminConnectors").get(0).path("port").asInt()).isEqualTo(18081);

    // The writer gets the daemon's table path and lock keys.
    List<String> writerArgs = new ArrayList<>();
    Rendered.container(pod.path("containers"), "writer").path("args").forEach(arg -> writerArgs.add(arg.asText()));
    assertThat(writerArgs).containsSequence("--target-base-path", daemon.path("tables").get(0).path("path").asText());
    String properties = rendered.named("ConfigMap", "orders-writer").path("data").path("writer.properties").asText();
    assertThat(properties).startsWith("hoodie.write.concurrency.mode=OPTIMISTIC_CONCURRENCY_CONTROL\n")
        .contains("hoodie.cleaner.policy.failed.writes=LAZY\n");
    daemon.path("hoodie").fields().forEachRemaining(key -> {
      if (key.getKey().startsWith("hoodie.write.lock.")) {
        assertThat(properties).contains(key.getKey() + "=" + key.getValue().asText() + "\n");
      }
    });
    assertThat(daemon.path("hoodie").path("hoodie.write.lock.provider").asText()).isEqualTo(ZOOKEEPER_PROVIDER);
  }

  private static void assertProbe(JsonNode probe, String path) {
    assertThat(probe.path("httpGet").path("path").asText()).isEqualTo(path);
    assertThat(probe.path("httpGet").path("port").asText()).isEqualTo("tsd-admin");
  }

  private static String mountPath(JsonNode container, String volume) {
    return byName(container.path("volumeMounts"), volume).path("mountPath").asText();
  }
}
