package io.huditsd.sparkrunner;

import org.apache.hadoop.conf.Configuration;
import org.apache.hudi.common.model.HoodieTableType;
import org.apache.hudi.common.table.HoodieTableConfig;
import org.apache.hudi.common.table.HoodieTableMetaClient;
import org.apache.hudi.common.table.HoodieTableVersion;
import org.apache.hudi.config.HoodieWriteConfig;
import org.apache.hudi.metadata.HoodieTableMetadataUtil;
import org.apache.hudi.storage.hadoop.HadoopStorageConfiguration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.Map;
import java.util.Properties;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class TestRunnerWriteConfig {
  @TempDir
  Path directory;

  @Test
  void pinsTheTablesVersionAndTurnsEveryInlineServiceOff() throws Exception {
    HoodieTableMetaClient table = table(HoodieTableVersion.EIGHT);
    Properties daemon = daemonKeys();
    daemon.setProperty("hoodie.write.table.version", "9");
    daemon.setProperty("hoodie.write.auto.upgrade", "true");
    daemon.setProperty("hoodie.clustering.inline", "true");
    daemon.setProperty("hoodie.clean.automatic", "true");
    daemon.setProperty("hoodie.cleaner.policy.failed.writes", "EAGER");

    Properties rules = RunnerWriteConfig.rules(daemon, table.getTableConfig());

    assertThat(rules).containsEntry("hoodie.write.table.version", "8")
        .containsEntry("hoodie.write.auto.upgrade", "false")
        .containsEntry("hoodie.clustering.inline", "false")
        .containsEntry("hoodie.compact.inline", "false")
        .containsEntry("hoodie.clean.automatic", "false")
        .containsEntry("hoodie.archive.automatic", "false")
        .containsEntry("hoodie.write.concurrency.mode", "OPTIMISTIC_CONCURRENCY_CONTROL")
        .containsEntry("hoodie.cleaner.policy.failed.writes", "LAZY")
        // The user's keys and the lock pass through.
        .containsEntry("hoodie.write.lock.provider", daemon.getProperty("hoodie.write.lock.provider"))
        .containsEntry("hoodie.parquet.max.file.size", "1000");
  }

  @Test
  void metadataWritesFollowTheTablesMetadataPartitionsAndNeverDropABuiltOne() throws Exception {
    HoodieTableMetaClient table = table(HoodieTableVersion.NINE);
    Properties daemon = daemonKeys();
    daemon.setProperty("hoodie.metadata.enable", "false");
    daemon.setProperty("hoodie.metadata.index.column.stats.enable", "false");

    assertThat(RunnerWriteConfig.rules(daemon, table.getTableConfig()))
        .as("no metadata table yet").containsEntry("hoodie.metadata.enable", "false");

    table.getTableConfig().setMetadataPartitionState(table, HoodieTableMetadataUtil.PARTITION_NAME_FILES, true);
    table.getTableConfig().setMetadataPartitionState(table, HoodieTableMetadataUtil.PARTITION_NAME_COLUMN_STATS, true);
    HoodieTableConfig reloaded = HoodieTableMetaClient.reload(table).getTableConfig();

    assertThat(RunnerWriteConfig.rules(daemon, reloaded))
        .containsEntry("hoodie.metadata.enable", "true")
        .containsEntry("hoodie.metadata.index.column.stats.enable", "true")
        .containsEntry("hoodie.metadata.index.async", "true");
  }

  @Test
  void dropsKeysNamingTheDaemonsOwnClasses() throws Exception {
    Properties daemon = daemonKeys();
    daemon.setProperty("hoodie.clustering.plan.strategy.class",
        "io.huditsd.executors.clustering.HotAwareClusteringPlanStrategy");
    daemon.setProperty("hoodie.write.lock.conflict.resolution.strategy",
        "io.huditsd.lock.IngestionFirstConflictResolutionStrategy");

    Properties rules = RunnerWriteConfig.rules(daemon, table(HoodieTableVersion.NINE).getTableConfig());

    assertThat(rules).doesNotContainKey("hoodie.clustering.plan.strategy.class")
        .as("the lock-providers jar is shipped with the application")
        .containsEntry("hoodie.write.lock.conflict.resolution.strategy",
            "io.huditsd.lock.IngestionFirstConflictResolutionStrategy");
  }

  @Test
  void refusesPropsWithoutALockProviderOrForAnotherTable() throws Exception {
    HoodieTableConfig config = table(HoodieTableVersion.NINE).getTableConfig();
    Properties noLock = daemonKeys();
    noLock.remove("hoodie.write.lock.provider");
    assertThatThrownBy(() -> RunnerWriteConfig.rules(noLock, config))
        .isInstanceOf(PlanRefusedException.class)
        .hasMessage("The props name no hoodie.write.lock.provider for table orders: the runner never executes a plan"
            + " without the table lock its writers take");
    Properties other = daemonKeys();
    other.setProperty("hoodie.table.name", "customers");
    assertThatThrownBy(() -> RunnerWriteConfig.rules(other, config))
        .hasMessage("The props are for table customers but the base path holds table orders");
  }

  @Test
  void theBuiltConfigCarriesTheServiceKeysOnTop() throws Exception {
    HoodieWriteConfig config = RunnerWriteConfig.build(daemonKeys(), table(HoodieTableVersion.NINE),
        Map.of(SparkExecutionStrategy.KEY, SparkExecutionStrategy.SPARK_BINARY_COPY));

    assertThat(config.getClusteringExecutionStrategyClass()).isEqualTo(SparkExecutionStrategy.SPARK_BINARY_COPY);
    assertThat(config.getWriteVersion()).isEqualTo(HoodieTableVersion.NINE);
    assertThat(config.isMetadataTableEnabled()).isFalse();
  }

  private HoodieTableMetaClient table(HoodieTableVersion version) throws Exception {
    return HoodieTableMetaClient.newTableBuilder()
        .setTableType(HoodieTableType.MERGE_ON_READ)
        .setTableName("orders")
        .setTableVersion(version)
        .setRecordKeyFields("id")
        .setPartitionFields("region")
        .initTable(new HadoopStorageConfiguration(new Configuration()), directory.resolve("orders").toString());
  }

  private static Properties daemonKeys() {
    Properties keys = new Properties();
    keys.setProperty("hoodie.table.name", "orders");
    keys.setProperty("hoodie.write.lock.provider",
        "org.apache.hudi.client.transaction.lock.FileSystemBasedLockProvider");
    keys.setProperty("hoodie.parquet.max.file.size", "1000");
    return keys;
  }
}
