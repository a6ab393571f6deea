package io.huditsd.scheduler;

import io.huditsd.config.HeartbeatSettings;
import io.huditsd.config.IndexOptions;
import io.huditsd.config.MetadataIndexState;
import io.huditsd.config.MetadataIndexes;
import io.huditsd.config.ServiceType;
import io.huditsd.config.ServicedTable;
import io.huditsd.executors.HeapEstimate;
import io.huditsd.executors.HudiTables;
import io.huditsd.executors.LocalTables;
import io.huditsd.executors.PendingPlan;
import io.huditsd.executors.PendingPlans;
import io.huditsd.executors.Placement;
import io.huditsd.executors.PlanRunner;
import io.huditsd.executors.PlanSkippedException;
import io.huditsd.executors.RunRecord;
import io.huditsd.executors.RunStatus;
import io.huditsd.executors.WorkItem;
import io.huditsd.executors.WorkerPool;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.generic.IndexedRecord;
import org.apache.hadoop.conf.Configuration;
import org.apache.hudi.avro.model.HoodieMetadataColumnStats;
import org.apache.hudi.common.config.HoodieMetadataConfig;
import org.apache.hudi.common.data.HoodieListData;
import org.apache.hudi.common.engine.HoodieLocalEngineContext;
import org.apache.hudi.common.fs.FSUtils;
import org.apache.hudi.common.model.HoodieBaseFile;
import org.apache.hudi.common.model.HoodieRecordGlobalLocation;
import org.apache.hudi.common.model.HoodieTableType;
import org.apache.hudi.common.table.HoodieTableMetaClient;
import org.apache.hudi.common.table.view.FileSystemViewManager;
import org.apache.hudi.common.table.view.HoodieTableFileSystemView;
import org.apache.hudi.common.util.collection.Pair;
import org.apache.hudi.metadata.HoodieBackedTableMetadata;
import org.apache.hudi.metadata.MetadataPartitionType;
import org.apache.parquet.avro.AvroParquetReader;
import org.apache.parquet.hadoop.ParquetReader;
import org.apache.parquet.hadoop.util.HadoopInputFile;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The daemon builds a record index and column stats on a table that Hudi's Java writer upserts into throughout the
 * build, with the same lock. Afterwards every record is found through the record index where it really is, the
 * column stats equal the data files' own, and every write is there.
 */
class TestAsyncIndexing {
  private static final List<String> STATS_COLUMNS = List.of("amount", "ts");
  /** What Hudi asks of writers while an index is built asynchronously: the index flags on, async on. */
  private static final Map<String, String> WRITER_INDEX_KEYS = Map.of(
      "hoodie.metadata.global.record.level.index.enable", "true",
      "hoodie.metadata.index.column.stats.enable", "true",
      "hoodie.metadata.index.column.stats.column.list", String.join(",", STATS_COLUMNS));

  private final HudiTables hudiTables = new HudiTables(new Configuration(), new HeartbeatSettings(5_000, 2));
  private final List<RunRecord> finished = new CopyOnWriteArrayList<>();
  private final WorkerPool pool = new WorkerPool(2, 1, Duration.ofSeconds(1), PlanRunner.withDefaultActions(hudiTables),
      record -> {
        if (record.status().isFinal()) {
          finished.add(record);
        }
      });
  /** A failed build is planned again at the next round, without the daemon's back-off (see TestPlanAttempts). */
  private final DuePlanner planner = new DuePlanner(hudiTables, pool,
      new IndexTrigger(new PlanAttempts(Clock.systemUTC(), Duration.ofMillis(1), Duration.ofMillis(1))));

  @TempDir
  Path directory;

  @AfterEach
  void stopPool() throws InterruptedException {
    pool.close();
  }

  @Test
  void buildsRecordIndexAndColumnStatsOnAQuietTable() throws Exception {
    build(false);
  }

  @Test
  void buildsRecordIndexAndColumnStatsWhileAWriterUpserts() throws Exception {
    build(true);
  }

