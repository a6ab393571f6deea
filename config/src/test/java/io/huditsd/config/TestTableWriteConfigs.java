package io.huditsd.config;

import org.apache.hadoop.conf.Configuration;
import org.apache.hudi.common.config.RecordMergeMode;
import org.apache.hudi.common.model.DefaultHoodieRecordPayload;
import org.apache.hudi.common.model.HoodieFailedWritesCleaningPolicy;
import org.apache.hudi.common.model.HoodieTableType;
import org.apache.hudi.common.model.WriteConcurrencyMode;
import org.apache.hudi.common.table.HoodieTableMetaClient;
import org.apache.hudi.common.table.HoodieTableVersion;
import org.apache.hudi.common.table.marker.MarkerType;
import org.apache.hudi.config.HoodieClusteringConfig;
import org.apache.hudi.config.HoodieWriteConfig;
import org.apache.hudi.metadata.HoodieMetadataWriteUtils;
import org.apache.hudi.storage.hadoop.HadoopStorageConfiguration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** The write config derived from real tables, created on local disk at each supported table version. */
class TestTableWriteConfigs {
  private static final HeartbeatSettings HEARTBEAT = new HeartbeatSettings(5_000, 3);
  private static final MetadataIndexes NO_INDEXES = MetadataIndexes.none();
  private static final String SCHEMA = """
      {"type": "record", "name": "orders", "fields": [
        {"name": "id", "type": "string"}, {"name": "region", "type": "string"}, {"name": "ts", "type": "long"}]}""";

  @TempDir
  Path directory;

  private HoodieTableMetaClient createTable(int version, String metadataPartitions) throws IOException {
    HoodieTableMetaClient.TableBuilder builder = HoodieTableMetaClient.newTableBuilder()
        .setTableType(HoodieTableType.MERGE_ON_READ)
        .setTableName("orders")
        .setTableVersion(version)
        .setRecordKeyFields("id")
        .setPartitionFields("region")
        .setOrderingFields("ts")
        .setRecordMergeMode(RecordMergeMode.EVENT_TIME_ORDERING)
        .setPayloadClassName(DefaultHoodieRecordPayload.class.getName())
        .setKeyGeneratorClassProp("org.apache.hudi.keygen.SimpleKeyGenerator")
        .setTableCreateSchema(SCHEMA);
    if (!metadataPartitions.isEmpty()) {
      builder.setMetadataPartitions(metadataPartitions);
    }
    return builder.initTable(new HadoopStorageConfiguration(new Configuration()),
        directory.resolve("orders_v" + version).toString());
  }

  @ParameterizedTest
  @ValueSource(ints = {6, 8, 9})
  void javaEngineSettingsAndTheTablesOwnVersionAreFixed(int version) throws IOException {
    HoodieTableMetaClient table = createTable(version, "");

    HoodieWriteConfig config = TableWriteConfigs.build(table, Map.of(), HEARTBEAT, NO_INDEXES);

    assertThat(config.getWriteVersion().versionCode()).isEqualTo(version);
    assertThat(config.autoUpgrade()).isFalse();
    assertThat(config.isEmbeddedTimelineServerEnabled()).isFalse();
    assertThat(config.getMarkersType()).isEqualTo(MarkerType.DIRECT);
    // EngineType.JAVA shows in the strategies Hudi picks; with SPARK it would pick Spark classes. The plan strategy
    // is the daemon's (binary copy around hot data, see below).
    assertThat(config.getClusteringPlanStrategyClass()).isEqualTo(TableWriteConfigs.BINARY_COPY_PLAN_STRATEGY);
    assertThat(config.getClusteringExecutionStrategyClass())
        .isEqualTo(HoodieClusteringConfig.JAVA_SORT_AND_SIZE_EXECUTION_STRATEGY);
    assertThat(config.getBasePath()).isEqualTo(table.getBasePath().toString());
    assertThat(config.getTableName()).isEqualTo("orders");
    assertThat(config.getTableType()).isEqualTo(HoodieTableType.MERGE_ON_READ);
    assertThat(config.getProps().getString("hoodie.datasource.write.recordkey.field")).isEqualTo("id");
    assertThat(config.getProps().getString("hoodie.datasource.write.partitionpath.field")).isEqualTo("region");
    if (version >= 8) {
      assertThat(config.getRecordMergeMode()).isEqualTo(RecordMergeMode.EVENT_TIME_ORDERING);
    } else {
      // Version 6 records no merge mode; the payload class decides.
      assertThat(config.getPayloadClass()).isEqualTo(DefaultHoodieRecordPayload.class.getName());
    }
    assertThat(config.getSchema()).contains("\"name\":\"region\"");
  }

