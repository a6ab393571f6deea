package io.huditsd.executors.clustering;

import io.huditsd.config.ServicedTable;
import io.huditsd.executors.ClusteringStrategyMatch;
import org.apache.avro.generic.GenericRecord;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.Path;
import org.apache.hudi.avro.model.HoodieMetadataColumnStats;
import org.apache.hudi.client.HoodieJavaWriteClient;
import org.apache.hudi.common.bloom.BloomFilter;
import org.apache.hudi.common.bloom.BloomFilterFactory;
import org.apache.hudi.common.config.HoodieMetadataConfig;
import org.apache.hudi.common.engine.EngineType;
import org.apache.hudi.common.model.HoodieAvroPayload;
import org.apache.hudi.common.model.HoodieTableType;
import org.apache.hudi.common.table.HoodieTableMetaClient;
import org.apache.hudi.common.util.Option;
import org.apache.hudi.common.util.collection.Pair;
import org.apache.hudi.common.util.queue.ExecutorType;
import org.apache.hudi.config.HoodieWriteConfig;
import org.apache.hudi.metadata.HoodieBackedTableMetadata;
import org.apache.hudi.storage.StoragePath;
import org.apache.hudi.storage.StoragePathInfo;
import org.apache.parquet.format.converter.ParquetMetadataConverter;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.util.HadoopInputFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The streaming rewrite ({@link JavaStreamingRewriteExecutionStrategy}) on real COW and MOR tables on local disk,
 * executed by Hudi's Java write client: the rows, meta columns, footers, file sizes and metadata table it leaves.
 */
class TestStreamingRewriteClustering {
  private static final Map<String, String> STREAMING = Map.of(
      ClusteringStrategyMatch.EXECUTION_STRATEGY_KEY, ClusteringStrategyMatch.JAVA_STREAMING_REWRITE,
      // The tables are clustered right after they are written: no file group is cold by the default settings.
      HotFileGroups.COMMITS_KEY, "0", HotFileGroups.MINUTES_KEY, "0",
      // Small bloom filters, so that file sizes follow the rows rather than the filter.
      "hoodie.index.bloom.num_entries", "1000");
  private static final String TARGET_KEY = "hoodie.clustering.plan.strategy.target.file.max.bytes";

  private final CopyTables tables = new CopyTables();

  @TempDir
  java.nio.file.Path directory;

  @Test
  void rewritesEveryRowKeepingItsMetaColumnsIntoFilesOfTheTargetSize() throws Exception {
    ServicedTable table = tables.create(directory.resolve("cow"), HoodieTableType.COPY_ON_WRITE, CopyTables.V2,
        STREAMING);
    for (int commit = 0; commit < 6; commit++) {
      tables.upsert(table, CopyTables.V2, commit * 2000, 2000, 1, 3);
    }
    List<Path> inputs = tables.latestBaseFiles(table);
    Map<String, Map<String, String>> before = byKey(tables.latestRows(table));
    long target = 64 * 1024;

    cluster(table, Map.of(TARGET_KEY, Long.toString(target)));

    List<Path> outputs = tables.latestBaseFiles(table);
    assertThat(outputs).doesNotContainAnyElementsOf(inputs);
    // 12 input files in two partitions, about 150 KB of rows per partition: several files each.
    assertThat(outputs.size()).isGreaterThan(4);
    Map<String, Map<String, String>> after = new HashMap<>();
    for (Path output : outputs) {
      // Hudi's parquet writer checks the size every few hundred records: a file ends a little past the target.
      assertThat(length(output)).as("size of " + output).isLessThan(target * 3 / 2);
      List<Map<String, String>> rows = tables.rows(output);
      assertThat(rows).isNotEmpty().allMatch(row -> row.get("_hoodie_file_name").equals(output.getName()));
      checkFooter(output, rows);
      after.putAll(byKey(rows));
    }
    assertThat(after.keySet()).isEqualTo(before.keySet());
    // Data and meta columns (commit time, sequence number, key, partition) as before; only the file name moved.
    assertThat(withoutFileName(after)).isEqualTo(withoutFileName(before));
    checkMetadataTable(table, outputs);
  }

