package io.huditsd.executors.clustering;

import io.huditsd.config.ServicedTable;
import io.huditsd.config.TableWriteConfigs;
import io.huditsd.executors.ClusteringStrategyMatch;
import io.huditsd.executors.HeapEstimate;
import io.huditsd.executors.PendingPlans;
import io.huditsd.executors.Placement;
import io.huditsd.executors.PlanRunner;
import io.huditsd.executors.WorkItem;
import org.apache.avro.generic.GenericRecord;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.Path;
import org.apache.hudi.avro.model.HoodieClusteringPlan;
import org.apache.hudi.avro.model.HoodieClusteringStrategy;
import org.apache.hudi.avro.model.HoodieMetadataColumnStats;
import org.apache.hudi.avro.model.HoodieRequestedReplaceMetadata;
import org.apache.hudi.client.HoodieJavaWriteClient;
import org.apache.hudi.common.bloom.BloomFilter;
import org.apache.hudi.common.bloom.BloomFilterFactory;
import org.apache.hudi.common.config.HoodieMetadataConfig;
import org.apache.hudi.common.model.HoodieAvroPayload;
import org.apache.hudi.common.model.HoodieTableType;
import org.apache.hudi.common.model.WriteOperationType;
import org.apache.hudi.common.table.HoodieTableMetaClient;
import org.apache.hudi.common.table.timeline.HoodieInstant;
import org.apache.hudi.common.util.ClusteringUtils;
import org.apache.hudi.common.util.Option;
import org.apache.hudi.common.util.collection.Pair;
import org.apache.hudi.metadata.HoodieBackedTableMetadata;
import org.apache.hudi.storage.StoragePath;
import org.apache.parquet.format.converter.ParquetMetadataConverter;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.apache.parquet.hadoop.util.HadoopInputFile;
import org.apache.parquet.internal.column.columnindex.OffsetIndex;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Binary-copy clustering of real COW and MOR tables on local disk, executed by Hudi's Java write client. */
class TestBinaryCopyClustering {
  private static final String PLAN_KEY = "hoodie.clustering.plan.strategy.class";
  private static final Map<String, String> BINARY_COPY = Map.of(
      PLAN_KEY, JavaBinaryCopyClusteringPlanStrategy.class.getName(),
      ClusteringStrategyMatch.EXECUTION_STRATEGY_KEY, JavaBinaryCopyClusteringExecutionStrategy.class.getName(),
      // The tables are clustered right after they are written: no file group is cold by the default settings.
      HotFileGroups.COMMITS_KEY, "0", HotFileGroups.MINUTES_KEY, "0");

  private final CopyTables tables = new CopyTables();

  /** Tables that several tests start from, written once: each test clusters a copy of its own. */
  @TempDir
  static java.nio.file.Path written;

  @TempDir
  java.nio.file.Path directory;

  /** COW, 6 commits of 40 rows: 12 small files over two partitions. */
  private static java.nio.file.Path sixCommits;
  /** COW, 4 commits of 30 rows (the clustering trigger's default): 8 small files over two partitions. */
  private static java.nio.file.Path fourCommits;

  @BeforeAll
  static void writeTables() throws IOException {
    CopyTables writer = new CopyTables();
    sixCommits = written.resolve("orders");
    ServicedTable six = writer.create(sixCommits, HoodieTableType.COPY_ON_WRITE, CopyTables.V1, Map.of());
    for (int commit = 0; commit < 6; commit++) {
      writer.upsert(six, CopyTables.V1, commit * 40, 40, 1, 1);
    }
    fourCommits = written.resolve("upserts");
    ServicedTable four = writer.create(fourCommits, HoodieTableType.COPY_ON_WRITE, CopyTables.V1, Map.of());
    for (int commit = 0; commit < 4; commit++) {
      writer.upsert(four, CopyTables.V1, commit * 30, 30, 1, 1);
    }
  }

