package io.huditsd.executors;

import io.huditsd.config.IndexOptions;
import io.huditsd.config.MetadataIndexes;
import io.huditsd.config.ServicedTable;
import org.apache.hudi.client.HoodieJavaWriteClient;
import org.apache.hudi.common.config.HoodieMetadataConfig;
import org.apache.hudi.common.model.HoodieAvroPayload;
import org.apache.hudi.common.model.HoodieTableType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A write client opened with overrides (clustering runs nearly always pass a strategy class) keeps every setting of
 * the table besides its keys: the wanted metadata indexes decide which index partitions the commit keeps and
 * updates, and for column stats which columns.
 */
class TestHudiTables {
  private final LocalTables localTables = new LocalTables();

  @TempDir
  Path directory;

  @Test
  void aWriteClientWithOverridesKeepsTheTablesWantedIndexes() throws Exception {
    ServicedTable created = localTables.create(directory.resolve("orders"), HoodieTableType.COPY_ON_WRITE, 9,
        Map.of());
    ServicedTable table = created.withIndexes(
        MetadataIndexes.of(Map.of("column_stats", new IndexOptions(List.of("amount")))));

    try (HoodieJavaWriteClient<HoodieAvroPayload> client = localTables.hudiTables().writeClient(table,
        Map.of("hoodie.clustering.plan.strategy.max.num.groups", "3"))) {
      assertThat(client.getConfig().getString("hoodie.clustering.plan.strategy.max.num.groups")).isEqualTo("3");
      assertThat(client.getConfig().getString(HoodieMetadataConfig.ENABLE_METADATA_INDEX_COLUMN_STATS.key()))
          .as("column stats wanted on the table").isEqualTo("true");
      assertThat(client.getConfig().getString(HoodieMetadataConfig.COLUMN_STATS_INDEX_FOR_COLUMNS.key()))
          .as("the wanted column stats columns").isEqualTo("amount");
    }
  }
}