  @Test
  void mergesTheLogsOfMorSlicesUpdatesAndDeletes() throws Exception {
    ServicedTable table = tables.create(directory.resolve("mor"), HoodieTableType.MERGE_ON_READ, CopyTables.V1,
        STREAMING);
    for (int commit = 0; commit < 4; commit++) {
      tables.upsert(table, CopyTables.V1, commit * 30, 30, 1, 1);
    }
    // Updates of ids 0-59 and deletes of ids 100-109 go to the file groups' logs.
    tables.upsert(table, CopyTables.V1, 0, 60, 2, 10);
    tables.delete(table, CopyTables.V1, 100, 10);

    cluster(table, Map.of());

    HoodieTableMetaClient metaClient = tables.hudiTables().metaClient(table.basePath());
    assertThat(metaClient.getActiveTimeline().getCompletedReplaceTimeline().countInstants()).isEqualTo(1);
    List<Map<String, String>> rows = tables.latestRows(table);
    assertThat(rows).hasSize(110);
    for (Map<String, String> row : rows) {
      int id = Integer.parseInt(row.get("id").substring(3));
      assertThat(id < 100 || id > 109).as("deleted id %s", id).isTrue();
      assertThat(row.get("amount")).as(row.get("id")).isEqualTo(Long.toString(id < 60 ? id * 10L : id));
      assertThat(row.get("ts")).isEqualTo(id < 60 ? "2" : "1");
    }
    for (Path output : tables.latestBaseFiles(table)) {
      checkFooter(output, tables.rows(output));
    }
  }

  @Test
  void aPlanWithSortColumnsIsSortedByHudisStrategy() throws Exception {
    ServicedTable table = tables.create(directory.resolve("sorted"), HoodieTableType.COPY_ON_WRITE, CopyTables.V1,
        STREAMING);
    // amount = -id: sorted by amount, the rows of a file run from the highest id down; as read, they run up.
    for (int commit = 0; commit < 4; commit++) {
      tables.upsert(table, CopyTables.V1, commit * 50, 50, 1, -1);
    }

    cluster(table, Map.of("hoodie.clustering.plan.strategy.sort.columns", "amount"));

    List<Path> outputs = tables.latestBaseFiles(table);
    assertThat(outputs).hasSize(2);
    for (Path output : outputs) {
      List<Long> amounts = tables.rows(output).stream().map(row -> Long.parseLong(row.get("amount"))).toList();
      assertThat(amounts).hasSize(100).isSorted();
    }
  }

  @Test
  void readsOnAThreadOfItsOwnWhateverDefaultTheWriteConfigFilledIn() {
    // Hudi's builder writes every default into the properties: SIMPLE (one thread) is always "set".
    HoodieWriteConfig defaults = HoodieWriteConfig.newBuilder().withEngineType(EngineType.JAVA)
        .withPath(directory.toString()).build();
    assertThat(defaults.getExecutorType()).isEqualTo(ExecutorType.SIMPLE);
    assertThat(JavaStreamingRewriteExecutionStrategy.streamingConfig(defaults).getExecutorType())
        .isEqualTo(ExecutorType.DISRUPTOR);
    HoodieWriteConfig bounded = HoodieWriteConfig.newBuilder().withEngineType(EngineType.JAVA)
        .withPath(directory.toString()).withProps(Map.of("hoodie.write.executor.type", "BOUNDED_IN_MEMORY")).build();
    assertThat(JavaStreamingRewriteExecutionStrategy.streamingConfig(bounded).getExecutorType())
        .isEqualTo(ExecutorType.BOUNDED_IN_MEMORY);
  }

  private void cluster(ServicedTable table, Map<String, String> extraKeys) {
    try (HoodieJavaWriteClient<HoodieAvroPayload> client = tables.hudiTables().writeClient(table, extraKeys)) {
      String instant = client.scheduleClustering(Option.empty()).get();
      client.cluster(instant, true);
    }
  }