  @Test
  void daemonDefaultsSuitASecondProcessBesideTheWriters() throws IOException {
    HoodieWriteConfig config = TableWriteConfigs.build(createTable(9, ""), Map.of(), HEARTBEAT, NO_INDEXES);

    assertThat(config.getWriteConcurrencyMode()).isEqualTo(WriteConcurrencyMode.OPTIMISTIC_CONCURRENCY_CONTROL);
    assertThat(config.getFailedWritesCleanPolicy()).isEqualTo(HoodieFailedWritesCleaningPolicy.LAZY);
    // The lock depends on the table's store and is added by the lock-providers module; never an in-process one here.
    assertThat(config.getLockProviderClass()).isNull();
    assertThat(config.isAutoClean()).isFalse();
    assertThat(config.isAutoArchive()).isFalse();
    assertThat(config.getHoodieClientHeartbeatIntervalInMs()).isEqualTo(5_000);
    // Hudi expires a heartbeat after interval * misses, the daemon after interval * (misses + 1).
    assertThat(config.getHoodieClientHeartbeatTolerableMisses()).isEqualTo(4);
    // Ingestion first: the daemon's clustering commit is the one that fails on a conflict with a writer.
    // (The class is in lock-providers, which this module does not see: the key, not the instance.)
    assertThat(config.getProps().getString("hoodie.write.lock.conflict.resolution.strategy"))
        .isEqualTo(TableWriteConfigs.CONFLICT_RESOLUTION_STRATEGY);
    assertThat(config.isClusteringBlockForPendingIngestion()).isTrue();
  }

  @Test
  void clusteringCopiesRowGroupsUnlessTheUsersKeysAskForARewrite() throws IOException {
    HoodieTableMetaClient table = createTable(9, "");
    assertThat(planStrategy(table, Map.of())).isEqualTo(TableWriteConfigs.BINARY_COPY_PLAN_STRATEGY);
    assertThat(planStrategy(table, Map.of("hoodie.bulkinsert.sort.mode", "none")))
        .isEqualTo(TableWriteConfigs.BINARY_COPY_PLAN_STRATEGY);
    assertThat(planStrategy(table, Map.of("hoodie.clustering.plan.strategy.sort.columns", " ")))
        .isEqualTo(TableWriteConfigs.BINARY_COPY_PLAN_STRATEGY);
    // A sort order needs every record; a copy keeps the writers' order.
    assertThat(planStrategy(table, Map.of("hoodie.clustering.plan.strategy.sort.columns", "ts")))
        .isEqualTo(TableWriteConfigs.REWRITE_PLAN_STRATEGY);
    assertThat(planStrategy(table, Map.of("hoodie.bulkinsert.sort.mode", "GLOBAL_SORT")))
        .isEqualTo(TableWriteConfigs.REWRITE_PLAN_STRATEGY);
    // Binary-copy plans name their own execution strategy; a user's own must stay the one the plans name.
    assertThat(planStrategy(table, Map.of("hoodie.clustering.execution.strategy.class",
        HoodieClusteringConfig.JAVA_SORT_AND_SIZE_EXECUTION_STRATEGY)))
        .isEqualTo(TableWriteConfigs.REWRITE_PLAN_STRATEGY);
    // A plan strategy the user names wins, whatever else is set.
    assertThat(planStrategy(table, Map.of("hoodie.clustering.plan.strategy.class",
        TableWriteConfigs.REWRITE_PLAN_STRATEGY))).isEqualTo(TableWriteConfigs.REWRITE_PLAN_STRATEGY);
    assertThat(planStrategy(table, Map.of("hoodie.clustering.plan.strategy.class",
        TableWriteConfigs.BINARY_COPY_PLAN_STRATEGY, "hoodie.clustering.plan.strategy.sort.columns", "ts")))
        .isEqualTo(TableWriteConfigs.BINARY_COPY_PLAN_STRATEGY);
    assertThat(TableWriteConfigs.effectiveKeys(table, Map.of("hoodie.clustering.plan.strategy.sort.columns", "ts"),
        HEARTBEAT, NO_INDEXES)).containsEntry("hoodie.clustering.plan.strategy.class",
        TableWriteConfigs.REWRITE_PLAN_STRATEGY);
  }