  @Test
  void copiesEveryRowIntoFewerFilesWithoutReencodingAndNamesTheNewFiles() throws Exception {
    ServicedTable table = tables.copy(sixCommits, directory, BINARY_COPY);
    List<Path> inputs = tables.latestBaseFiles(table);
    List<Map<String, String>> before = withoutFileName(tables.latestRows(table));
    Map<String, Integer> inputChunks = chunkDigests(inputs);
    double copied = BinaryCopyMetrics.copiedGroups();
    double fallbacks = totalFallbacks();

    cluster(table, Map.of());

    List<Path> outputs = tables.latestBaseFiles(table);
    assertThat(inputs).hasSize(12);
    assertThat(outputs).hasSize(2);
    assertThat(BinaryCopyMetrics.copiedGroups() - copied).isEqualTo(2);
    assertThat(totalFallbacks()).isEqualTo(fallbacks);
    List<Map<String, String>> after = new ArrayList<>();
    for (Path output : outputs) {
      List<Map<String, String>> rows = tables.rows(output);
      assertThat(rows).extracting(row -> row.get("_hoodie_file_name")).containsOnly(output.getName());
      after.addAll(rows);
      checkFooter(output, rows);
    }
    assertThat(sorted(withoutFileName(after))).isEqualTo(sorted(before));
    // Every column chunk but _hoodie_file_name's is the input's, byte for byte, and each input chunk went out once.
    assertThat(chunkDigests(outputs)).isEqualTo(inputChunks);
    for (Path output : outputs) {
      checkPageIndexes(output);
    }
    checkColumnStats(table, outputs);
    // Written through the raw local file system: Hadoop's per-512-byte CRCs doubled the cost of moving the bytes.
    for (Path output : outputs) {
      assertThat(crcOf(output)).as("a .crc file beside " + output).doesNotExist();
    }
  }

  /**
   * Outputs are written without Hadoop's {@code .crc} files, but sources are still read with them: a source whose
   * bytes changed on disk fails the run, instead of being copied into a file nothing could check any more.
   */
  @Test
  void aSourceWhoseBytesNoLongerMatchItsChecksumFailsTheCopyAndNothingIsReplaced() throws Exception {
    ServicedTable table = tables.copy(sixCommits, directory, BINARY_COPY);
    List<Path> inputs = tables.latestBaseFiles(table);
    java.nio.file.Path rotten = java.nio.file.Path.of(inputs.get(0).toUri());
    assertThat(crcOf(inputs.get(0))).as("Hudi's writer left a .crc beside its file").exists();
    byte[] bytes = java.nio.file.Files.readAllBytes(rotten);
    // Inside the first column chunk (after the 4-byte magic): the footer still parses, the data does not check.
    bytes[64] ^= 0x5a;
    java.nio.file.Files.write(rotten, bytes);

    assertThatThrownBy(() -> cluster(table, Map.of()))
        .hasStackTraceContaining("Checksum error");

    HoodieTableMetaClient metaClient = tables.hudiTables().metaClient(table.basePath());
    assertThat(metaClient.reloadActiveTimeline().getCompletedReplaceTimeline().countInstants()).isZero();
    assertThat(tables.latestBaseFiles(table)).containsExactlyInAnyOrderElementsOf(inputs);
  }

  private static java.nio.file.Path crcOf(Path file) {
    java.nio.file.Path local = java.nio.file.Path.of(file.toUri());
    return local.resolveSibling("." + local.getFileName() + ".crc");
  }

