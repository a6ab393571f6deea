package io.huditsd.config;

import org.apache.hudi.common.config.HoodieMetadataConfig;
import org.apache.hudi.common.engine.EngineType;
import org.apache.hudi.common.schema.HoodieSchema;
import org.apache.hudi.common.table.HoodieTableConfig;
import org.apache.hudi.common.table.HoodieTableMetaClient;
import org.apache.hudi.common.table.TableSchemaResolver;
import org.apache.hudi.common.util.Option;
import org.apache.hudi.config.HoodieWriteConfig;
import org.apache.hudi.metadata.HoodieTableMetadataUtil;

import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;

/**
 * Derives the write config a table's services run with from three layers, later ones winning:
 * <ol>
 *   <li>the daemon's defaults for a process that shares the table with live writers (optimistic concurrency, lazy
 *       rollback of failed writes, each service run on its own); the table lock comes with the user's keys;</li>
 *   <li>the user's {@code hoodie.*} keys (global, discovery root, table);</li>
 *   <li>the heartbeat of the client's own instants, from {@code workers.heartbeat*}: the user's
 *       {@code hoodie.client.heartbeat.*} keys describe the table's writers ({@link WriterHeartbeat}), and only a
 *       client that judges writers' commits is built with them;</li>
 *   <li>what comes from the table itself or what the Java engine needs, which no user key may change: path, name,
 *       type, record key, partition and ordering fields, merge mode, schema, the table's version with auto-upgrade
 *       off, the embedded timeline server off, DIRECT markers, and metadata-table writes matching the table's own
 *       metadata partitions.</li>
 * </ol>
 */
public final class TableWriteConfigs {
  /** Writers win over the daemon's clustering (see the class in lock-providers). */
  public static final String CONFLICT_RESOLUTION_STRATEGY = "io.huditsd.lock.IngestionFirstConflictResolutionStrategy";
  /**
   * The default clustering plans: binary copy (see the class in executors), which stitches Parquet row groups
   * without decoding a record and rewrites only the groups it cannot copy. Like the rewrite's plans, they leave out
   * the file groups writers wrote recently.
   */
  public static final String BINARY_COPY_PLAN_STRATEGY =
      "io.huditsd.executors.clustering.JavaBinaryCopyClusteringPlanStrategy";
  /**
   * Clustering plans that every record is rewritten for (Hudi's size-based plans, without the file groups writers
   * wrote recently): the default where the user's keys ask for what only a rewrite does ({@link
   * #clusteringPlanStrategy}), and what users name to have every group rewritten.
   */
  public static final String REWRITE_PLAN_STRATEGY = "io.huditsd.executors.clustering.HotAwareClusteringPlanStrategy";
  static final String PLAN_STRATEGY_KEY = "hoodie.clustering.plan.strategy.class";
  static final String EXECUTION_STRATEGY_KEY = "hoodie.clustering.execution.strategy.class";
  public static final String SORT_COLUMNS_KEY = "hoodie.clustering.plan.strategy.sort.columns";
  public static final String BULK_INSERT_SORT_MODE_KEY = "hoodie.bulkinsert.sort.mode";

  private TableWriteConfigs() {
  }

  /**
   * @param metaClient a meta client of the table, freshly loaded
   * @param userKeys the effective {@code hoodie.*} keys for this table, already checked by {@link HoodieKeyRules};
   *     the daemon's own keys among them ({@link EnginePolicy}) are left out
   * @param heartbeat how often running plans renew their heartbeat
   * @param wanted the metadata indexes the table should have (see
   *     {@link #metadataMatchingTable(HoodieTableMetaClient, MetadataIndexes)}); {@link MetadataIndexes#none()} when
   *     none. No overload defaults it: a config built without the wanted indexes drops the column list of column
   *     stats and the flags of indexes being built.
   */
  public static HoodieWriteConfig build(HoodieTableMetaClient metaClient, Map<String, String> userKeys,
                                        HeartbeatSettings heartbeat, MetadataIndexes wanted) {
    Properties properties = new Properties();
    properties.putAll(daemonDefaults(userKeys));
    properties.putAll(EnginePolicy.withoutDaemonKeys(userKeys));
    properties.putAll(planHeartbeat(heartbeat));
    properties.putAll(tableDerived(metaClient, wanted));
    return HoodieWriteConfig.newBuilder()
        .withEngineType(EngineType.JAVA)
        .withPath(metaClient.getBasePath().toString())
        .withProps(properties)
        .build();
  }

