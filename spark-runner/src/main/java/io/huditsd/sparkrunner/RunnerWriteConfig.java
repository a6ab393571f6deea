package io.huditsd.sparkrunner;

import org.apache.hudi.common.config.HoodieMetadataConfig;
import org.apache.hudi.common.schema.HoodieSchema;
import org.apache.hudi.common.table.HoodieTableConfig;
import org.apache.hudi.common.table.HoodieTableMetaClient;
import org.apache.hudi.common.table.TableSchemaResolver;
import org.apache.hudi.common.util.Option;
import org.apache.hudi.config.HoodieWriteConfig;
import org.apache.hudi.metadata.HoodieTableMetadataUtil;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;
import java.util.Set;

/**
 * The write config the runner executes a plan with: the daemon's keys for the table (its props file), with the rules
 * the daemon applies pinned again from the table itself, since the runner writes to a table that live writers own:
 * <ul>
 *   <li>the table's own version, never an upgrade;</li>
 *   <li>optimistic concurrency with LAZY rollback of failed writes, under the table's lock provider (required: a
 *       plan is never run without the lock the writers take);</li>
 *   <li>no inline or automatic service (a compaction commit must not clean, archive or cluster on its way);</li>
 *   <li>metadata-table writes matching {@code hoodie.properties}: enabled exactly when the table has a metadata
 *       table, and never an index flag off for a partition the table has built (Hudi deletes such a partition);
 *       partitions flagged but not built are left to the asynchronous indexer;</li>
 *   <li>{@code hoodie.avro.schema} from the table (the daemon does not ship it: it is the table's, and large).</li>
 * </ul>
 * Keys naming the daemon's own classes ({@code io.huditsd.executors.*}, e.g. its clustering plan strategy) are
 * dropped: the runner does not plan, and those classes are not on a Spark class path.
 */
public final class RunnerWriteConfig {
  static final String LOCK_PROVIDER_KEY = "hoodie.write.lock.provider";
  static final String DAEMON_ONLY_PREFIX = "io.huditsd.executors.";

  private RunnerWriteConfig() {
  }

  /** The config for {@code metaClient}'s table, with {@code serviceKeys} (e.g. the execution strategy) on top. */
  public static HoodieWriteConfig build(Properties daemonKeys, HoodieTableMetaClient metaClient,
                                        Map<String, String> serviceKeys) {
    Properties properties = rules(daemonKeys, metaClient.getTableConfig());
    properties.putAll(serviceKeys);
    Option<HoodieSchema> schema = new TableSchemaResolver(metaClient).getTableSchemaIfPresent(false);
    if (schema.isPresent()) {
      properties.setProperty(HoodieWriteConfig.AVRO_SCHEMA_STRING.key(), schema.get().toString());
    }
    return HoodieWriteConfig.newBuilder()
        .withPath(metaClient.getBasePath().toString())
        .withProps(properties)
        .build();
  }

  /**
   * The daemon's keys with the rules applied (everything but the schema, which needs the timeline).
   *
   * @throws PlanRefusedException when the keys name no lock provider, or another table
   */
  static Properties rules(Properties daemonKeys, HoodieTableConfig table) {
    String lockProvider = daemonKeys.getProperty(LOCK_PROVIDER_KEY);
    if (lockProvider == null || lockProvider.isBlank()) {
      throw new PlanRefusedException("The props name no " + LOCK_PROVIDER_KEY + " for table "
          + table.getTableName() + ": the runner never executes a plan without the table lock its writers take");
    }
    String name = daemonKeys.getProperty(HoodieWriteConfig.TBL_NAME.key());
    if (name != null && !name.equals(table.getTableName())) {
      throw new PlanRefusedException("The props are for table " + name + " but the base path holds table "
          + table.getTableName());
    }
    Properties properties = new Properties();
    for (String key : daemonKeys.stringPropertyNames()) {
      String value = daemonKeys.getProperty(key);
      if (!value.startsWith(DAEMON_ONLY_PREFIX)) {
        properties.setProperty(key, value);
      }
    }
    properties.putAll(pinned(table));
    return properties;
  }

  private static Map<String, String> pinned(HoodieTableConfig table) {
    Map<String, String> keys = new LinkedHashMap<>();
    keys.put(HoodieWriteConfig.TBL_NAME.key(), table.getTableName());
    keys.put(HoodieWriteConfig.WRITE_TABLE_VERSION.key(), Integer.toString(table.getTableVersion().versionCode()));
    keys.put(HoodieWriteConfig.AUTO_UPGRADE_VERSION.key(), "false");
    keys.put("hoodie.write.concurrency.mode", "OPTIMISTIC_CONCURRENCY_CONTROL");
    keys.put("hoodie.cleaner.policy.failed.writes", "LAZY");
    keys.put("hoodie.clean.automatic", "false");
    keys.put("hoodie.clean.async.enabled", "false");
    keys.put("hoodie.archive.automatic", "false");
    keys.put("hoodie.archive.async", "false");
    keys.put("hoodie.compact.inline", "false");
    keys.put("hoodie.compact.schedule.inline", "false");
    keys.put("hoodie.log.compaction.inline", "false");
    keys.put("hoodie.clustering.inline", "false");
    keys.put("hoodie.clustering.schedule.inline", "false");
    keys.put("hoodie.clustering.async.enabled", "false");
    keys.putAll(metadataMatchingTable(table));
    return keys;
  }

  private static Map<String, String> metadataMatchingTable(HoodieTableConfig table) {
    Set<String> built = table.getMetadataPartitions();
    Map<String, String> keys = new LinkedHashMap<>();
    keys.put(HoodieMetadataConfig.ENABLE.key(),
        Boolean.toString(built.contains(HoodieTableMetadataUtil.PARTITION_NAME_FILES)));
    // Hudi 1.2.0 keeps partition stats on exactly when column stats are.
    if (built.contains(HoodieTableMetadataUtil.PARTITION_NAME_COLUMN_STATS)
        || built.contains(HoodieTableMetadataUtil.PARTITION_NAME_PARTITION_STATS)) {
      keys.put(HoodieMetadataConfig.ENABLE_METADATA_INDEX_COLUMN_STATS.key(), "true");
    }
    if (built.contains(HoodieTableMetadataUtil.PARTITION_NAME_BLOOM_FILTERS)) {
      keys.put(HoodieMetadataConfig.ENABLE_METADATA_INDEX_BLOOM_FILTER.key(), "true");
    }
    if (built.contains(HoodieTableMetadataUtil.PARTITION_NAME_RECORD_INDEX)) {
      keys.put(HoodieMetadataConfig.GLOBAL_RECORD_LEVEL_INDEX_ENABLE_PROP.key(), "true");
    }
    // A partition flagged on but not built is built by the asynchronous indexer only, never by this commit.
    keys.put(HoodieMetadataConfig.ASYNC_INDEX_ENABLE.key(), "true");
    return keys;
  }
}