  /**
   * Hudi 1.2.0 derives record-index updates of a commit from the base files its write stats name (it reads their
   * keys), not from per-record write results: a copy's replacecommit moves every key to its new file group.
   */
  @Test
  void copiesATableWithARecordIndexAndTheIndexFindsEveryKeyInItsNewFileGroup() throws Exception {
    ServicedTable table = tables.create(directory.resolve("indexed"), HoodieTableType.COPY_ON_WRITE, CopyTables.V1,
        BINARY_COPY);
    Map<String, String> recordIndex = Map.of(
        "hoodie.metadata.global.record.level.index.enable", "true",
        // Hudi's Java engine writes an initial build into one file group, whatever the count (see TableWriteConfigs).
        "hoodie.metadata.global.record.level.index.min.filegroup.count", "1",
        "hoodie.metadata.global.record.level.index.max.filegroup.count", "1");
    for (int commit = 0; commit < 6; commit++) {
      tables.upsert(table, CopyTables.V1, commit * 40, 40, 1, 1, recordIndex);
    }
    HoodieTableMetaClient metaClient = tables.hudiTables().metaClient(table.basePath());
    assertThat(metaClient.getTableConfig().getMetadataPartitions()).contains("record_index");
    List<Map<String, String>> before = withoutFileName(tables.latestRows(table));
    double copied = BinaryCopyMetrics.copiedGroups();

    cluster(table, Map.of());

    List<Path> outputs = tables.latestBaseFiles(table);
    assertThat(outputs).hasSize(2);
    assertThat(BinaryCopyMetrics.copiedGroups() - copied).isEqualTo(2);
    assertThat(sorted(withoutFileName(tables.latestRows(table)))).isEqualTo(sorted(before));
    Map<String, String> fileGroupOfKey = new HashMap<>();
    for (Path output : outputs) {
      String fileGroup = output.getParent().getName() + "/" + output.getName().substring(0, output.getName().indexOf('_'));
      tables.rows(output).forEach(row -> fileGroupOfKey.put(row.get("_hoodie_record_key"), fileGroup));
    }
    assertThat(fileGroupOfKey).hasSize(240);
    Map<String, String> indexed = new HashMap<>();
    HoodieTableMetaClient clustered = tables.hudiTables().metaClient(table.basePath());
    try (HoodieBackedTableMetadata metadata = new HoodieBackedTableMetadata(
        new org.apache.hudi.common.engine.HoodieLocalEngineContext(clustered.getStorageConf()),
        clustered.getStorage(), HoodieMetadataConfig.newBuilder().enable(true).build(), table.basePath())) {
      metadata.readRecordIndexLocationsWithKeys(
              org.apache.hudi.common.data.HoodieListData.eager(new ArrayList<>(fileGroupOfKey.keySet())))
          .collectAsList().forEach(entry -> indexed.put(entry.getKey(),
              entry.getValue().getPartitionPath() + "/" + entry.getValue().getFileId()));
    }
    assertThat(indexed).isEqualTo(fileGroupOfKey);
  }

  @Test
  void rollsOverToANewFileBeforeARowGroupWouldPassTheTargetSize() throws Exception {
    ServicedTable table = tables.copy(sixCommits, directory, BINARY_COPY);
    long smallest = Long.MAX_VALUE;
    long largest = 0;
    for (Path input : tables.latestBaseFiles(table)) {
      for (BlockMetaData block : footer(input).getBlocks()) {
        smallest = Math.min(smallest, block.getCompressedSize());
        largest = Math.max(largest, block.getCompressedSize());
      }
    }
    assertThat(smallest * 5 / 2).as("row groups of similar size").isGreaterThan(2 * largest);
    long target = 2 * largest + smallest / 2;
    List<Map<String, String>> before = withoutFileName(tables.latestRows(table));

    cluster(table, Map.of("hoodie.clustering.plan.strategy.target.file.max.bytes", Long.toString(target)));

    List<Path> outputs = tables.latestBaseFiles(table);
    assertThat(outputs).hasSize(6);
    for (Path output : outputs) {
      List<BlockMetaData> blocks = footer(output).getBlocks();
      assertThat(blocks).hasSize(2);
      assertThat(blocks.stream().mapToLong(BlockMetaData::getCompressedSize).sum()).isLessThanOrEqualTo(target);
    }
    assertThat(sorted(withoutFileName(tables.latestRows(table)))).isEqualTo(sorted(before));
  }

