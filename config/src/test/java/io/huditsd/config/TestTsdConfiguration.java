package io.huditsd.config;

import io.dropwizard.configuration.ConfigurationParsingException;
import io.dropwizard.util.Duration;
import org.junit.jupiter.api.Test;

import java.util.EnumSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import static io.huditsd.config.ConfigurationFiles.parse;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The YAML model as Dropwizard's configuration factory reads it. */
class TestTsdConfiguration {
  @Test
  void unsetSectionsTakeTheirDocumentedDefaults() throws Exception {
    TsdConfiguration configuration = parse("""
        tables:
          - path: /data/orders
        """);

    assertThat(configuration.getPolling()).isEqualTo(new PollingConfig(Duration.seconds(30), 4, Duration.minutes(10)));
    assertThat(configuration.getWorkers()).isEqualTo(new WorkerConfig(Runtime.getRuntime().availableProcessors(), 3,
        Duration.seconds(30), Duration.seconds(10), 2, MemoryBudget.defaults(), Duration.seconds(20)));
    assertThat(configuration.getDiscovery()).isEqualTo(new DiscoveryConfig(java.util.List.of(), Duration.minutes(5),
        3, Map.of()));
    assertThat(configuration.getServices()).isEqualTo(EnumSet.allOf(ServiceType.class));
    assertThat(configuration.getHoodie()).isEmpty();
    assertThat(configuration.getTables()).containsExactly(TableSpec.ofPath("/data/orders"));
  }

  @Test
  void durationsAcceptDropwizardUnits() throws Exception {
    TsdConfiguration configuration = parse("""
        discovery:
          roots: [/data]
          interval: 2 minutes
          maxDepth: 5
        polling:
          interval: 1500ms
          threads: 8
          maxBackoff: 1h
        workers:
          count: 3
          maxAttempts: 5
          retryBackoff: 0s
          heartbeatInterval: 250 milliseconds
          heartbeatTolerableMisses: 0
          memoryBudget: 1536MiB
          shutdownGracePeriod: 5s
        """);

    assertThat(configuration.getDiscovery().interval().toMilliseconds()).isEqualTo(120_000);
    assertThat(configuration.getDiscovery().maxDepth()).isEqualTo(5);
    assertThat(configuration.getPolling().interval().toMilliseconds()).isEqualTo(1_500);
    assertThat(configuration.getPolling().threads()).isEqualTo(8);
    assertThat(configuration.getPolling().maxBackoff().toMilliseconds()).isEqualTo(3_600_000);
    assertThat(configuration.getWorkers()).isEqualTo(new WorkerConfig(3, 5, Duration.seconds(0),
        Duration.milliseconds(250), 0, MemoryBudget.parse("1536MiB"), Duration.seconds(5)));
    assertThat(HeartbeatSettings.of(configuration.getWorkers()).expiryMillis()).isEqualTo(250);
  }

  @Test
  void tablesCarryTheirOwnOverrides() throws Exception {
    TsdConfiguration configuration = parse("""
        services: [compaction, clean]
        hoodie:
          hoodie.clean.commits.retained: "10"
        tables:
          - path: /data/orders
            id: orders
            services: [CLUSTERING]
            pollInterval: 5s
            hoodie:
              hoodie.clustering.inline.max.commits: "2"
          - path: /data/customers
        """);

    assertThat(configuration.getServices()).containsExactlyInAnyOrder(ServiceType.COMPACTION, ServiceType.CLEAN);
    assertThat(configuration.getTables()).containsExactly(
        new TableSpec("/data/orders", Optional.of("orders"), Optional.of(Set.of(ServiceType.CLUSTERING)),
            Optional.of(Duration.seconds(5)), Map.of("hoodie.clustering.inline.max.commits", "2")),
        TableSpec.ofPath("/data/customers"));
  }

  @Test
  void anEmptyServiceListTurnsEveryServiceOff() throws Exception {
    TsdConfiguration configuration = parse("""
        services: []
        tables:
          - path: /data/orders
            services: []
        """);

    assertThat(configuration.getServices()).isEmpty();
    assertThat(configuration.getTables().get(0).services()).contains(Set.of());
  }

  @Test
  void unknownTopLevelKeyIsRejectedByName() {
    assertThatThrownBy(() -> parse("""
        pollling:
          interval: 5s
        """))
        .isInstanceOf(ConfigurationParsingException.class)
        .hasMessageStartingWith("tsd.yml has an error:\n  * Unrecognized field at: pollling\n    Did you mean?:\n"
            + "      - polling\n");
  }

  @Test
  void unknownKeyInsideASectionIsRejectedWithItsPath() {
    assertThatThrownBy(() -> parse("""
        polling:
          intervall: 5s
        """))
        .isInstanceOf(ConfigurationParsingException.class)
        .hasMessage("tsd.yml has an error:\n  * Unrecognized field at: polling.intervall\n    Did you mean?:\n"
            + "      - interval\n      - threads\n      - maxBackoff\n");
    assertThatThrownBy(() -> parse("""
        tables:
          - path: /data/orders
            colour: red
        """))
        .isInstanceOf(ConfigurationParsingException.class)
        .hasMessageStartingWith("tsd.yml has an error:\n  * Unrecognized field at: tables.[0].colour\n");
  }