  /** The effective policy: every key the daemon passes to Hudi for this table, before Hudi adds its own defaults. */
  public static Map<String, String> effectiveKeys(HoodieTableMetaClient metaClient, Map<String, String> userKeys,
                                                  HeartbeatSettings heartbeat, MetadataIndexes wanted) {
    Map<String, String> keys = new LinkedHashMap<>(daemonDefaults(userKeys));
    keys.putAll(EnginePolicy.withoutDaemonKeys(userKeys));
    keys.putAll(planHeartbeat(heartbeat));
    Map<String, String> derived = tableDerived(metaClient, wanted);
    derived.remove(HoodieWriteConfig.AVRO_SCHEMA_STRING.key());
    keys.putAll(derived);
    return keys;
  }

  /** Hudi's read buffer per log file opened ({@code HoodieMemoryConfig.MAX_DFS_STREAM_BUFFER_SIZE}). */
  public static final String DFS_BUFFER_KEY = "hoodie.memory.dfs.buffer.max.size";
  public static final int DFS_BUFFER_BYTES = 1 << 20;

  /** @param userKeys what the user asked for; a default may follow it (the clustering plan strategy does) */
  static Map<String, String> daemonDefaults(Map<String, String> userKeys) {
    Map<String, String> keys = new LinkedHashMap<>();
    // The daemon is a second process on a table that writers own: Hudi's multi-writer mode makes every plan
    // scheduling and commit take the table lock, and LAZY rollback leaves a writer's inflight commit alone while
    // its heartbeat is alive. The lock itself is not defaulted here: which cross-process lock a table gets depends
    // on its store (the lock-providers module's DefaultTableLock, applied when the write client is built).
    keys.put("hoodie.write.concurrency.mode", "OPTIMISTIC_CONCURRENCY_CONTROL");
    keys.put("hoodie.cleaner.policy.failed.writes", "LAZY");
    // Each service is run explicitly so its outcome is accounted to it; inline auto-clean/archive after a
    // compaction commit would hide them inside the compaction run.
    keys.put("hoodie.clean.automatic", "false");
    keys.put("hoodie.archive.automatic", "false");
    // Clustering's commit-count trigger (hoodie.clustering.inline.max.commits) is only evaluated by Hudi when
    // inline clustering is on. The daemon never writes data, so "inline" only enables the trigger.
    keys.put("hoodie.clustering.inline", "true");
    // Ingestion first: clustering plans around the file groups writers wrote recently, and when a writer still
    // updates a file group of a pending plan, the daemon's clustering commit is the one that fails (Hudi's
    // PreferWriter resolution, also against writers not yet inflight), is rolled back and planned anew.
    keys.put(PLAN_STRATEGY_KEY, clusteringPlanStrategy(userKeys));
    keys.put("hoodie.write.lock.conflict.resolution.strategy", CONFLICT_RESOLUTION_STRATEGY);
    keys.put("hoodie.clustering.fail.on.pending.ingestion.during.conflict.resolution", "true");
    // Hudi buffers every log file it opens (the table's and the metadata table's) in a buffer of this size, 16 MiB
    // by default: 47% of a compaction's allocation here and a third of its live heap, for no speed (measured in
    // docs/benchmarks.md, "Compaction"). 1 MiB is what Hudi's own MapReduce readers use; users may still set it.
    keys.put(DFS_BUFFER_KEY, Integer.toString(DFS_BUFFER_BYTES));
    return keys;
  }

