package io.huditsd.config;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Map;
import java.util.Set;

import static io.huditsd.config.ConfigurationFiles.parse;
import static org.assertj.core.api.Assertions.assertThat;

/** How a table's settings resolve: global, then discovery root, then the table's own. */
class TestServicedTables {
  private static final String YAML = """
      services: [compaction, clean]
      polling:
        interval: 20s
      hoodie:
        hoodie.clean.commits.retained: "10"
        hoodie.keep.max.commits: "30"
      discovery:
        roots: [/data/lake]
        hoodie:
          hoodie.keep.max.commits: "40"
      tables:
        - path: /data/orders/
          id: orders
          services: [clustering]
          pollInterval: 5s
          hoodie:
            hoodie.clean.commits.retained: "3"
        - path: /data/customers
      """;

  @Test
  void explicitTablesOverrideGlobalSettings() throws Exception {
    TsdConfiguration configuration = parse(YAML);
    ServicedTables tables = new ServicedTables(configuration);

    ServicedTable orders = tables.explicit(configuration.getTables().get(0));

    assertThat(orders).isEqualTo(new ServicedTable("orders", "file:/data/orders", Set.of(ServiceType.CLUSTERING),
        Duration.ofSeconds(5), Map.of("hoodie.clean.commits.retained", "3", "hoodie.keep.max.commits", "30"),
        MetadataIndexes.none()));
    assertThat(orders.runs(ServiceType.CLUSTERING)).isTrue();
    assertThat(orders.runs(ServiceType.COMPACTION)).isFalse();
  }

  @Test
  void explicitTablesWithoutOverridesTakeGlobalSettingsAndADerivedId() throws Exception {
    TsdConfiguration configuration = parse(YAML);

    ServicedTable customers = new ServicedTables(configuration).explicit(configuration.getTables().get(1));

    assertThat(customers).isEqualTo(new ServicedTable(TableIds.derive("file:/data/customers"),
        "file:/data/customers", Set.of(ServiceType.COMPACTION, ServiceType.CLEAN), Duration.ofSeconds(20),
        Map.of("hoodie.clean.commits.retained", "10", "hoodie.keep.max.commits", "30"), MetadataIndexes.none()));
  }

  @Test
  void discoveredTablesTakeTheDiscoveryKeysOverTheGlobalOnes() throws Exception {
    ServicedTable discovered = new ServicedTables(parse(YAML)).discovered("/data/lake/events/");

    assertThat(discovered).isEqualTo(new ServicedTable(TableIds.derive("file:/data/lake/events"),
        "file:/data/lake/events", Set.of(ServiceType.COMPACTION, ServiceType.CLEAN), Duration.ofSeconds(20),
        Map.of("hoodie.clean.commits.retained", "10", "hoodie.keep.max.commits", "40"), MetadataIndexes.none()));
  }

  @Test
  void theWritersLockFromHudiDefaultsAppliesUnlessTheConfigurationNamesOne() throws Exception {
    Map<String, String> writers = Map.of(
        "hoodie.write.lock.provider", "org.apache.hudi.client.transaction.lock.ZookeeperBasedLockProvider",
        "hoodie.write.lock.zookeeper.url", "zk1");
    TsdConfiguration configuration = parse(YAML + """
            hoodie:
              hoodie.write.lock.provider: org.apache.hudi.client.transaction.lock.InProcessLockProvider
        """);
    ServicedTables tables = new ServicedTables(configuration, writers);

    assertThat(tables.explicit(configuration.getTables().get(0)).hoodieKeys())
        .containsAllEntriesOf(writers);
    assertThat(tables.discovered("/data/lake/events").hoodieKeys()).containsAllEntriesOf(writers);
    assertThat(tables.explicit(configuration.getTables().get(1)).hoodieKeys())
        .containsEntry("hoodie.write.lock.provider", "org.apache.hudi.client.transaction.lock.InProcessLockProvider")
        .containsEntry("hoodie.write.lock.zookeeper.url", "zk1");
  }
}
