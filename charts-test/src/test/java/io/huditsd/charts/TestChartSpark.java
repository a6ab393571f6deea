package io.huditsd.charts;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static io.huditsd.charts.HelmChart.FULLNAME;
import static io.huditsd.charts.HelmChart.NAMESPACE;
import static io.huditsd.charts.HelmChart.example;
import static io.huditsd.charts.HelmChart.render;
import static io.huditsd.charts.HelmChart.renderFailure;
import static io.huditsd.charts.Rendered.byName;
import static io.huditsd.charts.Rendered.hasName;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Spark engine's values: the spark section of tsd.yml as the daemon's SparkConfig reads it, the pod's log
 * volume and downward-API variables, and for Spark on Kubernetes the service accounts, Role and RoleBinding. Without
 * spark.enabled nothing of it is rendered.
 */
class TestChartSpark {
  private static final Path MINIMAL = example("minimal.yaml");
  private static final Path SUBMIT = example("spark-submit.yaml");
  private static final Path KUBERNETES = example("spark-kubernetes.yaml");
  private static final String SPARK_NAME = FULLNAME + "-spark";

  @Test
  void theDefaultsRenderNoSparkAtAll() {
    Rendered rendered = render(MINIMAL);
    assertThat(rendered.daemonConfig().has("spark")).isFalse();
    assertThat(rendered.has("Role")).isFalse();
    assertThat(rendered.has("RoleBinding")).isFalse();
    assertThat(rendered.all("ServiceAccount")).hasSize(1);
    assertThat(rendered.podSpec().path("automountServiceAccountToken").asBoolean()).isFalse();
    assertThat(hasName(rendered.podSpec().path("volumes"), "hudi-tsd-spark-logs")).isFalse();
    JsonNode container = rendered.daemonContainer();
    assertThat(hasName(container.path("env"), "POD_IP")).isFalse();
    assertThat(hasName(container.path("volumeMounts"), "hudi-tsd-spark-logs")).isFalse();
    // Kubernetes values alone do nothing while the engine is off.
    Rendered kubernetesOnly = render(List.of(MINIMAL), Map.of("spark.kubernetes.enabled", "true"));
    assertThat(kubernetesOnly.daemonConfig().has("spark")).isFalse();
    assertThat(kubernetesOnly.has("Role")).isFalse();
  }

  @Test
  void sparkSubmitInThePodGivesTheSparkSectionAndNoKubernetesObjects() {
    Rendered rendered = render(SUBMIT);
    JsonNode spark = rendered.daemonConfig().path("spark");
    assertThat(fieldNames(spark)).containsExactlyInAnyOrder("sparkHome", "master", "deployMode", "conf",
        "maxApplications", "timeout", "logDir", "uiUrl");
    assertThat(spark.path("sparkHome").asText()).isEqualTo("/opt/spark");
    assertThat(spark.path("master").asText()).isEqualTo("spark://spark-master.spark.svc:7077");
    assertThat(spark.path("deployMode").asText()).isEqualTo("client");
    assertThat(spark.path("maxApplications").isInt()).isTrue();
    assertThat(spark.path("maxApplications").asInt()).isEqualTo(2);
    assertThat(spark.path("timeout").asText()).isEqualTo("2h");
    assertThat(spark.path("logDir").asText()).isEqualTo("/var/log/tsd/spark");
    assertThat(spark.path("uiUrl").asText()).isEqualTo("http://spark-history.spark.svc:18080/history/{appId}");
    JsonNode conf = spark.path("conf");
    assertThat(conf.path("spark.executor.memory").asText()).isEqualTo("4g");
    assertThat(conf.path("spark.executor.cores").isTextual()).isTrue();
    // The client-mode driver runs in the pod and advertises the pod's IP to the executors.
    assertThat(conf.path("spark.driver.host").asText()).isEqualTo("${env:POD_IP}");
    assertThat(fieldNames(conf)).noneMatch(key -> key.startsWith("spark.kubernetes."));

    assertThat(rendered.has("Role")).isFalse();
    assertThat(rendered.has("RoleBinding")).isFalse();
    assertThat(rendered.all("ServiceAccount")).hasSize(1);
    assertThat(rendered.podSpec().path("automountServiceAccountToken").asBoolean()).isFalse();

    JsonNode container = rendered.daemonContainer();
    assertThat(container.path("image").asText()).isEqualTo("registry.example.com/data/hudi-tsd:0.1.0-spark");
    assertThat(byName(container.path("env"), "POD_IP").path("valueFrom").path("fieldRef").path("fieldPath").asText())
        .isEqualTo("status.podIP");
    // The root file system is read-only: the driver logs go to a volume at logDir.
    assertThat(byName(container.path("volumeMounts"), "hudi-tsd-spark-logs").path("mountPath").asText())
        .isEqualTo("/var/log/tsd/spark");
    assertThat(byName(rendered.podSpec().path("volumes"), "hudi-tsd-spark-logs").path("emptyDir").path("sizeLimit")
        .asText()).isEqualTo("1Gi");
  }

