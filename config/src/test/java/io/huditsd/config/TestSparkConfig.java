package io.huditsd.config;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.Optional;

import static io.huditsd.config.ConfigurationFiles.parse;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The optional spark section of tsd.yml, parsed as Dropwizard parses the daemon's file. */
class TestSparkConfig {
  @Test
  void absentMeansNoSpark() throws Exception {
    assertThat(parse("tables: [{path: /data/orders}]\n").getSpark()).isEmpty();
  }

  @Test
  void everyKeyIsRead() throws Exception {
    SparkConfig spark = parse("""
        spark:
          sparkHome: /opt/spark
          master: spark://host-1:7077
          deployMode: cluster
          applicationJar: /opt/tsd/runner.jar
          jars: [/opt/tsd/locks.jar]
          conf: {spark.executor.memory: 4g, spark.executor.cores: "2"}
          maxApplications: 3
          timeout: 90m
          logDir: /var/log/tsd/spark
          uiUrl: "http://history:18080/history/{appId}"
        """).getSpark().orElseThrow();

    assertThat(spark.resolvedSparkHome()).isEqualTo("/opt/spark");
    assertThat(spark.master()).isEqualTo("spark://host-1:7077");
    assertThat(spark.deployMode()).isEqualTo("cluster");
    assertThat(spark.applicationJar()).contains("/opt/tsd/runner.jar");
    assertThat(spark.jars()).contains(List.of("/opt/tsd/locks.jar"));
    assertThat(spark.conf()).containsExactly(Map.entry("spark.executor.memory", "4g"),
        Map.entry("spark.executor.cores", "2"));
    assertThat(spark.maxApplications()).isEqualTo(3);
    assertThat(spark.timeout().toMinutes()).isEqualTo(90);
    assertThat(spark.logDir()).contains("/var/log/tsd/spark");
    assertThat(spark.uiUrlOf("app-1")).contains("http://history:18080/history/app-1");
  }

  @Test
  void defaults() throws Exception {
    SparkConfig spark = parse("spark:\n  sparkSubmit: /opt/spark-3.5/bin/spark-submit\n  master: local[2]\n")
        .getSpark().orElseThrow();

    assertThat(spark.resolvedSparkHome()).isEqualTo("/opt/spark-3.5");
    assertThat(spark.sparkHomeKey()).isEqualTo("spark.sparkSubmit");
    assertThat(spark.deployMode()).isEqualTo("client");
    assertThat(spark.applicationJar()).isEmpty();
    assertThat(spark.jars()).isEmpty();
    assertThat(spark.maxApplications()).isEqualTo(SparkConfig.MAX_APPLICATIONS_DEFAULT);
    assertThat(spark.timeout()).isEqualTo(SparkConfig.TIMEOUT_DEFAULT);
    assertThat(spark.uiUrlOf("local-1")).isEqualTo(Optional.empty());
  }

  @Test
  void everyMasterFormSparkAccepts() throws Exception {
    for (String master : List.of("local", "local[1]", "local[*]", "local[4,2]", "spark://a:7077",
        "spark://a:7077,b:7077", "k8s://https://kubernetes.default.svc:443", "k8s://https://10.0.0.1", "yarn")) {
      assertThat(SparkConfig.isKnownMaster(master)).as(master).isTrue();
    }
    for (String master : List.of("spark://a", "local[0]", "mesos://a:5050", "k8s://", "yarn-cluster")) {
      assertThat(SparkConfig.isKnownMaster(master)).as(master).isFalse();
    }
  }

  @Test
  void badValuesAreErrorsNamingTheKey() {
    assertThatThrownBy(() -> parse("spark:\n  master: local[1]\n"))
        .hasMessageContaining("spark: set one of sparkHome (a Spark installation) and sparkSubmit (its "
            + "bin/spark-submit), got neither");
    assertThatThrownBy(() -> parse("spark:\n  sparkHome: /a\n  sparkSubmit: /a/bin/spark-submit\n  master: yarn\n"))
        .hasMessageContaining("not both");
    assertThatThrownBy(() -> parse("spark:\n  sparkSubmit: /usr/local/submit.sh\n  master: yarn\n"))
        .hasMessageContaining("spark.sparkSubmit: '/usr/local/submit.sh' must be a bin/spark-submit script");
    assertThatThrownBy(() -> parse("spark:\n  sparkHome: /opt/spark\n"))
        .hasMessageContaining("spark.master is required");
    assertThatThrownBy(() -> parse("spark:\n  sparkHome: /opt/spark\n  master: mesos://m:5050\n"))
        .hasMessageContaining("spark.master: 'mesos://m:5050' is not a Spark master URL");
    assertThatThrownBy(() -> parse("spark:\n  sparkHome: /opt/spark\n  master: yarn\n  deployMode: server\n"))
        .hasMessageContaining("spark.deployMode: 'server' must be client or cluster");
    assertThatThrownBy(() -> parse("spark:\n  sparkHome: /opt/spark\n  master: local[1]\n  deployMode: cluster\n"))
        .hasMessageContaining("spark.deployMode: cluster cannot be used with master local[1]");
    assertThatThrownBy(() -> parse("spark:\n  sparkHome: /opt/spark\n  master: yarn\n  maxApplications: 0\n"))
        .hasMessageContaining("spark.maxApplications must be between 1 and 256, got 0");
    assertThatThrownBy(() -> parse("spark:\n  sparkHome: /opt/spark\n  master: yarn\n  timeout: 10ms\n"))
        .hasMessageContaining("spark.timeout must be at least 1s, got 10 milliseconds");
    assertThatThrownBy(() -> parse("spark:\n  sparkHome: /opt/spark\n  master: yarn\n  conf: {executor.memory: 4g}\n"))
        .hasMessageContaining("spark.conf: key 'executor.memory' is not a spark.* setting");
    assertThatThrownBy(() -> parse("spark:\n  sparkHome: /opt/spark\n  master: yarn\n  masterr: x\n"))
        .hasMessageContaining("Unrecognized field at: spark.masterr");
  }
}