  private long length(Path file) throws IOException {
    return file.getFileSystem(tables.hadoop()).getFileStatus(file).getLen();
  }

  /** The footer names the file's key range, and its bloom filter knows every key. */
  private void checkFooter(Path file, List<Map<String, String>> rows) throws IOException {
    Map<String, String> footer = ParquetFileReader.readFooter(HadoopInputFile.fromPath(file, tables.hadoop()),
        ParquetMetadataConverter.NO_FILTER).getFileMetaData().getKeyValueMetaData();
    List<String> keys = rows.stream().map(row -> row.get("_hoodie_record_key")).sorted().toList();
    assertThat(footer.get("hoodie_min_record_key")).isEqualTo(keys.get(0));
    assertThat(footer.get("hoodie_max_record_key")).isEqualTo(keys.get(keys.size() - 1));
    BloomFilter filter = BloomFilterFactory.fromString(footer.get("org.apache.hudi.bloomfilter"),
        footer.get("hoodie_bloom_filter_type_code"));
    assertThat(keys).allMatch(filter::mightContain);
  }

  /**
   * The metadata table lists every data file the file system holds, partition by partition, and its column stats
   * of each new file match the file's values.
   */
  private void checkMetadataTable(ServicedTable table, List<Path> outputs) throws Exception {
    HoodieTableMetaClient metaClient = tables.hudiTables().metaClient(table.basePath());
    assertThat(metaClient.getTableConfig().getMetadataPartitions()).contains("files", "column_stats");
    try (HoodieBackedTableMetadata metadata = new HoodieBackedTableMetadata(tables.hudiTables().engineContext(),
        metaClient.getStorage(), HoodieMetadataConfig.newBuilder().enable(true).build(), table.basePath())) {
      for (String region : CopyTables.REGIONS) {
        Set<String> listed = metadata.getAllFilesInPartition(new StoragePath(table.basePath(), region)).stream()
            .map(StoragePathInfo::getPath).map(StoragePath::getName).collect(Collectors.toCollection(TreeSet::new));
        Path partition = new Path(table.basePath(), region);
        Set<String> onDisk = new TreeSet<>();
        for (FileStatus status : partition.getFileSystem(tables.hadoop()).listStatus(partition)) {
          if (status.getPath().getName().endsWith(".parquet")) {
            onDisk.add(status.getPath().getName());
          }
        }
        assertThat(listed).as("files of " + region + " in the metadata table").isEqualTo(onDisk);
      }
      for (Path output : outputs) {
        List<Long> amounts = tables.rows(output).stream().map(row -> Long.parseLong(row.get("amount"))).toList();
        Pair<String, String> file = Pair.of(output.getParent().getName(), output.getName());
        HoodieMetadataColumnStats stats = metadata.getColumnStats(List.of(file), "amount").get(file);
        assertThat(stats).as("column stats of " + output).isNotNull();
        assertThat(stats.getValueCount()).isEqualTo(amounts.size());
        assertThat(((GenericRecord) stats.getMinValue()).get("value"))
            .isEqualTo(amounts.stream().min(Long::compare).get());
        assertThat(((GenericRecord) stats.getMaxValue()).get("value"))
            .isEqualTo(amounts.stream().max(Long::compare).get());
      }
    }
  }

  private static Map<String, Map<String, String>> byKey(List<Map<String, String>> rows) {
    Map<String, Map<String, String>> byKey = new HashMap<>();
    for (Map<String, String> row : rows) {
      assertThat(byKey.put(row.get("_hoodie_record_key"), row)).as("duplicate " + row).isNull();
    }
    return byKey;
  }

  private static Map<String, Map<String, String>> withoutFileName(Map<String, Map<String, String>> rows) {
    Map<String, Map<String, String>> copies = new HashMap<>();
    rows.forEach((key, row) -> {
      Map<String, String> copy = new HashMap<>(row);
      copy.remove("_hoodie_file_name");
      copies.put(key, copy);
    });
    return copies;
  }
}