  @Test
  void everyKeyOfTheSparkSectionComesFromItsValue() {
    Rendered rendered = render(List.of(SUBMIT), Map.of("spark.sparkSubmit", "/usr/lib/spark/bin/spark-submit",
        "spark.master", "yarn", "spark.deployMode", "cluster",
        "spark.applicationJar", "/opt/tsd/hudi-tsd-spark-runner.jar",
        "spark.jars[0]", "/opt/tsd/hudi-tsd-lock-providers.jar",
        "spark.maxApplications", "4", "spark.timeout", "90m", "spark.logDir", "/var/log/spark-submissions",
        "spark.conf.spark\\.executor\\.instances", "3"));
    JsonNode spark = rendered.daemonConfig().path("spark");
    assertThat(spark.has("sparkHome")).isFalse();
    assertThat(spark.path("sparkSubmit").asText()).isEqualTo("/usr/lib/spark/bin/spark-submit");
    assertThat(spark.path("master").asText()).isEqualTo("yarn");
    assertThat(spark.path("deployMode").asText()).isEqualTo("cluster");
    assertThat(spark.path("applicationJar").asText()).isEqualTo("/opt/tsd/hudi-tsd-spark-runner.jar");
    assertThat(spark.path("jars").toString()).isEqualTo("[\"/opt/tsd/hudi-tsd-lock-providers.jar\"]");
    assertThat(spark.path("maxApplications").asInt()).isEqualTo(4);
    assertThat(spark.path("timeout").asText()).isEqualTo("90m");
    assertThat(spark.path("logDir").asText()).isEqualTo("/var/log/spark-submissions");
    // Numbers given with --set reach Spark as the strings SparkConf holds.
    assertThat(spark.path("conf").path("spark.executor.instances").isTextual()).isTrue();
    assertThat(spark.path("conf").path("spark.executor.instances").asText()).isEqualTo("3");
    // In cluster mode the driver is not in the pod: the pod's IP is nobody's driver host.
    assertThat(spark.path("conf").has("spark.driver.host")).isFalse();
    assertThat(byName(rendered.daemonContainer().path("volumeMounts"), "hudi-tsd-spark-logs").path("mountPath")
        .asText()).isEqualTo("/var/log/spark-submissions");
    // A driver host of the operator's own wins over the pod's IP.
    assertThat(render(List.of(SUBMIT), Map.of("spark.conf.spark\\.driver\\.host", "tsd-driver.lake.svc"))
        .daemonConfig().path("spark").path("conf").path("spark.driver.host").asText()).isEqualTo("tsd-driver.lake.svc");
  }

