package io.huditsd.config;

import org.junit.jupiter.api.Test;

import java.util.List;

import static io.huditsd.config.ConfigurationFiles.parse;
import static org.assertj.core.api.Assertions.assertThat;

/** The daemon's checks across sections, on files parsed by Dropwizard's factory. */
class TestConfigurationChecks {
  private static List<String> errorsOf(String yaml) throws Exception {
    return ConfigurationChecks.check(parse(yaml));
  }

  @Test
  void aValidFileHasNoErrors() throws Exception {
    assertThat(errorsOf("""
        discovery:
          roots: [/data/lake]
          hoodie:
            hoodie.clean.commits.retained: "5"
        tables:
          - path: /data/orders
            hoodie:
              hoodie.compact.inline.max.delta.commits: "3"
              hoodie.write.lock.zookeeper.url: zk1
        hoodie:
          hoodie.cleaner.commits.retained: "10"
        """)).isEmpty();
  }

  @Test
  void misspeltHoodieKeysAreRejectedWithTheClosestKey() throws Exception {
    assertThat(errorsOf("""
        hoodie:
          hoodie.compact.inline.max.delta.commit: "3"
        discovery:
          roots: [/data/lake]
          hoodie:
            hoodie.clean.comits.retained: "5"
        tables:
          - path: /data/orders
          - path: /data/customers
            hoodie:
              hoodie.clustering.inline.max.commit: "4"
        """)).containsExactly(
        "hoodie: key 'hoodie.compact.inline.max.delta.commit' is not a Hudi configuration key"
            + " (did you mean hoodie.compact.inline.max.delta.commits?)",
        "discovery.hoodie: key 'hoodie.clean.comits.retained' is not a Hudi configuration key"
            + " (did you mean hoodie.clean.commits.retained?)",
        "tables[1].hoodie: key 'hoodie.clustering.inline.max.commit' is not a Hudi configuration key"
            + " (did you mean hoodie.clustering.inline.max.commits?)");
  }

  @Test
  void anUnknownKeyFarFromEveryHudiKeyGetsNoSuggestion() throws Exception {
    assertThat(errorsOf("""
        tables:
          - path: /data/orders
        hoodie:
          hoodie.make.it.fast: "true"
        """)).containsExactly("hoodie: key 'hoodie.make.it.fast' is not a Hudi configuration key");
  }

  @Test
  void onlyHoodieKeysMayBeSet() throws Exception {
    assertThat(errorsOf("""
        tables:
          - path: /data/orders
            hoodie:
              spark.executor.memory: 4g
        """)).containsExactly(
        "tables[0].hoodie: key 'spark.executor.memory' is not a hoodie.* key; only hoodie.* keys and the daemon's "
            + "tsd.engine keys may be set here");
  }

  @Test
  void daemonOwnedKeysAreRefusedWithTheReason() throws Exception {
    assertThat(errorsOf("""
        tables:
          - path: /data/orders
        hoodie:
          hoodie.write.table.version: "9"
          hoodie.write.auto.upgrade: "true"
          hoodie.embed.timeline.server: "true"
          hoodie.write.markers.type: TIMELINE_SERVER_BASED
          hoodie.base.path: /elsewhere
          hoodie.table.name: other
          hoodie.table.type: COPY_ON_WRITE
          hoodie.table.version: "8"
          hoodie.log.compaction.enable: "true"
          hoodie.write.lock.conflict.resolution.strategy: org.apache.hudi.client.transaction.SimpleConcurrentFileWritesConflictResolutionStrategy
        """)).containsExactly(
        // The hoodie map is sorted by key, so errors come in key order.
        "hoodie: key 'hoodie.base.path' may not be set: it comes from the table's path",
        "hoodie: key 'hoodie.embed.timeline.server' may not be set: the embedded timeline server is not available"
            + " on the Java engine",
        "hoodie: key 'hoodie.log.compaction.enable' may not be set: log compaction cannot run on the Java engine",
        "hoodie: key 'hoodie.table.name' may not be set: it comes from the table's hoodie.properties",
        "hoodie: key 'hoodie.table.type' may not be set: it comes from the table's hoodie.properties",
        "hoodie: key 'hoodie.table.version' may not be set: it comes from the table's hoodie.properties",
        "hoodie: key 'hoodie.write.auto.upgrade' may not be set: the daemon never upgrades a table",
        "hoodie: key 'hoodie.write.lock.conflict.resolution.strategy' may not be set: the daemon's commits always"
            + " lose a conflict with a writer's (see docs/writers.md, \"Ingestion first\"); tune it with"
            + " hoodie.clustering.plan.strategy.hot.commits / .hot.minutes",
        "hoodie: key 'hoodie.write.markers.type' may not be set: the Java engine needs DIRECT markers",
        "hoodie: key 'hoodie.write.table.version' may not be set: the daemon pins it to the table's own"
            + " hoodie.table.version");
  }