  private void build(boolean concurrentWriter) throws Exception {
    Path path = directory.resolve("orders");
    ServicedTable created = new LocalTables(hudiTables).create(path, HoodieTableType.COPY_ON_WRITE, 9, Map.of());
    Map<String, IndexOptions> wanted = Map.of("record_index", IndexOptions.none(),
        "column_stats", new IndexOptions(STATS_COLUMNS));
    // A catch-up stalled by a failed writer commit gives up after 30 s instead of Hudi's 15 minutes.
    ServicedTable table = new ServicedTable(created.id(), created.basePath(), Set.of(ServiceType.INDEX),
        created.pollInterval(), Map.of("hoodie.metadata.index.check.timeout.seconds", "30"),
        MetadataIndexes.of(wanted));

    try (LiveWriter writer = new LiveWriter(table.basePath(), "orders", WRITER_INDEX_KEYS)) {
      writer.upsert(0, 0, 0, 400);
      writer.upsert(1, 100, 400, 100);
      assertThat(metaClient(table).getTableConfig().getMetadataPartitions()).containsExactly("files");

      AtomicBoolean stop = new AtomicBoolean();
      AtomicInteger batches = new AtomicInteger(2);
      AtomicReference<Throwable> writerFailure = new AtomicReference<>();
      CountDownLatch writing = new CountDownLatch(1);
      Thread upserts = new Thread(() -> {
        try {
          while (!stop.get()) {
            int batch = batches.getAndIncrement();
            writer.upsert(batch, 40, batch * 100, 30);
            writing.countDown();
          }
        } catch (Throwable e) {
          writerFailure.set(e);
          writing.countDown();
        }
      }, "live-writer");
      if (concurrentWriter) {
        upserts.start();
        assertThat(writing.await(2, TimeUnit.MINUTES)).isTrue();
      }

      // One index per plan: the daemon plans the next one once the previous is built, as its polls would. A build
      // may fail (see below) and is then rolled back; the next round plans it anew.
      int batchesAtSchedule = batches.get();
      for (int round = 0; round < 6 && !MetadataIndexState.read(metaClient(table)).missing(table.indexes()).isEmpty();
           round++) {
        DuePlanner.Outcome outcome = planner.planAndEnqueue(table, metaClient(table));
        assertThat(outcome.scheduledInstants()).hasSize(1);
        assertThat(pool.awaitIdle(Duration.ofMinutes(5))).isTrue();
      }
      assertThat(planner.planAndEnqueue(table, metaClient(table)).scheduledInstants()).isEmpty();
      int batchesAtCompletion = batches.get();
      // The writer keeps going after the build: its commits must now update the new index partitions.
      if (concurrentWriter) {
        while (batches.get() < batchesAtCompletion + 3 && writerFailure.get() == null) {
          Thread.sleep(100);
        }
        stop.set(true);
        upserts.join(TimeUnit.MINUTES.toMillis(2));
        assertThat(writerFailure.get()).as(() -> stackTrace(writerFailure.get())).isNull();
        System.out.println("Writer commits retried: " + writer.failedCommits());
        assertThat(batchesAtCompletion).as("the writer committed while the index was built")
            .isGreaterThan(batchesAtSchedule);
      } else {
        writer.upsert(batches.getAndIncrement(), 40, 5000, 30);
      }

      // Hudi 1.2.0's catch-up waits for every writer commit that was inflight with a live heartbeat when it started,
      // even one that has failed since (a writer commit in the window described in docs/indexes.md): the
      // build then times out (hoodie.metadata.index.check.timeout.seconds) and is rolled back. Either way each build
      // ends succeeded or failed-and-rolled-back, and two succeed.
      System.out.println("Index runs: " + finished.stream().map(run -> run.item().instant().orElseThrow() + "="
          + run.status() + run.error().map(error -> " (" + error + ")").orElse("")).toList());
      assertThat(finished).allSatisfy(run -> assertThat(run.item().service()).isEqualTo(ServiceType.INDEX));
      assertThat(finished).filteredOn(run -> run.status() == RunStatus.SUCCEEDED).hasSize(2);
      assertThat(finished).allSatisfy(run -> assertThat(run.status()).isIn(RunStatus.SUCCEEDED, RunStatus.FAILED));
      List<String> indexInstants = finished.stream().filter(run -> run.status() == RunStatus.SUCCEEDED)
          .map(run -> run.item().instant().orElseThrow()).toList();
      HoodieTableMetaClient after = metaClient(table);
      assertThat(after.getTableConfig().getMetadataPartitions())
          .contains("files", "record_index", "column_stats");
      assertThat(after.getTableConfig().getMetadataPartitionsInflight()).isEmpty();
      assertThat(MetadataIndexState.read(after).pendingPlans()).isEmpty();
      assertThat(after.getActiveTimeline().filterCompletedIndexTimeline().getInstants())
          .extracting(instant -> instant.requestedTime()).containsAll(indexInstants);

      Map<String, Located> rows = readLatestBaseFiles(after);
      Map<String, LiveWriter.Row> actual = new TreeMap<>();
      rows.forEach((key, located) -> actual.put(key, located.row()));
      assertThat(actual.size()).isEqualTo(writer.expected().size());
      assertThat(actual.equals(writer.expected())).as("rows read back equal the rows written").isTrue();

      assertRecordIndexPointsAtTheRows(table, rows);
      assertColumnStatsMatchTheFiles(table, after);
    }
  }

