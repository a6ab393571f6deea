package io.huditsd.executors;

import io.huditsd.config.HeartbeatSettings;
import io.huditsd.config.ServicedTable;
import io.huditsd.config.TableWriteConfigs;
import io.huditsd.config.WriterHeartbeat;
import io.huditsd.lock.DefaultTableLock;
import io.huditsd.lock.FencedHadoopStorage;
import io.huditsd.lock.LockProviderCheck;
import io.huditsd.lock.MeteredLocks;
import org.apache.hadoop.conf.Configuration;
import org.apache.hudi.client.HoodieJavaWriteClient;
import org.apache.hudi.client.common.HoodieJavaEngineContext;
import org.apache.hudi.common.model.HoodieAvroPayload;
import org.apache.hudi.common.table.HoodieTableMetaClient;
import org.apache.hudi.config.HoodieWriteConfig;
import org.apache.hudi.storage.StorageConfiguration;
import org.apache.hudi.storage.hadoop.HadoopStorageConfiguration;

import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/** Opens Hudi meta clients and Java-engine write clients for serviced tables. */
public final class HudiTables {
  private final StorageConfiguration<Configuration> storageConfiguration;
  private final HeartbeatSettings heartbeat;
  /** One per process, so each instant file is read once whether a poll or a plan run checks it first. */
  private final InstantFileCheck instantFiles = new InstantFileCheck();

  /**
   * @param hadoopConfiguration Hadoop settings for every table; Hudi's storage built from it is made fenced (see
   *     {@link FencedHadoopStorage}), so no timeline write happens under a table lock that was lost
   */
  public HudiTables(Configuration hadoopConfiguration, HeartbeatSettings heartbeat) {
    FencedHadoopStorage.install(Objects.requireNonNull(hadoopConfiguration, "hadoopConfiguration is null"));
    this.storageConfiguration = new HadoopStorageConfiguration(hadoopConfiguration);
    this.heartbeat = Objects.requireNonNull(heartbeat, "heartbeat is null");
  }

  /**
   * Hadoop's defaults plus whatever core-site.xml and hdfs-site.xml are on the class path (HADOOP_CONF_DIR), with the
   * daemon's S3A retries ({@link S3aRetryDefaults}) and local file system ({@link ForklessLocalFileSystem}) where they
   * leave Hadoop's own.
   */
  public static Configuration defaultHadoopConfiguration() {
    return ForklessLocalFileSystem.apply(S3aRetryDefaults.apply(new Configuration()));
  }

  public HeartbeatSettings heartbeat() {
    return heartbeat;
  }

  /** The check that the timeline's instant files can be read by Hudi, shared by polls and plan runs. */
  public InstantFileCheck instantFiles() {
    return instantFiles;
  }

  public StorageConfiguration<Configuration> storageConfiguration() {
    return storageConfiguration;
  }

  /**
   * The Java engine context of every read and write client of the daemon (file listings, plan contents, the
   * file-group reads behind compaction and clustering): Hudi's, with keys and ordering values looked up through
   * Avro's field index ({@link FieldIndexedJavaEngineContext}).
   */
  public HoodieJavaEngineContext engineContext() {
    return new FieldIndexedJavaEngineContext(storageConfiguration.newInstance());
  }

  public HoodieTableMetaClient metaClient(String basePath) {
    return HoodieTableMetaClient.builder()
        .setConf(storageConfiguration.newInstance())
        .setBasePath(basePath)
        .setLoadActiveTimelineOnLoad(true)
        .build();
  }

  /**
   * The table's write config, with its lock provider ({@link DefaultTableLock} when none is configured) metered and,
   * where the daemon has one, replaced by its fenced equivalent (see {@link MeteredLocks}).
   *
   * @throws DefaultTableLock.NoTableLockException when no lock is configured and the table's store has no default,
   *     or when the table's lock is the S3 storage lock on a store that ignores conditional writes: the table is
   *     refused rather than planned without a lock that excludes other processes
   */
  public HoodieWriteConfig writeConfig(ServicedTable table, HoodieTableMetaClient metaClient) {
    return TableWriteConfigs.build(metaClient, lockKeys(table), heartbeat, table.indexes());
  }

  /** The table's keys with its lock metered, refused where it cannot exclude other processes (see above). */
  private Map<String, String> lockKeys(ServicedTable table) {
    return MeteredLocks.wrap(table.id(), table.basePath(), table.hoodieKeys(), storageConfiguration.unwrap());
  }

  /**
   * A write client that judges the table's pending writer commits by the writers' heartbeat window
   * ({@link WriterHeartbeat}), not by the daemon's plans': Hudi's {@code rollbackFailedWrites} rolls back every
   * pending writer commit older than the calling client's window. Only for rolling back failed writes; callers close
   * it.
   */
  public HoodieJavaWriteClient<HoodieAvroPayload> writeClientJudgingWriters(ServicedTable table,
                                                                           HoodieTableMetaClient metaClient) {
    HoodieWriteConfig config = TableWriteConfigs.build(metaClient, lockKeys(table),
        WriterHeartbeat.of(table.hoodieKeys()).asHeartbeatSettings(), table.indexes());
    return new HoodieJavaWriteClient<>(engineContext(), config);
  }

  /** The keys passed to Hudi for this table, with the lock the daemon takes by default when none is configured. */
  public Map<String, String> effectiveKeys(ServicedTable table, HoodieTableMetaClient metaClient) {
    Map<String, String> keys = table.hoodieKeys();
    if (!DefaultTableLock.configured(keys)) {
      Optional<String> provider = DefaultTableLock.forBasePath(table.basePath());
      if (provider.isPresent()) {
        keys = new HashMap<>(keys);
        keys.put(LockProviderCheck.LOCK_PROVIDER_KEY, provider.get());
      }
    }
    return TableWriteConfigs.effectiveKeys(metaClient, keys, heartbeat, table.indexes());
  }

  /** A write client over a fresh meta client; callers close it. */
  public HoodieJavaWriteClient<HoodieAvroPayload> writeClient(ServicedTable table) {
    return writeClient(table, Map.of());
  }

  /**
   * A write client whose config has {@code overrides} on top of the table's own {@code hoodie.*} keys (as if the
   * user had set them); callers close it.
   */
  public HoodieJavaWriteClient<HoodieAvroPayload> writeClient(ServicedTable table, Map<String, String> overrides) {
    return writeClient(table, overrides, metaClient(table.basePath()));
  }

  /**
   * As {@link #writeClient(ServicedTable, Map)}, with the config built from {@code metaClient}, a meta client of the
   * table the caller has just loaded (one load less per run: on an object store a GET and a LIST).
   */
  public HoodieJavaWriteClient<HoodieAvroPayload> writeClient(ServicedTable table, Map<String, String> overrides,
                                                             HoodieTableMetaClient metaClient) {
    ServicedTable effective = overrides.isEmpty() ? table : table.withHoodieKeysOverridden(overrides);
    return new HoodieJavaWriteClient<>(engineContext(), writeConfig(effective, metaClient));
  }
}
