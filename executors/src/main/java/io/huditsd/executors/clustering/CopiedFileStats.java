package io.huditsd.executors.clustering;

import org.apache.hudi.common.model.HoodieRecord.HoodieRecordType;
import org.apache.hudi.common.schema.HoodieSchema;
import org.apache.hudi.common.table.HoodieTableMetaClient;
import org.apache.hudi.common.util.Option;
import org.apache.hudi.common.util.ParquetUtils;
import org.apache.hudi.config.HoodieWriteConfig;
import org.apache.hudi.metadata.HoodieIndexVersion;
import org.apache.hudi.metadata.HoodieTableMetadataUtil;
import org.apache.hudi.stats.HoodieColumnRangeMetadata;
import org.apache.hudi.util.Lazy;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Column statistics of a copied file for the metadata table's column_stats (and partition_stats) index, derived
 * from the footer as written: a copy keeps every value, so the chunk statistics it carries over are the file's.
 * Without them Hudi would open every new file again to read the same footer.
 */
final class CopiedFileStats {
  private final Optional<List<String>> columnsToIndex;
  private final HoodieIndexVersion indexVersion;
  private final ParquetUtils parquetUtils = new ParquetUtils();

  private CopiedFileStats(Optional<List<String>> columnsToIndex, HoodieIndexVersion indexVersion) {
    this.columnsToIndex = columnsToIndex;
    this.indexVersion = indexVersion;
  }

  /** Statistics for the columns the table indexes; none when column stats are off. */
  static CopiedFileStats of(HoodieWriteConfig config, HoodieTableMetaClient metaClient, HoodieSchema tableSchema,
                            HoodieRecordType recordType) {
    if (!config.isMetadataColumnStatsIndexEnabled()) {
      return new CopiedFileStats(Optional.empty(), null);
    }
    HoodieIndexVersion version = HoodieTableMetadataUtil.existingIndexVersionOrDefault(
        HoodieTableMetadataUtil.PARTITION_NAME_COLUMN_STATS, metaClient);
    Map<String, HoodieSchema> columns = HoodieTableMetadataUtil.getColumnsToIndex(metaClient.getTableConfig(),
        config.getMetadataConfig(), Lazy.eagerly(Option.of(tableSchema)), false, Option.of(recordType), version);
    return new CopiedFileStats(Optional.of(new ArrayList<>(columns.keySet())), version);
  }

  Optional<Map<String, HoodieColumnRangeMetadata<Comparable>>> of(ParquetMetadata footer, String fileName) {
    if (columnsToIndex.isEmpty()) {
      return Optional.empty();
    }
    List<HoodieColumnRangeMetadata<Comparable>> ranges = parquetUtils.readColumnStatsFromMetadata(footer, fileName,
        Option.of(columnsToIndex.get()), indexVersion);
    Map<String, HoodieColumnRangeMetadata<Comparable>> byColumn = new LinkedHashMap<>();
    for (HoodieColumnRangeMetadata<Comparable> range : ranges) {
      byColumn.put(range.getColumnName(), range);
    }
    return Optional.of(byColumn);
  }
}
