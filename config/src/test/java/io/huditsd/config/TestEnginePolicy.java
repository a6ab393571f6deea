package io.huditsd.config;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static io.huditsd.config.ConfigurationFiles.parse;
import static org.assertj.core.api.Assertions.assertThat;

/** The engine policy keys in the layered hoodie maps: checked as daemon keys, resolved per service. */
class TestEnginePolicy {
  @Test
  void defaultsToAutoWithAGibibyteThreshold() {
    EnginePolicy policy = EnginePolicy.of(Map.of());

    assertThat(policy.mode(ServiceType.COMPACTION)).isEqualTo(EnginePolicy.Mode.AUTO);
    assertThat(policy.mode(ServiceType.CLUSTERING)).isEqualTo(EnginePolicy.Mode.AUTO);
    assertThat(policy.sparkMinBytes()).isEqualTo(64L << 20);
    assertThat(policy.requiresSpark()).isFalse();
  }

  @Test
  void aServiceKeyWinsOverTheEngineKeyAndOtherServicesStayInTheDaemon() {
    EnginePolicy policy = EnginePolicy.of(Map.of(EnginePolicy.ENGINE, "spark",
        EnginePolicy.ENGINE_COMPACTION, "JAVA", EnginePolicy.SPARK_MIN_BYTES, "64MiB"));

    assertThat(policy.mode(ServiceType.COMPACTION)).isEqualTo(EnginePolicy.Mode.JAVA);
    assertThat(policy.mode(ServiceType.CLUSTERING)).isEqualTo(EnginePolicy.Mode.SPARK);
    assertThat(policy.mode(ServiceType.CLEAN)).isEqualTo(EnginePolicy.Mode.JAVA);
    assertThat(policy.mode(ServiceType.INDEX)).isEqualTo(EnginePolicy.Mode.JAVA);
    assertThat(policy.sparkMinBytes()).isEqualTo(64L << 20);
    assertThat(policy.requiresSpark()).isTrue();
  }

  @Test
  void theTablesLayerWinsOverDiscoveryAndGlobal() throws Exception {
    TsdConfiguration configuration = parse("""
        spark:
          sparkHome: /opt/spark
          master: local[1]
        hoodie:
          tsd.engine: spark
          tsd.engine.spark.min.bytes: "100"
        tables:
          - path: /data/orders
            hoodie:
              tsd.engine.clustering: java
        """);
    ServicedTable table = new ServicedTables(configuration).explicit(configuration.getTables().get(0));

    EnginePolicy policy = EnginePolicy.of(table.hoodieKeys());
    assertThat(policy.mode(ServiceType.COMPACTION)).isEqualTo(EnginePolicy.Mode.SPARK);
    assertThat(policy.mode(ServiceType.CLUSTERING)).isEqualTo(EnginePolicy.Mode.JAVA);
    assertThat(policy.sparkMinBytes()).isEqualTo(100);
    assertThat(ConfigurationChecks.check(configuration)).isEmpty();
  }

  @Test
  void badDaemonKeysAndValuesAreErrorsNamingWhere() throws Exception {
    List<String> errors = ConfigurationChecks.check(parse("""
        hoodie:
          tsd.engine: flink
          tsd.engine.spark.min.bytes: lots
        tables:
          - path: /data/orders
            hoodie:
              tsd.engin.clustering: spark
        """));

    assertThat(errors).containsExactly(
        "hoodie: key 'tsd.engine' has value 'flink', which is not one of auto, java, spark",
        "hoodie: key 'tsd.engine.spark.min.bytes' has value 'lots', which is not a number of bytes or a size "
            + "such as 512MiB",
        "tables[0].hoodie: key 'tsd.engin.clustering' is not a daemon key; the daemon reads tsd.engine, "
            + "tsd.engine.clustering, tsd.engine.compaction, tsd.engine.spark.min.bytes");
  }

  @Test
  void sparkAsPolicyWithoutASparkSectionIsAnError() throws Exception {
    assertThat(ConfigurationChecks.check(parse("""
        discovery:
          roots: [/data/lake]
          hoodie:
            tsd.engine.compaction: spark
        tables:
          - path: /data/orders
            hoodie:
              tsd.engine: auto
        """))).containsExactly(
        "discovery.hoodie: key 'tsd.engine.compaction' is spark, but tsd.yml has no spark section to submit with");
  }
}