  @Test
  void aFileWhoseRowGroupsSpanTwoOutputsGivesBothItsKeys() throws Exception {
    ServicedTable table = tables.create(directory.resolve("spanning"), HoodieTableType.COPY_ON_WRITE, CopyTables.V1,
        BINARY_COPY);
    // Parquet checks the row-group size every 100 rows: a tiny block size makes a row group of each 100.
    // Four commits: the clustering trigger's default (hoodie.clustering.inline.max.commits).
    for (int commit = 0; commit < 4; commit++) {
      tables.upsert(table, CopyTables.V1, commit * 400, 400, 1, 1, Map.of("hoodie.parquet.block.size", "1"));
    }
    List<Path> inputs = tables.latestBaseFiles(table);
    long rowGroupBytes = 0;
    for (Path input : inputs) {
      List<BlockMetaData> blocks = footer(input).getBlocks();
      assertThat(blocks).as("row groups of " + input).hasSizeGreaterThan(1);
      rowGroupBytes = Math.max(rowGroupBytes, blocks.get(0).getCompressedSize());
    }
    List<Map<String, String>> before = withoutFileName(tables.latestRows(table));

    // Each output takes about three and a half row groups: most sources end up split between two outputs.
    cluster(table, Map.of("hoodie.clustering.plan.strategy.target.file.max.bytes",
        Long.toString(rowGroupBytes * 7 / 2)));

    // Per partition: four files of two row groups go out as 3 + 3 + 2 row groups, so the second and the fourth
    // file are each split between two outputs.
    List<Path> outputs = tables.latestBaseFiles(table);
    assertThat(inputs).hasSize(8);
    assertThat(outputs).hasSize(6);
    List<Map<String, String>> after = new ArrayList<>();
    for (Path output : outputs) {
      List<Map<String, String>> rows = tables.rows(output);
      assertThat(rows).extracting(row -> row.get("_hoodie_file_name")).containsOnly(output.getName());
      checkFooter(output, rows);
      after.addAll(rows);
    }
    assertThat(sorted(withoutFileName(after))).isEqualTo(sorted(before));
    tables.upsert(table, CopyTables.V1, 0, 1600, 2, 10);
    assertThat(tables.latestRows(table)).hasSize(1600)
        .allMatch(row -> row.get("amount").equals(Long.toString(Integer.parseInt(row.get("id").substring(3)) * 10L)));
  }

  @Test
  void anUpsertAfterCopyingUpdatesRowsThroughTheMergedBloomFilters() throws Exception {
    ServicedTable table = tables.copy(fourCommits, directory, BINARY_COPY);
    cluster(table, Map.of());
    assertThat(tables.latestBaseFiles(table)).hasSize(2);

    tables.upsert(table, CopyTables.V1, 0, 60, 2, 10);

    assertFirst60UpdatedOf120(tables.latestRows(table));
  }

  @Test
  void aColumnAddedLaterIsCopiedWithNullsForTheOlderFiles() throws Exception {
    ServicedTable table = tables.create(directory.resolve("evolved"), HoodieTableType.COPY_ON_WRITE, CopyTables.V1,
        BINARY_COPY);
    for (int commit = 0; commit < 3; commit++) {
      tables.upsert(table, CopyTables.V1, commit * 20, 20, 1, 1);
    }
    for (int commit = 3; commit < 6; commit++) {
      tables.upsert(table, CopyTables.V2, commit * 20, 20, 1, 1);
    }
    List<Map<String, String>> before = withoutFileName(tables.latestRows(table));
    before.forEach(row -> row.putIfAbsent("note", null));
    double copied = BinaryCopyMetrics.copiedGroups();
    double fallbacks = totalFallbacks();

    cluster(table, Map.of());

    assertThat(BinaryCopyMetrics.copiedGroups() - copied).isEqualTo(2);
    assertThat(totalFallbacks()).isEqualTo(fallbacks);
    List<Map<String, String>> after = withoutFileName(tables.latestRows(table));
    assertThat(sorted(after)).isEqualTo(sorted(before));
    assertThat(after).filteredOn(row -> Integer.parseInt(row.get("id").substring(3)) < 60)
        .extracting(row -> row.get("note")).containsOnlyNulls();
    assertThat(after).filteredOn(row -> Integer.parseInt(row.get("id").substring(3)) >= 60)
        .extracting(row -> row.get("note")).doesNotContainNull();
  }

  @Test
  void aColumnWhoseTypeChangedSendsTheGroupToTheRewrite() throws Exception {
    ServicedTable table = tables.create(directory.resolve("promoted"), HoodieTableType.COPY_ON_WRITE,
        CopyTables.INT_AMOUNT, BINARY_COPY);
    for (int commit = 0; commit < 3; commit++) {
      tables.upsert(table, CopyTables.INT_AMOUNT, commit * 20, 20, 1, 1);
    }
    for (int commit = 3; commit < 6; commit++) {
      tables.upsert(table, CopyTables.V1, commit * 20, 20, 1, 1);
    }
    List<Map<String, String>> before = withoutMetaColumns(tables.latestRows(table));
    double copied = BinaryCopyMetrics.copiedGroups();
    double mismatches = BinaryCopyMetrics.fallbacks(FallbackReason.SCHEMA_MISMATCH);

    cluster(table, Map.of());

    assertThat(BinaryCopyMetrics.copiedGroups()).isEqualTo(copied);
    assertThat(BinaryCopyMetrics.fallbacks(FallbackReason.SCHEMA_MISMATCH) - mismatches).isEqualTo(2);
    assertThat(tables.latestBaseFiles(table)).hasSize(2);
    assertThat(sorted(withoutMetaColumns(tables.latestRows(table)))).isEqualTo(sorted(before));
  }