  private static String planStrategy(HoodieTableMetaClient table, Map<String, String> userKeys) {
    return TableWriteConfigs.build(table, userKeys, HEARTBEAT, NO_INDEXES).getClusteringPlanStrategyClass();
  }

  @Test
  void metadataWritesMatchTheTablesMetadataPartitions() throws IOException {
    HoodieWriteConfig withIndexes = TableWriteConfigs.build(
        createTable(9, "files,column_stats,partition_stats,record_index"), Map.of(), HEARTBEAT, NO_INDEXES);
    assertThat(withIndexes.isMetadataTableEnabled()).isTrue();
    assertThat(withIndexes.getMetadataConfig().isColumnStatsIndexEnabled()).isTrue();
    assertThat(withIndexes.getMetadataConfig().isPartitionStatsIndexEnabled()).isTrue();
    assertThat(withIndexes.getMetadataConfig().isGlobalRecordLevelIndexEnabled()).isTrue();
    assertThat(withIndexes.getMetadataConfig().isBloomFilterIndexEnabled()).isFalse();

    HoodieWriteConfig filesOnly = TableWriteConfigs.build(createTable(8, "files"), Map.of(), HEARTBEAT, NO_INDEXES);
    assertThat(filesOnly.isMetadataTableEnabled()).isTrue();
    assertThat(filesOnly.getMetadataConfig().isColumnStatsIndexEnabled()).isFalse();
    assertThat(filesOnly.getMetadataConfig().isPartitionStatsIndexEnabled()).isFalse();
    assertThat(filesOnly.getMetadataConfig().isGlobalRecordLevelIndexEnabled()).isFalse();
  }

  @Test
  void partitionStatsFollowColumnStatsWhateverTheTableSays() throws IOException {
    // Hudi 1.2.0 ignores hoodie.metadata.index.partition.stats.enable: partition stats are on exactly when column
    // stats are. A table with column_stats but no partition_stats (an older writer's) therefore has partition stats
    // "enabled" in the daemon's write config; hoodie.metadata.index.async=true keeps the daemon's commits from
    // building them inline. Pinned here so that a Hudi upgrade that changes it is noticed.
    HoodieWriteConfig config = TableWriteConfigs.build(createTable(9, "files,column_stats"),
        Map.of(), HEARTBEAT, NO_INDEXES);

    assertThat(config.getProps().getString("hoodie.metadata.index.partition.stats.enable")).isEqualTo("false");
    assertThat(config.getMetadataConfig().isPartitionStatsIndexEnabled()).isTrue();
    assertThat(config.isMetadataAsyncIndex()).isTrue();
  }

  @Test
  void metadataTableWriterLeavesConcurrentWritersMetadataCommitsAlone() throws IOException {
    // Hudi's table services open the metadata-table writer asking for EAGER rollback of failed writes
    // (HoodieTable.getMetadataWriter); a Spark writer's streaming metadata deltacommit in flight would be one.
    HoodieWriteConfig config = TableWriteConfigs.build(createTable(9, "files"), Map.of(), HEARTBEAT, NO_INDEXES);
    HoodieWriteConfig metadata = HoodieMetadataWriteUtils.createMetadataWriteConfig(config,
        HoodieFailedWritesCleaningPolicy.EAGER, HoodieTableVersion.NINE);

    assertThat(metadata.getFailedWritesCleanPolicy()).isEqualTo(HoodieFailedWritesCleaningPolicy.LAZY);
    assertThat(metadata.getWriteConcurrencyMode()).isEqualTo(WriteConcurrencyMode.NON_BLOCKING_CONCURRENCY_CONTROL);
  }