  @Test
  void theWritersHeartbeatKeysAreAcceptedAndTheirRangeChecked() throws Exception {
    assertThat(errorsOf("""
        tables:
          - path: /data/orders
            hoodie:
              hoodie.client.heartbeat.interval_in_ms: "5000"
              hoodie.client.heartbeat.tolerable.misses: "3"
        """)).isEmpty();
    assertThat(errorsOf("""
        tables:
          - path: /data/orders
        hoodie:
          hoodie.client.heartbeat.interval_in_ms: "10"
          hoodie.client.heartbeat.tolerable.misses: "0"
        """)).containsExactly(
        "hoodie: key 'hoodie.client.heartbeat.interval_in_ms' has value '10', which must be a whole number of"
            + " milliseconds from 100 to 2147483647",
        "hoodie: key 'hoodie.client.heartbeat.tolerable.misses' has value '0', which must be a whole number of"
            + " missed heartbeats from 1 to 2147483647");
  }

  @Test
  void aKeyWithoutAValueIsNamed() throws Exception {
    assertThat(errorsOf("""
        tables:
          - path: /data/orders
            hoodie:
              hoodie.clean.commits.retained:
        """)).containsExactly("tables[0].hoodie: key 'hoodie.clean.commits.retained' has no value");
  }

  @Test
  void theSameTableListedTwiceIsRejectedWhateverTheSpelling() throws Exception {
    assertThat(errorsOf("""
        tables:
          - path: /data/orders
          - path: /data/orders/
          - path: file:///data/orders
          - path: /data/x/../orders
          - path: /data/customers
        """)).containsExactly(
        "tables[1].path: /data/orders/ is already listed as tables[0]",
        "tables[2].path: file:///data/orders is already listed as tables[0]",
        "tables[3].path: /data/x/../orders is already listed as tables[0]");
  }

  @Test
  void twoTablesWithOneIdAreRejected() throws Exception {
    assertThat(errorsOf("""
        tables:
          - path: /data/eu/orders
            id: orders
          - path: /data/us/orders
            id: orders
        """)).containsExactly("tables[1].id: 'orders' is already used by tables[0]");
  }

  @Test
  void nothingToServiceIsAnError() throws Exception {
    assertThat(errorsOf("polling:\n  interval: 10s\n"))
        .containsExactly("tables: no tables listed, no discovery.roots given and "
            + "tableServiceManager.registerUnknownTables is off, so there is nothing to service");
  }

  @Test
  void tablesRegisteredByWritersAloneAreEnough() throws Exception {
    assertThat(errorsOf("tableServiceManager:\n  registerUnknownTables: true\n")).isEmpty();
  }

  @Test
  void discoveryRootsAloneAreEnough() throws Exception {
    assertThat(errorsOf("discovery:\n  roots: [/data/lake]\n")).isEmpty();
  }

  @Test
  void everyProblemIsReportedAtOnce() throws Exception {
    assertThat(errorsOf("""
        tables:
          - path: /data/orders
            hoodie:
              hoodie.table.name: x
          - path: /data/orders
        hoodie:
          hoodie.compact.inline.max.delta.commit: "3"
        """)).hasSize(3);
  }