  /**
   * Binary copy, unless the user's keys ask for what only a rewrite does: a sort order (sort columns, or a
   * bulk-insert sort mode other than NONE), or an execution strategy of their choosing (binary-copy plans name their
   * own, and the daemon executes a plan with the strategy it names). Without a sort order a rewrite writes the
   * records in the order it reads them, as a copy does, for 6-8x its CPU (docs/benchmarks.md, "Default
   * clustering"); a copy keeps the writers' row groups and codec, which is why users may still name {@link
   * #REWRITE_PLAN_STRATEGY}.
   */
  static String clusteringPlanStrategy(Map<String, String> userKeys) {
    boolean sorted = sorts(userKeys.get(SORT_COLUMNS_KEY), userKeys.get(BULK_INSERT_SORT_MODE_KEY));
    return sorted || userKeys.containsKey(EXECUTION_STRATEGY_KEY) ? REWRITE_PLAN_STRATEGY : BINARY_COPY_PLAN_STRATEGY;
  }

  /**
   * Whether clustering sorts, and so needs every record of a group before it writes the first: sort columns (null or
   * blank: none), or a bulk-insert sort mode other than NONE (null or blank: Hudi's default, NONE).
   */
  public static boolean sorts(String sortColumns, String bulkInsertSortMode) {
    return (sortColumns != null && !sortColumns.isBlank())
        || (bulkInsertSortMode != null && !bulkInsertSortMode.isBlank()
            && !bulkInsertSortMode.trim().equalsIgnoreCase("NONE"));
  }

  /**
   * The heartbeat of the client's own instants. Users set {@code hoodie.client.heartbeat.*} to describe their
   * writers ({@link WriterHeartbeat}); those keys never change how often the daemon's plans renew, which
   * {@code workers.heartbeatInterval} decides.
   */
  static Map<String, String> planHeartbeat(HeartbeatSettings heartbeat) {
    Map<String, String> keys = new LinkedHashMap<>();
    keys.put(WriterHeartbeat.INTERVAL_KEY, Long.toString(heartbeat.intervalMillis()));
    keys.put(WriterHeartbeat.MISSES_KEY, Integer.toString(heartbeat.hudiTolerableMisses()));
    return keys;
  }

  /**
   * Metadata writes must match the table: a compaction committed without updating an existing metadata table leaves
   * it stale (readers then return old rows), enabling one the writers do not maintain creates a stale one, and a
   * partition disabled in the write config is deleted from the metadata table by Hudi. They must also leave
   * concurrent writers' metadata commits alone. No user key may change them.
   *
   * <p>The metadata keys for a table that should have {@code wanted} indexes. An index's enable flag is on when the
   * table has it, when it is being built or planned (pending {@code indexing} instant), or when it is wanted:
   * <ul>
   *   <li>Hudi deletes a built partition whose flag is off ({@code HoodieTable.deleteMetadataIndexIfNecessary}); a
   *       write client opened before an index build completed must not delete the index when it commits after;</li>
   *   <li>Hudi's indexer builds only partitions whose flag is on;</li>
   *   <li>{@code hoodie.metadata.index.async=true} keeps every flagged partition the table does not have yet from
   *       being initialized synchronously by whichever table service commits first: those are built only by the
   *       indexer. Which partitions a commit updates follows the table's own built and inflight partitions.</li>
   * </ul>
   */
  public static Map<String, String> metadataMatchingTable(HoodieTableMetaClient metaClient, MetadataIndexes wanted) {
    HoodieTableConfig table = metaClient.getTableConfig();
    Set<String> flagged = new HashSet<>(table.getMetadataPartitions());
    MetadataIndexState state = MetadataIndexState.read(metaClient);
    flagged.addAll(state.inflight());
    flagged.addAll(state.planned());
    flagged.addAll(wanted.partitionPaths());
    Map<String, String> keys = metadataFlags(table.getMetadataPartitions(), flagged);
    keys.putAll(SINGLE_FILE_GROUP_INDEXES);
    if (!wanted.columnStatsColumns().isEmpty()) {
      keys.put(HoodieMetadataConfig.COLUMN_STATS_INDEX_FOR_COLUMNS.key(), String.join(",", wanted.columnStatsColumns()));
    }
    return keys;
  }