  @Test
  void wantedIndexesAreFlaggedForTheAsynchronousIndexerOnly() throws IOException {
    MetadataIndexes wanted = MetadataIndexes.of(Map.of("record_index", IndexOptions.none(),
        "column_stats", new IndexOptions(List.of("amount", "ts"))));
    HoodieWriteConfig config = TableWriteConfigs.build(createTable(9, "files"), Map.of(), HEARTBEAT, wanted);

    // The indexer builds only flagged partitions; async keeps every other commit from building them inline.
    assertThat(config.getMetadataConfig().isGlobalRecordLevelIndexEnabled()).isTrue();
    assertThat(config.getMetadataConfig().isColumnStatsIndexEnabled()).isTrue();
    assertThat(config.getMetadataConfig().isBloomFilterIndexEnabled()).isFalse();
    assertThat(config.isMetadataAsyncIndex()).isTrue();
    assertThat(config.getMetadataConfig().getColumnsEnabledForColumnStatsIndex()).containsExactly("amount", "ts");
    // Hudi 1.2.0's Java engine builds an index correctly only into one file group.
    assertThat(config.getMetadataConfig().getGlobalRecordLevelIndexMinFileGroupCount()).isEqualTo(1);
    assertThat(config.getMetadataConfig().getGlobalRecordLevelIndexMaxFileGroupCount()).isEqualTo(1);
    assertThat(config.getMetadataConfig().getColumnStatsIndexFileGroupCount()).isEqualTo(1);
  }

  @Test
  void anIndexBeingBuiltStaysFlaggedSoNoCommitDeletesIt() throws IOException {
    HoodieTableMetaClient table = createTable(9, "files");
    table.getTableConfig().setMetadataPartitionsInflight(table, List.of("record_index"));
    HoodieWriteConfig config = TableWriteConfigs.build(HoodieTableMetaClient.reload(table),
        Map.of(), HEARTBEAT, NO_INDEXES);

    assertThat(config.getMetadataConfig().isGlobalRecordLevelIndexEnabled()).isTrue();
    assertThat(config.isMetadataAsyncIndex()).isTrue();
  }

  @Test
  void noMetadataTableMeansNoMetadataWrites() throws IOException {
    HoodieWriteConfig config = TableWriteConfigs.build(createTable(8, ""), Map.of(), HEARTBEAT, NO_INDEXES);

    assertThat(config.isMetadataTableEnabled()).isFalse();
    assertThat(config.getMetadataConfig().isColumnStatsIndexEnabled()).isFalse();
  }

  @Test
  void userKeysWinOverDaemonDefaults() throws IOException {
    HoodieWriteConfig config = TableWriteConfigs.build(createTable(9, "files"), Map.of(
        "hoodie.write.concurrency.mode", "SINGLE_WRITER",
        "hoodie.clean.automatic", "true",
        "hoodie.metadata.enable", "false",
        "hoodie.compact.inline.max.delta.commits", "2"), HEARTBEAT, NO_INDEXES);

    assertThat(config.getWriteConcurrencyMode()).isEqualTo(WriteConcurrencyMode.SINGLE_WRITER);
    assertThat(config.isAutoClean()).isTrue();
    // Metadata writes are table-derived: a user key cannot make the daemon leave the metadata table stale.
    assertThat(config.isMetadataTableEnabled()).isTrue();
    assertThat(config.getInlineCompactDeltaCommitMax()).isEqualTo(2);
  }