  @Test
  void morSlicesWithLogsAreGroupedApartAndRewrittenWhileBaseOnlySlicesAreCopied() throws Exception {
    ServicedTable table = tables.create(directory.resolve("mor"), HoodieTableType.MERGE_ON_READ, CopyTables.V1,
        BINARY_COPY);
    for (int commit = 0; commit < 4; commit++) {
      tables.upsert(table, CopyTables.V1, commit * 30, 30, 1, 1);
    }
    // Updates of the first two commits' keys go to log files of their file groups.
    tables.upsert(table, CopyTables.V1, 0, 60, 2, 10);
    double copied = BinaryCopyMetrics.copiedGroups();
    double logFallbacks = BinaryCopyMetrics.fallbacks(FallbackReason.LOG_FILES);

    cluster(table, Map.of());

    assertThat(BinaryCopyMetrics.copiedGroups() - copied).isEqualTo(2);
    assertThat(BinaryCopyMetrics.fallbacks(FallbackReason.LOG_FILES) - logFallbacks).isEqualTo(2);
    assertFirst60UpdatedOf120(tables.latestRows(table));
  }

  @Test
  void theDaemonExecutesABinaryCopyPlanByCopyingWhateverTheTableConfigures() throws Exception {
    // The table's own configuration says rewrite; only the plan says binary copy.
    ServicedTable table = tables.copy(fourCommits, directory, Map.of(PLAN_KEY, JavaBinaryCopyClusteringPlanStrategy.class.getName(),
            ClusteringStrategyMatch.EXECUTION_STRATEGY_KEY, ClusteringStrategyMatch.JAVA_SORT_AND_SIZE,
            HotFileGroups.COMMITS_KEY, "0", HotFileGroups.MINUTES_KEY, "0"));
    List<Path> inputs = tables.latestBaseFiles(table);
    Map<String, Integer> inputChunks = chunkDigests(inputs);
    try (HoodieJavaWriteClient<HoodieAvroPayload> client = tables.hudiTables().writeClient(table)) {
      assertThat(client.scheduleClustering(Option.empty()).isPresent()).isTrue();
    }
    HoodieTableMetaClient metaClient = tables.hudiTables().metaClient(table.basePath());
    double copied = BinaryCopyMetrics.copiedGroups();

    PlanRunner.withDefaultActions(tables.hudiTables())
        .apply(WorkItem.forPlan(table, PendingPlans.list(metaClient).get(0), Placement.inProcess(HeapEstimate.NONE)));

    assertThat(BinaryCopyMetrics.copiedGroups() - copied).isEqualTo(2);
    List<Path> outputs = tables.latestBaseFiles(table);
    assertThat(outputs).hasSize(2);
    assertThat(chunkDigests(outputs)).isEqualTo(inputChunks);
  }