  @Test
  void sparkOnKubernetesGivesAServiceAccountARoleAndTheirConf() {
    Rendered rendered = render(KUBERNETES);
    JsonNode spark = rendered.daemonConfig().path("spark");
    assertThat(spark.path("master").asText()).isEqualTo("k8s://https://kubernetes.default.svc:443");
    assertThat(spark.path("deployMode").asText()).isEqualTo("client");
    JsonNode conf = spark.path("conf");
    assertThat(conf.path("spark.kubernetes.namespace").asText()).isEqualTo(NAMESPACE);
    assertThat(conf.path("spark.kubernetes.authenticate.driver.serviceAccountName").asText()).isEqualTo(SPARK_NAME);
    assertThat(conf.path("spark.kubernetes.authenticate.executor.serviceAccountName").asText()).isEqualTo(SPARK_NAME);
    assertThat(conf.path("spark.kubernetes.container.image").asText())
        .isEqualTo("registry.example.com/data/spark-hudi:3.5.5-hudi1.2.0");
    assertThat(conf.path("spark.kubernetes.container.image.pullPolicy").asText()).isEqualTo("IfNotPresent");
    // The client-mode driver runs in the daemon's pod, which then owns the executor pods.
    assertThat(conf.path("spark.kubernetes.driver.pod.name").asText()).isEqualTo("${env:POD_NAME}");
    assertThat(conf.path("spark.driver.host").asText()).isEqualTo("${env:POD_IP}");
    JsonNode env = rendered.daemonContainer().path("env");
    assertThat(byName(env, "POD_NAME").path("valueFrom").path("fieldRef").path("fieldPath").asText())
        .isEqualTo("metadata.name");

    // The executors' service account, beside the daemon's, with the storage identity.
    JsonNode sparkAccount = rendered.named("ServiceAccount", SPARK_NAME);
    assertThat(sparkAccount.path("metadata").path("namespace").asText()).isEqualTo(NAMESPACE);
    assertThat(sparkAccount.path("metadata").path("annotations").path("eks.amazonaws.com/role-arn").asText())
        .isEqualTo("arn:aws:iam::123456789012:role/hudi-tsd");
    rendered.named("ServiceAccount", FULLNAME);

    JsonNode role = rendered.one("Role");
    assertThat(role.path("metadata").path("name").asText()).isEqualTo(SPARK_NAME);
    assertThat(role.path("metadata").path("namespace").asText()).isEqualTo(NAMESPACE);
    for (String resource : List.of("pods", "services", "configmaps", "persistentvolumeclaims")) {
      assertThat(verbs(role, resource)).as("verbs on %s", resource)
          .contains("create", "get", "list", "watch", "delete", "deletecollection");
    }
    // The driver labels each executor pod with its id.
    assertThat(verbs(role, "pods")).contains("patch");

    JsonNode binding = rendered.one("RoleBinding");
    assertThat(binding.path("metadata").path("namespace").asText()).isEqualTo(NAMESPACE);
    assertThat(binding.path("roleRef").path("kind").asText()).isEqualTo("Role");
    assertThat(binding.path("roleRef").path("name").asText()).isEqualTo(SPARK_NAME);
    // In client mode only the daemon's pod calls the API (spark-submit and the driver); the executors get nothing.
    assertThat(subjects(binding)).containsExactly("ServiceAccount " + NAMESPACE + "/" + FULLNAME);
    // The pod runs as the bound account, with its token mounted.
    JsonNode pod = rendered.podSpec();
    assertThat(pod.path("serviceAccountName").asText()).isEqualTo(FULLNAME);
    assertThat(pod.path("automountServiceAccountToken").asBoolean()).isTrue();
  }

  @Test
  void clusterModeInAnotherNamespaceBindsTheDriversAccountThere() {
    Rendered rendered = render(List.of(KUBERNETES), Map.of("spark.deployMode", "cluster",
        "spark.kubernetes.namespace", "spark-jobs", "spark.kubernetes.serviceAccount.name", "spark-driver",
        "spark.kubernetes.imagePullSecrets[0]", "registry-credentials",
        "spark.conf.spark\\.kubernetes\\.file\\.upload\\.path", "s3a://lake/tmp/spark-upload"));
    JsonNode conf = rendered.daemonConfig().path("spark").path("conf");
    assertThat(conf.path("spark.kubernetes.namespace").asText()).isEqualTo("spark-jobs");
    assertThat(conf.path("spark.kubernetes.authenticate.driver.serviceAccountName").asText()).isEqualTo("spark-driver");
    assertThat(conf.path("spark.kubernetes.container.image.pullSecrets").asText()).isEqualTo("registry-credentials");
    assertThat(conf.path("spark.kubernetes.file.upload.path").asText()).isEqualTo("s3a://lake/tmp/spark-upload");
    // Neither the driver pod nor the pod IP is the daemon's in cluster mode.
    assertThat(conf.has("spark.kubernetes.driver.pod.name")).isFalse();
    assertThat(conf.has("spark.driver.host")).isFalse();

    assertThat(rendered.named("ServiceAccount", "spark-driver").path("metadata").path("namespace").asText())
        .isEqualTo("spark-jobs");
    assertThat(rendered.one("Role").path("metadata").path("namespace").asText()).isEqualTo("spark-jobs");
    JsonNode binding = rendered.one("RoleBinding");
    assertThat(binding.path("metadata").path("namespace").asText()).isEqualTo("spark-jobs");
    assertThat(subjects(binding)).containsExactlyInAnyOrder("ServiceAccount " + NAMESPACE + "/" + FULLNAME,
        "ServiceAccount spark-jobs/spark-driver");

    // A client-mode driver cannot own executors in another namespace than its pod's.
    assertThat(render(List.of(KUBERNETES), Map.of("spark.kubernetes.namespace", "spark-jobs")).daemonConfig()
        .path("spark").path("conf").has("spark.kubernetes.driver.pod.name")).isFalse();
  }

  @Test
  void theRbacAndTheServiceAccountCanBeLeftToTheOperator() {
    Rendered rendered = render(List.of(KUBERNETES), Map.of("spark.kubernetes.rbac.create", "false",
        "spark.kubernetes.serviceAccount.create", "false", "spark.kubernetes.serviceAccount.name", "spark"));
    assertThat(rendered.has("Role")).isFalse();
    assertThat(rendered.has("RoleBinding")).isFalse();
    assertThat(rendered.all("ServiceAccount")).extracting(account -> account.path("metadata").path("name").asText())
        .containsExactly(FULLNAME);
    assertThat(rendered.daemonConfig().path("spark").path("conf")
        .path("spark.kubernetes.authenticate.driver.serviceAccountName").asText()).isEqualTo("spark");
    assertThat(rendered.podSpec().path("automountServiceAccountToken").asBoolean()).isTrue();
  }