  @Test
  void theWritersHeartbeatKeysNeverChangeThePlansHeartbeat() throws IOException {
    Map<String, String> writers = Map.of(WriterHeartbeat.INTERVAL_KEY, "1000", WriterHeartbeat.MISSES_KEY, "10");
    HoodieWriteConfig config = TableWriteConfigs.build(createTable(9, ""), writers, HEARTBEAT, NO_INDEXES);

    assertThat(config.getHoodieClientHeartbeatIntervalInMs()).isEqualTo(5_000);
    assertThat(config.getHoodieClientHeartbeatTolerableMisses()).isEqualTo(4);
    assertThat(TableWriteConfigs.effectiveKeys(createTable(9, ""), writers, HEARTBEAT, NO_INDEXES))
        .containsEntry(WriterHeartbeat.INTERVAL_KEY, "5000").containsEntry(WriterHeartbeat.MISSES_KEY, "4");
    // They say how the daemon judges the writers' commits: Hudi's interval * misses, Hudi's defaults when unset.
    assertThat(WriterHeartbeat.of(writers).expiryMillis()).isEqualTo(10_000);
    assertThat(WriterHeartbeat.of(Map.of()).expiryMillis()).isEqualTo(120_000);
    HoodieWriteConfig judging = TableWriteConfigs.build(createTable(9, ""), writers,
        WriterHeartbeat.of(writers).asHeartbeatSettings(), NO_INDEXES);
    assertThat(judging.getHoodieClientHeartbeatIntervalInMs() * judging.getHoodieClientHeartbeatTolerableMisses())
        .isEqualTo(10_000);
  }

  @Test
  void tableDerivedKeysWinOverUserKeys() throws IOException {
    // HoodieKeyRules refuses these keys in the YAML; the write config must hold even when they slip through.
    HoodieWriteConfig config = TableWriteConfigs.build(createTable(6, ""), Map.of(
        "hoodie.write.table.version", "9",
        "hoodie.write.auto.upgrade", "true",
        "hoodie.embed.timeline.server", "true",
        "hoodie.write.markers.type", "TIMELINE_SERVER_BASED",
        "hoodie.table.name", "other",
        "hoodie.datasource.write.recordkey.field", "uuid"), HEARTBEAT, NO_INDEXES);

    assertThat(config.getWriteVersion().versionCode()).isEqualTo(6);
    assertThat(config.autoUpgrade()).isFalse();
    assertThat(config.isEmbeddedTimelineServerEnabled()).isFalse();
    assertThat(config.getMarkersType()).isEqualTo(MarkerType.DIRECT);
    assertThat(config.getTableName()).isEqualTo("orders");
    assertThat(config.getProps().getString("hoodie.datasource.write.recordkey.field")).isEqualTo("id");
  }

  @Test
  void effectiveKeysShowThePolicyWithoutTheSchema() throws IOException {
    Map<String, String> keys = TableWriteConfigs.effectiveKeys(createTable(8, "files"),
        Map.of("hoodie.clean.commits.retained", "4", "hoodie.write.table.version", "9"), HEARTBEAT, NO_INDEXES);

    assertThat(keys)
        .containsEntry("hoodie.clean.commits.retained", "4")
        .containsEntry("hoodie.write.table.version", "8")
        .containsEntry("hoodie.write.auto.upgrade", "false")
        .containsEntry("hoodie.metadata.enable", "true")
        .containsEntry("hoodie.write.concurrency.mode", "OPTIMISTIC_CONCURRENCY_CONTROL")
        .containsEntry("hoodie.table.name", "orders")
        .doesNotContainKey(HoodieWriteConfig.AVRO_SCHEMA_STRING.key());
  }

  @Test
  void theDaemonsEngineKeysNeverReachHudi() throws IOException {
    HoodieTableMetaClient metaClient = createTable(9, "files");
    Map<String, String> userKeys = Map.of("hoodie.clean.commits.retained", "4", EnginePolicy.ENGINE, "spark",
        EnginePolicy.SPARK_MIN_BYTES, "1024");

    assertThat(TableWriteConfigs.effectiveKeys(metaClient, userKeys, HEARTBEAT, NO_INDEXES))
        .containsEntry("hoodie.clean.commits.retained", "4")
        .doesNotContainKeys(EnginePolicy.ENGINE, EnginePolicy.SPARK_MIN_BYTES);
    HoodieWriteConfig config = TableWriteConfigs.build(metaClient, userKeys, HEARTBEAT, NO_INDEXES);
    assertThat(config.getProps().stringPropertyNames()).filteredOn(key -> key.startsWith("tsd.")).isEmpty();
    assertThat(config.getProps().getString("hoodie.clean.commits.retained")).isEqualTo("4");
  }
}