  @Test
  void theDaemonExecutesAPlanThatNamesSparksBinaryCopyWithJavaBinaryCopy() throws Exception {
    // Neither the table's configuration nor the planner are binary copy (the rewrite is named; binary copy is the
    // default): only the plan, as a Spark planner writes it.
    ServicedTable table = tables.copy(fourCommits, directory, Map.of(HotFileGroups.COMMITS_KEY, "0",
        HotFileGroups.MINUTES_KEY, "0",
        "hoodie.clustering.plan.strategy.class", TableWriteConfigs.REWRITE_PLAN_STRATEGY));
    Map<String, Integer> inputChunks = chunkDigests(tables.latestBaseFiles(table));
    String instant;
    try (HoodieJavaWriteClient<HoodieAvroPayload> client = tables.hudiTables().writeClient(table)) {
      instant = client.scheduleClustering(Option.empty()).get();
    }
    HoodieTableMetaClient metaClient = tables.hudiTables().metaClient(table.basePath());
    HoodieInstant requested = ClusteringUtils.getRequestedClusteringInstant(instant, metaClient.getActiveTimeline(),
        metaClient.getInstantGenerator()).get();
    HoodieClusteringPlan plan = ClusteringUtils.getClusteringPlan(metaClient, requested).get().getRight();
    assertThat(plan.getStrategy().getStrategyClassName()).isEqualTo(ClusteringStrategyMatch.JAVA_SORT_AND_SIZE);
    plan.setStrategy(HoodieClusteringStrategy.newBuilder(plan.getStrategy()).setStrategyClassName(
        "org.apache.hudi.client.clustering.run.strategy.SparkBinaryCopyClusteringExecutionStrategy").build());
    metaClient.getStorage().deleteFile(new StoragePath(metaClient.getTimelinePath(),
        metaClient.getInstantFileNameGenerator().getFileName(requested)));
    metaClient.getActiveTimeline().saveToPendingClusterCommit(requested, HoodieRequestedReplaceMetadata.newBuilder()
        .setOperationType(WriteOperationType.CLUSTER.name()).setExtraMetadata(Map.of()).setClusteringPlan(plan)
        .build());
    metaClient = tables.hudiTables().metaClient(table.basePath());
    double copied = BinaryCopyMetrics.copiedGroups();

    PlanRunner.withDefaultActions(tables.hudiTables())
        .apply(WorkItem.forPlan(table, PendingPlans.list(metaClient).get(0), Placement.inProcess(HeapEstimate.NONE)));

    assertThat(BinaryCopyMetrics.copiedGroups() - copied).isEqualTo(2);
    assertThat(chunkDigests(tables.latestBaseFiles(table))).isEqualTo(inputChunks);
  }

  private void cluster(ServicedTable table, Map<String, String> extraKeys) {
    try (HoodieJavaWriteClient<HoodieAvroPayload> client = tables.hudiTables().writeClient(table, extraKeys)) {
      String instant = client.scheduleClustering(Option.empty()).get();
      client.cluster(instant, true);
    }
  }

  /** 120 rows, ids 0-59 updated to amount id * 10, the others as inserted (amount = id). */
  private static void assertFirst60UpdatedOf120(List<Map<String, String>> rows) {
    assertThat(rows).hasSize(120);
    for (Map<String, String> row : rows) {
      int id = Integer.parseInt(row.get("id").substring(3));
      assertThat(row.get("amount")).as(row.get("id")).isEqualTo(Long.toString(id < 60 ? id * 10L : id));
    }
  }

  private static double totalFallbacks() {
    double total = 0;
    for (FallbackReason reason : FallbackReason.values()) {
      total += BinaryCopyMetrics.fallbacks(reason);
    }
    return total;
  }

  /** The footer names the file's key range, and its bloom filter knows every key. */
  private void checkFooter(Path file, List<Map<String, String>> rows) throws IOException {
    Map<String, String> footer = footer(file).getFileMetaData().getKeyValueMetaData();
    List<String> keys = rows.stream().map(row -> row.get("_hoodie_record_key")).sorted().toList();
    assertThat(footer.get("hoodie_min_record_key")).isEqualTo(keys.get(0));
    assertThat(footer.get("hoodie_max_record_key")).isEqualTo(keys.get(keys.size() - 1));
    BloomFilter filter = BloomFilterFactory.fromString(footer.get("org.apache.hudi.bloomfilter"),
        footer.get("hoodie_bloom_filter_type_code"));
    assertThat(keys).allMatch(filter::mightContain);
    assertThat(footer).containsKey("parquet.avro.schema");
  }

  /** Page indexes were carried over, their page offsets moved to where the pages are in the new file. */
  private void checkPageIndexes(Path file) throws IOException {
    try (ParquetFileReader reader = ParquetFileReader.open(HadoopInputFile.fromPath(file, tables.hadoop()))) {
      for (BlockMetaData block : reader.getFooter().getBlocks()) {
        for (ColumnChunkMetaData chunk : block.getColumns()) {
          assertThat(reader.readColumnIndex(chunk)).as("column index of " + chunk).isNotNull();
          OffsetIndex offsets = reader.readOffsetIndex(chunk);
          assertThat(offsets).as("offset index of " + chunk).isNotNull();
          assertThat(offsets.getOffset(0)).isEqualTo(chunk.getFirstDataPageOffset());
          assertThat(offsets.getLastRowIndex(offsets.getPageCount() - 1, block.getRowCount()))
              .isEqualTo(block.getRowCount() - 1);
        }
      }
    }
  }