  @Test
  void invalidValuesAreRejectedWithTheReason() {
    assertThatThrownBy(() -> parse("polling:\n  interval: 0s\n"))
        .isInstanceOf(ConfigurationParsingException.class)
        .hasMessageContaining("Failed to parse configuration at: polling;")
        .hasMessageContaining("interval must be positive, got 0 seconds");
    assertThatThrownBy(() -> parse("polling:\n  interval: 5m\n  maxBackoff: 1m\n"))
        .hasMessageContaining("maxBackoff (1 minute) must not be shorter than interval (5 minutes)");
    assertThatThrownBy(() -> parse("workers:\n  count: 0\n"))
        .hasMessageContaining("count must be between 1 and 256, got 0");
    assertThatThrownBy(() -> parse("workers:\n  heartbeatInterval: 50ms\n"))
        .hasMessageContaining("heartbeatInterval must be at least 100ms, got 50 milliseconds");
    assertThatThrownBy(() -> new WorkerConfig(1, 1, Duration.seconds(1), Duration.seconds(1), 0,
        MemoryBudget.defaults(), Duration.milliseconds(-1)))
        .hasMessage("shutdownGracePeriod must not be negative, got -1 milliseconds");
    assertThatThrownBy(() -> parse("workers:\n  memoryBudget: lots\n"))
        .hasMessageContaining("Failed to parse configuration at: workers;")
        .hasMessageContaining("workers.memoryBudget must be a size such as 1536MiB or 2GiB, or a percentage of the"
            + " maximum heap such as 60%, got 'lots'");
    assertThatThrownBy(() -> parse("workers:\n  memoryBudget: 150%\n"))
        .hasMessageContaining("workers.memoryBudget must be between 1% and 100% of the maximum heap, got 150%");
    assertThatThrownBy(() -> parse("discovery:\n  roots: [/data]\n  maxDepth: 11\n"))
        .hasMessageContaining("maxDepth must be between 1 and 10, got 11");
    assertThatThrownBy(() -> parse("discovery:\n  roots: ['']\n"))
        .hasMessageContaining("roots must not contain empty entries");
    assertThatThrownBy(() -> parse("services: [compaction, vacuum]\n"))
        .hasMessageContaining("Unknown service 'vacuum', expected one of compaction, clustering, clean, archive");
  }

  @Test
  void tableEntriesAreCheckedOnTheirOwn() {
    assertThatThrownBy(() -> parse("tables:\n  - id: orders\n"))
        .isInstanceOf(ConfigurationParsingException.class)
        .hasMessageContaining("Failed to parse configuration at: tables.[0].path;")
        .hasMessageContaining("Missing required creator property 'path'");
    assertThatThrownBy(() -> parse("tables:\n  - path: /data/orders\n    id: 'orders eu'\n"))
        .hasMessageContaining("table id 'orders eu' must be 1-128 characters");
    assertThatThrownBy(() -> parse("tables:\n  - path: /data/orders\n    pollInterval: 0s\n"))
        .hasMessageContaining("pollInterval must be positive, got 0 seconds");
  }

  @Test
  void theHaSectionNamesTheEnsembleAndDefaultsTheRest() throws Exception {
    assertThat(parse("tables:\n  - path: /data/orders\n").getHa()).isEmpty();
    HaConfig ha = parse("""
        ha:
          zookeeper: zk1:2181,zk2:2181
        tables:
          - path: /data/orders
        """).getHa().orElseThrow();
    assertThat(ha.zookeeper()).isEqualTo("zk1:2181,zk2:2181");
    assertThat(ha.basePath()).isEqualTo("/hudi-tsd");
    assertThat(ha.replicaId()).endsWith("-" + ProcessHandle.current().pid());
    assertThat(ha.sessionTimeout()).isEqualTo(Duration.seconds(30));
    assertThat(parse("ha:\n  zookeeper: zk1\n  replicaId: tsd-a\n  basePath: /tsd/prod\n  sessionTimeout: 10s\n"
        + "tables:\n  - path: /data/orders\n").getHa()).contains(
        new HaConfig("zk1", "/tsd/prod", "tsd-a", Duration.seconds(10)));
    assertThatThrownBy(() -> parse("ha:\n  basePath: /tsd\n"))
        .hasMessageContaining("zookeeper is required: the ensemble's host:port list");
    assertThatThrownBy(() -> parse("ha:\n  zookeeper: zk1\n  replicaId: 'tsd a'\n"))
        .hasMessageContaining("replicaId must be 1 to 128 letters, digits, '_', '-' or '.', got tsd a");
    assertThatThrownBy(() -> parse("ha:\n  zookeeper: zk1\n  basePath: tsd/\n"))
        .hasMessageContaining("basePath must be an absolute znode path like /hudi-tsd, got tsd/");
  }
}