  /**
   * A writer commit between the plan and the build's start has no record_index part in its metadata-table commit
   * (the writer did not know of the index) but is in the build's initial snapshot: the completeness check after the
   * build must not take it for a commit the build missed.
   */
  @Test
  void aCommitBetweenPlanAndBuildIsInTheBuildAndNotTakenForAMissedOne() throws Exception {
    Path path = directory.resolve("orders");
    ServicedTable table = tableWithRecordIndexWanted(path);
    try (LiveWriter writer = new LiveWriter(table.basePath(), "orders", WRITER_INDEX_KEYS)) {
      writer.upsert(0, 0, 0, 200);
      String instant;
      try (var client = hudiTables.writeClient(table)) {
        instant = client.scheduleIndexing(List.of(MetadataPartitionType.RECORD_INDEX), List.of()).get();
      }
      try (LiveWriter unaware = new LiveWriter(table.basePath(), "orders", Map.of())) {
        unaware.upsert(1, 0, 200, 30);
      }

      assertThat(pool.submit(WorkItem.forPlan(table, pendingIndexPlan(table), Placement.inProcess(HeapEstimate.NONE)))).isPresent();
      assertThat(pool.awaitIdle(Duration.ofMinutes(5))).isTrue();

      assertThat(finished).singleElement().satisfies(run -> {
        assertThat(run.item().instant()).contains(instant);
        assertThat(run.status()).as(() -> run.error().orElse("")).isEqualTo(RunStatus.SUCCEEDED);
      });
      Map<String, Located> rows = readLatestBaseFiles(metaClient(table));
      assertThat(rows).hasSize(230);
      assertRecordIndexPointsAtTheRows(table, rows);
    }
  }

  @Test
  void anAbandonedBuildIsRolledBackThenBuiltAnew() throws Exception {
    Path path = directory.resolve("orders");
    ServicedTable table = tableWithRecordIndexWanted(path);
    try (LiveWriter writer = new LiveWriter(table.basePath(), "orders", WRITER_INDEX_KEYS)) {
      writer.upsert(0, 0, 0, 200);
      String instant = abandonedBuild(table, path, true);

      // The daemon restarted: it finds the inflight build, whose heartbeat expired, and rolls it back.
      PendingPlan plan = pendingIndexPlan(table);
      assertThat(plan.instant()).isEqualTo(instant);
      assertThat(plan.inflight()).isTrue();
      assertThatThrownBy(() -> PlanRunner.withDefaultActions(hudiTables).apply(WorkItem.forPlan(table, plan, Placement.inProcess(HeapEstimate.NONE))))
          .isInstanceOf(PlanSkippedException.class)
          .hasMessage("index build " + instant + " was abandoned (heartbeat expired); rolled back partitions "
              + "[record_index], the next poll plans it anew");

      MetadataIndexState rolledBack = MetadataIndexState.read(metaClient(table));
      assertThat(rolledBack.pendingPlans()).isEmpty();
      assertThat(rolledBack.inflight()).isEmpty();
      assertThat(rolledBack.completed()).containsExactly("files");
      assertThat(path.resolve(".hoodie/metadata/record_index")).doesNotExist();
      assertThat(path.resolve(".hoodie/.heartbeat/" + instant)).doesNotExist();

      // The next poll plans the index anew, and it is built.
      assertThat(planner.planAndEnqueue(table, metaClient(table)).scheduledInstants()).hasSize(1);
      assertThat(pool.awaitIdle(Duration.ofMinutes(5))).isTrue();
      assertThat(metaClient(table).getTableConfig().getMetadataPartitions()).contains("record_index");
      assertRecordIndexPointsAtTheRows(table, readLatestBaseFiles(metaClient(table)));
    }
  }