  /** The metadata table's column stats of each new file match the file's values. */
  private void checkColumnStats(ServicedTable table, List<Path> outputs) throws IOException {
    HoodieTableMetaClient metaClient = tables.hudiTables().metaClient(table.basePath());
    assertThat(metaClient.getTableConfig().getMetadataPartitions()).contains("files", "column_stats");
    try (HoodieBackedTableMetadata metadata = new HoodieBackedTableMetadata(tables.hudiTables().engineContext(),
        metaClient.getStorage(), HoodieMetadataConfig.newBuilder().enable(true).build(), table.basePath())) {
      for (Path output : outputs) {
        List<Long> amounts = tables.rows(output).stream().map(row -> Long.parseLong(row.get("amount"))).toList();
        Pair<String, String> file = Pair.of(output.getParent().getName(), output.getName());
        HoodieMetadataColumnStats stats = metadata.getColumnStats(List.of(file), "amount").get(file);
        assertThat(stats).as("column stats of " + output).isNotNull();
        assertThat(stats.getValueCount()).isEqualTo(amounts.size());
        assertThat(stats.getNullCount()).isZero();
        assertThat(((GenericRecord) stats.getMinValue()).get("value"))
            .isEqualTo(amounts.stream().min(Long::compare).get());
        assertThat(((GenericRecord) stats.getMaxValue()).get("value"))
            .isEqualTo(amounts.stream().max(Long::compare).get());
      }
    } catch (IOException e) {
      throw e;
    } catch (Exception e) {
      throw new IOException(e);
    }
  }

  private ParquetMetadata footer(Path file) throws IOException {
    return ParquetFileReader.readFooter(HadoopInputFile.fromPath(file, tables.hadoop()),
        ParquetMetadataConverter.NO_FILTER);
  }

  /** Digests of the bytes of every column chunk except _hoodie_file_name's, with how often each occurs. */
  private Map<String, Integer> chunkDigests(List<Path> files) throws IOException, NoSuchAlgorithmException {
    Map<String, Integer> digests = new HashMap<>();
    for (Path file : files) {
      try (FSDataInputStream in = file.getFileSystem(tables.hadoop()).open(file)) {
        for (BlockMetaData block : footer(file).getBlocks()) {
          for (ColumnChunkMetaData chunk : block.getColumns()) {
            if (chunk.getPath().toDotString().equals("_hoodie_file_name")) {
              continue;
            }
            byte[] bytes = new byte[(int) chunk.getTotalSize()];
            in.readFully(chunk.getStartingPos(), bytes);
            String digest = chunk.getPath().toDotString() + ":"
                + HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
            digests.merge(digest, 1, Integer::sum);
          }
        }
      }
    }
    return digests;
  }

  private static List<Map<String, String>> withoutFileName(List<Map<String, String>> rows) {
    List<Map<String, String>> copies = new ArrayList<>();
    for (Map<String, String> row : rows) {
      Map<String, String> copy = new HashMap<>(row);
      copy.remove("_hoodie_file_name");
      copies.add(copy);
    }
    return copies;
  }

  /** Rewritten rows keep commit times and keys but may differ in sequence numbers: compare data columns only. */
  private static List<Map<String, String>> withoutMetaColumns(List<Map<String, String>> rows) {
    List<Map<String, String>> copies = new ArrayList<>();
    for (Map<String, String> row : rows) {
      Map<String, String> copy = new HashMap<>(row);
      copy.keySet().removeIf(column -> column.startsWith("_hoodie_"));
      copies.add(copy);
    }
    return copies;
  }

  private static List<Map<String, String>> sorted(List<Map<String, String>> rows) {
    List<Map<String, String>> copy = new ArrayList<>(rows);
    copy.sort(Comparator.comparing(row -> row.get("id")));
    return copy;
  }
}