  /**
   * Hudi 1.2.0's Java engine writes the initial build of a metadata partition into one file group, whatever the
   * partition's file group count (JavaHoodieMetadataBulkInsertPartitioner takes the first record's file group for
   * all). Readers look a key up in the file group its hash names, so with several file groups most keys are not
   * found (seen here: 450 of 530 keys missing from a 10-file-group record index). Indexes the daemon builds get one
   * file group each. The counts only matter when a partition is initialized.
   */
  static final Map<String, String> SINGLE_FILE_GROUP_INDEXES = Map.of(
      HoodieMetadataConfig.METADATA_INDEX_BLOOM_FILTER_FILE_GROUP_COUNT.key(), "1",
      HoodieMetadataConfig.METADATA_INDEX_COLUMN_STATS_FILE_GROUP_COUNT.key(), "1",
      HoodieMetadataConfig.METADATA_INDEX_PARTITION_STATS_FILE_GROUP_COUNT.key(), "1",
      HoodieMetadataConfig.GLOBAL_RECORD_LEVEL_INDEX_MIN_FILE_GROUP_COUNT_PROP.key(), "1",
      HoodieMetadataConfig.GLOBAL_RECORD_LEVEL_INDEX_MAX_FILE_GROUP_COUNT_PROP.key(), "1");

  private static Map<String, String> metadataFlags(Set<String> built, Set<String> flagged) {
    Map<String, String> keys = new LinkedHashMap<>();
    keys.put(HoodieMetadataConfig.ENABLE.key(),
        Boolean.toString(built.contains(HoodieTableMetadataUtil.PARTITION_NAME_FILES)));
    // Hudi 1.2.0 turns partition stats on exactly when column stats are (HoodieMetadataConfig.isPartitionStatsIndexEnabled).
    keys.put(HoodieMetadataConfig.ENABLE_METADATA_INDEX_COLUMN_STATS.key(),
        Boolean.toString(flagged.contains(HoodieTableMetadataUtil.PARTITION_NAME_COLUMN_STATS)));
    // Hudi 1.2.0 does not read this key. Kept for the effective-keys view and later Hudi versions.
    keys.put(HoodieMetadataConfig.ENABLE_METADATA_INDEX_PARTITION_STATS,
        Boolean.toString(flagged.contains(HoodieTableMetadataUtil.PARTITION_NAME_PARTITION_STATS)));
    keys.put(HoodieMetadataConfig.ENABLE_METADATA_INDEX_BLOOM_FILTER.key(),
        Boolean.toString(flagged.contains(HoodieTableMetadataUtil.PARTITION_NAME_BLOOM_FILTERS)));
    keys.put(HoodieMetadataConfig.GLOBAL_RECORD_LEVEL_INDEX_ENABLE_PROP.key(),
        Boolean.toString(flagged.contains(HoodieTableMetadataUtil.PARTITION_NAME_RECORD_INDEX)));
    // A partition flagged on but not built is built by the asynchronous indexer only (see above).
    keys.put(HoodieMetadataConfig.ASYNC_INDEX_ENABLE.key(), "true");
    // Spark writers (Hudi 1.1+, table version 8+) write the metadata table in streaming mode: its deltacommit starts
    // with the data write, outside the table lock, and the metadata-table writer runs non-blocking with LAZY
    // rollback. Left at the Java engine's default, the daemon's metadata-table writer is a single writer with EAGER
    // rollback, and its next commit rolls back the metadata deltacommit a concurrent Spark write has in flight:
    // that write then fails ("...deltacommit.requested does not exist"). With this key the daemon's
    // metadata-table writer takes the same mode as Spark's (Hudi ignores it below table version 8). The daemon's
    // own metadata updates stay non-streaming and under the table lock.
    keys.put(HoodieMetadataConfig.STREAMING_WRITE_ENABLED.key(), "true");
    return keys;
  }