  @Test
  void indexesTheJavaEngineCannotBuildAreRejectedNamingTheTableAndWhy() throws Exception {
    assertThat(errorsOf("""
        indexes:
          record_index: {}
          expression_index: {}
        discovery:
          roots: [/data/lake]
          indexes:
            bloom_filter: {}
        tables:
          - path: /data/orders
            indexes:
              secondary_index: {}
              partition_stats: {}
              record_index: {columns: [a]}
        """)).containsExactly(
        "indexes.expression_index: cannot be built by hudi-tsd: expression indexes cannot be built on Hudi's Java "
            + "engine (Hudi 1.2.0's Java metadata writer has no expression evaluation); build them with Spark SQL "
            + "CREATE INDEX",
        "discovery.indexes: 'bloom_filter' is not a metadata index; expected one of column_stats, bloom_filters, "
            + "record_index, partition_stats",
        "tables[0].indexes.record_index.columns: only column_stats takes columns",
        "tables[0].indexes.secondary_index: cannot be built by hudi-tsd: secondary indexes need an index "
            + "definition that Spark SQL CREATE INDEX writes; hudi-tsd does not write index definitions, so it "
            + "cannot build them",
        "tables[0].indexes.partition_stats: needs column_stats as well (Hudi 1.2.0 builds and maintains partition "
            + "stats only with column stats on)");
  }

  @Test
  void indexKeysAreSetThroughTheIndexesSection() throws Exception {
    assertThat(errorsOf("""
        tables:
          - path: /data/orders
            indexes:
              column_stats: {columns: [amount]}
            hoodie:
              hoodie.metadata.index.column.stats.column.list: amount
        """)).containsExactly("tables[0].hoodie: key 'hoodie.metadata.index.column.stats.column.list' may not be "
        + "set: set it with indexes.column_stats.columns");
  }

  @Test
  void valuesHudiCannotReadAreRejectedNamingTableKeyAndValue() throws Exception {
    assertThat(errorsOf("""
        hoodie:
          hoodie.clean.automatic: "yes"
        discovery:
          roots: [/data/lake]
          hoodie:
            hoodie.cleaner.policy: KEEP_EVERYTHING
        tables:
          - path: /data/orders
            hoodie:
              hoodie.compact.inline.max.delta.commits: many
              hoodie.metadata.compact.max.delta.commits: "2.5"
              hoodie.parquet.compression.ratio: high
          - path: /data/customers
            hoodie:
              hoodie.write.executor.type: fast
              hoodie.clustering.plan.partition.filter.mode: newest
        """)).containsExactly(
        "hoodie: key 'hoodie.clean.automatic' has value 'yes', which is neither true nor false"
            + " (Hudi's default is true)",
        "discovery.hoodie: key 'hoodie.cleaner.policy' has value 'KEEP_EVERYTHING', which is not one of"
            + " KEEP_LATEST_FILE_VERSIONS, KEEP_LATEST_COMMITS, KEEP_LATEST_BY_HOURS",
        "tables[0].hoodie: key 'hoodie.compact.inline.max.delta.commits' has value 'many', which is not a whole"
            + " number (Hudi's default is 5)",
        "tables[0].hoodie: key 'hoodie.metadata.compact.max.delta.commits' has value '2.5', which is not a whole"
            + " number (Hudi's default is 10)",
        "tables[0].hoodie: key 'hoodie.parquet.compression.ratio' has value 'high', which is not a number"
            + " (Hudi's default is 0.1)",
        "tables[1].hoodie: key 'hoodie.clustering.plan.partition.filter.mode' has value 'newest', which is not one"
            + " of NONE, RECENT_DAYS, SELECTED_PARTITIONS, DAY_ROLLING",
        "tables[1].hoodie: key 'hoodie.write.executor.type' has value 'fast', which is not one of DISRUPTOR,"
            + " BOUNDED_IN_MEMORY, SIMPLE");
  }

  @Test
  void valuesOfTheDeclaredKindAreAccepted() throws Exception {
    assertThat(errorsOf("""
        tables:
          - path: /data/orders
            hoodie:
              hoodie.compact.inline.max.delta.commits: "12"
              hoodie.compact.inline.trigger.strategy: num_or_time
              hoodie.clean.automatic: "FALSE"
              hoodie.parquet.compression.ratio: ".25"
              hoodie.clustering.plan.strategy.max.bytes.per.group: "4294967296"
              hoodie.write.lock.zookeeper.url: zk1
              hoodie.clustering.plan.strategy.sort.columns: a,b
        """)).isEmpty();
  }
}