  @Test
  void anInflightBuildWithoutHeartbeatBelongsToAnotherProcessAndIsLeftAlone() throws Exception {
    Path path = directory.resolve("orders");
    ServicedTable table = tableWithRecordIndexWanted(path);
    try (LiveWriter writer = new LiveWriter(table.basePath(), "orders", WRITER_INDEX_KEYS)) {
      writer.upsert(0, 0, 0, 50);
      String instant = abandonedBuild(table, path, false);

      PendingPlan plan = pendingIndexPlan(table);
      assertThatThrownBy(() -> PlanRunner.withDefaultActions(hudiTables).apply(WorkItem.forPlan(table, plan, Placement.inProcess(HeapEstimate.NONE))))
          .isInstanceOf(PlanSkippedException.class)
          .hasMessage("index build " + instant + " is inflight without a heartbeat: another process (Hudi's "
              + "HoodieIndexer) runs it; hudi-tsd leaves it to that process");
      MetadataIndexState state = MetadataIndexState.read(metaClient(table));
      assertThat(state.pendingPlans()).containsOnlyKeys(instant);
      assertThat(state.inflight()).containsExactly("record_index");
      // Nor is a second build planned while that one is pending.
      assertThat(planner.planAndEnqueue(table, metaClient(table)).scheduledInstants()).isEmpty();
    }
  }

  private ServicedTable tableWithRecordIndexWanted(Path path) throws IOException {
    ServicedTable created = new LocalTables(hudiTables).create(path, HoodieTableType.COPY_ON_WRITE, 9, Map.of());
    return new ServicedTable(created.id(), created.basePath(), Set.of(ServiceType.INDEX), created.pollInterval(),
        Map.of(), MetadataIndexes.of(Map.of("record_index", IndexOptions.none())));
  }

  /**
   * What a build leaves when its process dies midway: the plan inflight, the partition marked inflight with part of
   * its files written, and (for a daemon's build) a heartbeat that stopped an hour ago.
   */
  private String abandonedBuild(ServicedTable table, Path path, boolean withHeartbeat) throws IOException {
    String instant;
    try (var client = hudiTables.writeClient(table)) {
      instant = client.scheduleIndexing(List.of(MetadataPartitionType.RECORD_INDEX), List.of()).get();
    }
    HoodieTableMetaClient metaClient = metaClient(table);
    metaClient.getActiveTimeline().transitionIndexRequestedToInflight(
        metaClient.getInstantGenerator().getIndexRequestedInstant(instant));
    metaClient.getTableConfig().setMetadataPartitionsInflight(metaClient, List.of("record_index"));
    Path partial = Files.createDirectories(path.resolve(".hoodie/metadata/record_index"));
    Files.writeString(partial.resolve(".record-index-0000-0_" + instant + ".log.1_0-0-0"), "partial");
    if (withHeartbeat) {
      Path heartbeat = path.resolve(".hoodie/.heartbeat/" + instant);
      Files.createDirectories(heartbeat.getParent());
      Files.writeString(heartbeat, "");
      assertThat(heartbeat.toFile().setLastModified(System.currentTimeMillis() - 3_600_000)).isTrue();
    }
    return instant;
  }

  private PendingPlan pendingIndexPlan(ServicedTable table) {
    return PendingPlans.list(metaClient(table)).stream()
        .filter(plan -> plan.service() == ServiceType.INDEX).findFirst().orElseThrow();
  }

  private void assertRecordIndexPointsAtTheRows(ServicedTable table, Map<String, Located> rows) throws Exception {
    try (HoodieBackedTableMetadata metadata = metadataReader(table)) {
      List<Pair<String, HoodieRecordGlobalLocation>> found = metadata
          .readRecordIndexLocationsWithKeys(HoodieListData.eager(new ArrayList<>(rows.keySet()))).collectAsList();
      Map<String, String> indexed = new TreeMap<>();
      for (Pair<String, HoodieRecordGlobalLocation> entry : found) {
        indexed.put(entry.getKey(), entry.getValue().getPartitionPath() + "/" + entry.getValue().getFileId());
      }
      Map<String, String> wrong = new TreeMap<>();
      rows.forEach((key, located) -> {
        if (!located.fileGroup().equals(indexed.get(key))) {
          wrong.put(key, "at " + located.fileGroup() + ", indexed at " + indexed.get(key));
        }
      });
      // Only a summary on failure: the full maps are too large to read.
      assertThat(wrong.size()).as("records not found at their file group through the record index, of %d: first "
          + "ones %s", rows.size(), wrong.entrySet().stream().limit(5).toList()).isZero();
      assertThat(indexed.keySet()).isEqualTo(rows.keySet());
    }
  }