  @Test
  void incompleteOrContradictorySparkValuesAreRefusedWithTheirNames() {
    assertThat(renderFailure(List.of(MINIMAL), Map.of("spark.enabled", "true")))
        .contains("hudi-tsd: spark.enabled needs spark.master (spark://host:7077, yarn, local[n]), or "
            + "spark.kubernetes.enabled for Spark on Kubernetes");
    assertThat(renderFailure(List.of(SUBMIT), Map.of("spark.sparkHome", "/opt/spark",
        "spark.sparkSubmit", "/opt/spark/bin/spark-submit")))
        .contains("hudi-tsd: spark.sparkHome and spark.sparkSubmit are both set; set one of them");
    assertThat(renderFailure(List.of(SUBMIT), Map.of("spark.master", "k8s://https://kubernetes.default.svc:443")))
        .contains("hudi-tsd: spark.master is k8s://https://kubernetes.default.svc:443; set spark.kubernetes.enabled "
            + "too");
    assertThat(renderFailure(List.of(KUBERNETES), Map.of("spark.master", "spark://master:7077")))
        .contains("hudi-tsd: spark.kubernetes.enabled runs Spark on Kubernetes, and spark.master is "
            + "spark://master:7077");
    assertThat(renderFailure(List.of(KUBERNETES), Map.of("spark.kubernetes.image", "")))
        .contains("hudi-tsd: spark.kubernetes.image is required: the image of the driver and executor pods");
    assertThat(renderFailure(List.of(KUBERNETES), Map.of("spark.deployMode", "cluster")))
        .contains("hudi-tsd: spark.deployMode cluster on Kubernetes needs "
            + "spark.conf.spark.kubernetes.file.upload.path");
    assertThat(renderFailure(List.of(KUBERNETES), Map.of("spark.conf.spark\\.kubernetes\\.namespace", "other")))
        .contains("hudi-tsd: spark.conf sets spark.kubernetes.namespace to other, and the chart renders lake for "
            + "spark.kubernetes.namespace; set spark.kubernetes.namespace instead");
    assertThat(renderFailure(List.of(KUBERNETES),
        Map.of("spark.conf.spark\\.kubernetes\\.authenticate\\.driver\\.serviceAccountName", "default")))
        .contains("hudi-tsd: spark.conf sets spark.kubernetes.authenticate.driver.serviceAccountName to default");
    assertThat(renderFailure(List.of(MINIMAL), Map.of("config.spark.master", "local[2]")))
        .contains("hudi-tsd: config.spark is rendered from the chart's spark values; set spark.enabled and spark.* "
            + "instead");
    assertThat(renderFailure(List.of(SUBMIT), Map.of("spark.deployMode", "driver")))
        .contains("/spark/deployMode");
    assertThat(renderFailure(List.of(SUBMIT), Map.of("spark.kubernetes.serviceAcount.name", "spark")))
        .contains("additional properties 'serviceAcount' not allowed");
  }

  @Test
  void theImageOfTheExecutorsMayComeFromTheConf() {
    Rendered rendered = render(List.of(KUBERNETES), Map.of("spark.kubernetes.image", "",
        "spark.conf.spark\\.kubernetes\\.container\\.image", "spark-hudi:3.5.5"));
    assertThat(rendered.daemonConfig().path("spark").path("conf").path("spark.kubernetes.container.image").asText())
        .isEqualTo("spark-hudi:3.5.5");
  }

  private static List<String> fieldNames(JsonNode node) {
    List<String> names = new ArrayList<>();
    node.fieldNames().forEachRemaining(names::add);
    return names;
  }

  private static List<String> verbs(JsonNode role, String resource) {
    List<String> verbs = new ArrayList<>();
    for (JsonNode rule : role.path("rules")) {
      boolean core = rule.path("apiGroups").size() == 1 && rule.path("apiGroups").get(0).asText().isEmpty();
      for (JsonNode named : rule.path("resources")) {
        if (core && named.asText().equals(resource)) {
          rule.path("verbs").forEach(verb -> verbs.add(verb.asText()));
        }
      }
    }
    return verbs;
  }

  private static List<String> subjects(JsonNode binding) {
    List<String> subjects = new ArrayList<>();
    for (JsonNode subject : binding.path("subjects")) {
      subjects.add(subject.path("kind").asText() + " " + subject.path("namespace").asText() + "/"
          + subject.path("name").asText());
    }
    return subjects;
  }
}