  static Map<String, String> tableDerived(HoodieTableMetaClient metaClient, MetadataIndexes wanted) {
    HoodieTableConfig table = metaClient.getTableConfig();
    Map<String, String> keys = new LinkedHashMap<>();
    keys.put(HoodieWriteConfig.TBL_NAME.key(), table.getTableName());
    keys.put(HoodieTableConfig.TYPE.key(), table.getTableType().name());
    keys.put(HoodieWriteConfig.WRITE_TABLE_VERSION.key(), Integer.toString(table.getTableVersion().versionCode()));
    keys.put(HoodieWriteConfig.AUTO_UPGRADE_VERSION.key(), "false");
    keys.put(HoodieWriteConfig.EMBEDDED_TIMELINE_SERVER_ENABLE.key(), "false");
    keys.put(HoodieWriteConfig.MARKERS_TYPE.key(), "DIRECT");
    keys.putAll(metadataMatchingTable(metaClient, wanted));
    keys.put("hoodie.datasource.write.recordkey.field", table.getRawRecordKeyFieldProp());
    keys.put("hoodie.datasource.write.partitionpath.field", partitionFieldNames(table));
    keys.put(HoodieWriteConfig.KEYGENERATOR_CLASS_NAME.key(), table.getKeyGeneratorClassName());
    Option<String> ordering = table.getOrderingFieldsStr();
    if (ordering.isPresent() && !ordering.get().isEmpty()) {
      keys.put(HoodieWriteConfig.PRECOMBINE_FIELD_NAME.key(), ordering.get());
    }
    if (table.getRecordMergeMode() != null) {
      keys.put(HoodieWriteConfig.RECORD_MERGE_MODE.key(), table.getRecordMergeMode().name());
    }
    String strategyId = table.getRecordMergeStrategyId();
    if (strategyId != null && !strategyId.isEmpty()) {
      keys.put(HoodieWriteConfig.RECORD_MERGE_STRATEGY_ID.key(), strategyId);
    }
    table.getPayloadClassIfPresent().ifPresent(payload ->
        keys.put(HoodieWriteConfig.WRITE_PAYLOAD_CLASS_NAME.key(), payload));
    tableSchema(metaClient).ifPresent(schema ->
        keys.put(HoodieWriteConfig.AVRO_SCHEMA_STRING.key(), schema.toString()));
    keys.values().removeIf(value -> value == null);
    return keys;
  }

  /** {@code hoodie.table.partition.fields} may carry key-generator types ({@code region:SIMPLE}); writers take names. */
  private static String partitionFieldNames(HoodieTableConfig table) {
    String raw = table.getPartitionFieldProp();
    if (raw == null) {
      return "";
    }
    StringBuilder names = new StringBuilder();
    for (String field : raw.split(",")) {
      if (field.isBlank()) {
        continue;
      }
      if (names.length() > 0) {
        names.append(',');
      }
      int colon = field.indexOf(':');
      names.append(colon < 0 ? field.trim() : field.substring(0, colon).trim());
    }
    return names.toString();
  }

  private static Optional<HoodieSchema> tableSchema(HoodieTableMetaClient metaClient) {
    Option<HoodieSchema> schema = new TableSchemaResolver(metaClient).getTableSchemaIfPresent(false);
    return schema.isPresent() ? Optional.of(schema.get()) : Optional.empty();
  }
}