  private void assertColumnStatsMatchTheFiles(ServicedTable table, HoodieTableMetaClient metaClient) throws Exception {
    Map<Pair<String, String>, Map<String, List<Object>>> fromFiles = new HashMap<>();
    for (HoodieBaseFile file : latestBaseFiles(metaClient)) {
      String partition = partitionOf(metaClient, file);
      Map<String, List<Object>> stats = new TreeMap<>();
      for (String column : STATS_COLUMNS) {
        long min = Long.MAX_VALUE;
        long max = Long.MIN_VALUE;
        for (GenericRecord row : readFile(file)) {
          long value = (Long) row.get(column);
          min = Math.min(min, value);
          max = Math.max(max, value);
        }
        stats.put(column, List.of(min, max, 0L));
      }
      fromFiles.put(Pair.of(partition, file.getFileName()), stats);
    }
    try (HoodieBackedTableMetadata metadata = metadataReader(table)) {
      Map<Pair<String, String>, List<HoodieMetadataColumnStats>> indexed =
          metadata.getColumnStats(new ArrayList<>(fromFiles.keySet()), STATS_COLUMNS);
      Map<Pair<String, String>, Map<String, List<Object>>> fromIndex = new HashMap<>();
      indexed.forEach((file, statsList) -> {
        Map<String, List<Object>> stats = new TreeMap<>();
        for (HoodieMetadataColumnStats stat : statsList) {
          stats.put(stat.getColumnName(), List.of(unwrap(stat.getMinValue()), unwrap(stat.getMaxValue()),
              stat.getNullCount()));
        }
        fromIndex.put(file, stats);
      });
      assertThat(fromIndex.keySet()).isEqualTo(fromFiles.keySet());
      fromFiles.forEach((file, stats) -> assertThat(fromIndex.get(file)).as("column stats of %s", file)
          .isEqualTo(stats));
    }
  }

  /** Column stats keep values in wrapper records ({@code LongWrapper{value}}). */
  private static Object unwrap(Object wrapped) {
    return wrapped instanceof IndexedRecord record ? record.get(0) : wrapped;
  }

  private record Located(LiveWriter.Row row, String fileGroup) {
  }

  private Map<String, Located> readLatestBaseFiles(HoodieTableMetaClient metaClient) throws IOException {
    Map<String, Located> rows = new TreeMap<>();
    for (HoodieBaseFile file : latestBaseFiles(metaClient)) {
      String fileGroup = partitionOf(metaClient, file) + "/" + file.getFileId();
      for (GenericRecord row : readFile(file)) {
        String key = row.get("id").toString();
        Located previous = rows.put(key, new Located(new LiveWriter.Row(row.get("region").toString(),
            (Long) row.get("ts"), (Long) row.get("amount")), fileGroup));
        assertThat(previous).as("record %s in two file groups", key).isNull();
      }
    }
    return rows;
  }

  private static List<HoodieBaseFile> latestBaseFiles(HoodieTableMetaClient metaClient) {
    HoodieLocalEngineContext context = new HoodieLocalEngineContext(metaClient.getStorageConf());
    HoodieMetadataConfig storageListing = HoodieMetadataConfig.newBuilder().enable(false).build();
    HoodieTableFileSystemView view = FileSystemViewManager.createInMemoryFileSystemView(context, metaClient,
        storageListing);
    try {
      List<HoodieBaseFile> files = new ArrayList<>();
      for (String partition : FSUtils.getAllPartitionPaths(context, metaClient, storageListing)) {
        view.getLatestBaseFiles(partition).forEach(files::add);
      }
      return files;
    } finally {
      view.close();
    }
  }

  private static String partitionOf(HoodieTableMetaClient metaClient, HoodieBaseFile file) {
    return FSUtils.getRelativePartitionPath(metaClient.getBasePath(), file.getStoragePath().getParent());
  }

  private static List<GenericRecord> readFile(HoodieBaseFile file) throws IOException {
    List<GenericRecord> rows = new ArrayList<>();
    org.apache.hadoop.fs.Path path = new org.apache.hadoop.fs.Path(file.getPath());
    try (ParquetReader<GenericRecord> reader = AvroParquetReader.<GenericRecord>builder(
        HadoopInputFile.fromPath(path, new Configuration())).build()) {
      for (GenericRecord row = reader.read(); row != null; row = reader.read()) {
        rows.add(row);
      }
    }
    return rows;
  }

  private HoodieBackedTableMetadata metadataReader(ServicedTable table) {
    HoodieTableMetaClient metaClient = metaClient(table);
    return new HoodieBackedTableMetadata(new HoodieLocalEngineContext(metaClient.getStorageConf()),
        metaClient.getStorage(), HoodieMetadataConfig.newBuilder().enable(true).build(), table.basePath());
  }

  private static String stackTrace(Throwable e) {
    java.io.StringWriter out = new java.io.StringWriter();
    e.printStackTrace(new java.io.PrintWriter(out));
    return out.toString();
  }

  private HoodieTableMetaClient metaClient(ServicedTable table) {
    return hudiTables.metaClient(table.basePath());
  }
}
