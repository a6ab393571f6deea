package io.huditsd.executors;

import io.huditsd.config.MetadataIndexes;
import io.huditsd.config.ServiceType;
import io.huditsd.config.ServicedTable;
import io.huditsd.config.TableIds;
import io.huditsd.config.TablePaths;
import io.huditsd.executors.clustering.JavaBinaryCopyClusteringExecutionStrategy;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.apache.hudi.avro.model.HoodieClusteringGroup;
import org.apache.hudi.avro.model.HoodieClusteringPlan;
import org.apache.hudi.avro.model.HoodieClusteringStrategy;
import org.apache.hudi.avro.model.HoodieCompactionOperation;
import org.apache.hudi.avro.model.HoodieCompactionPlan;
import org.apache.hudi.avro.model.HoodieSliceInfo;
import org.apache.hudi.client.HoodieJavaWriteClient;
import org.apache.hudi.client.WriteStatus;
import org.apache.hudi.common.config.RecordMergeMode;
import org.apache.hudi.common.model.DefaultHoodieRecordPayload;
import org.apache.hudi.common.model.HoodieAvroPayload;
import org.apache.hudi.common.model.HoodieAvroRecord;
import org.apache.hudi.common.model.HoodieKey;
import org.apache.hudi.common.model.HoodieRecord;
import org.apache.hudi.common.model.HoodieTableType;
import org.apache.hudi.common.table.HoodieTableMetaClient;
import org.apache.hudi.common.util.Option;
import org.apache.hudi.table.action.compact.strategy.CompactionStrategy;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

import static org.assertj.core.api.Assertions.assertThat;

/** The heap estimates of plans, and the measurement behind the rewrite's decode factor. */
class TestHeapEstimator {
  private static final Logger LOG = LoggerFactory.getLogger(TestHeapEstimator.class);
  private static final long MIB = 1L << 20;
  /** The binary-copy benchmark's events (bench/BinaryCopyTable.java): 12 columns, gzip, random ids. */
  private static final Schema EVENTS = new Schema.Parser().parse("""
      {"type": "record", "name": "event", "namespace": "io.huditsd.bench", "fields": [
        {"name": "event_id", "type": "string"}, {"name": "event_date", "type": "string"},
        {"name": "event_time", "type": "long"}, {"name": "ingest_ts", "type": "long"},
        {"name": "user_id", "type": "long"}, {"name": "session_id", "type": "string"},
        {"name": "event_type", "type": "string"}, {"name": "page_url", "type": "string"},
        {"name": "country", "type": "string"}, {"name": "device", "type": "string"},
        {"name": "duration_ms", "type": "int"}, {"name": "revenue", "type": "double"}]}""");
  private static final String[] EVENT_TYPES = {"view", "view", "view", "click", "click", "scroll", "add_to_cart",
      "purchase", "login", "search"};
  private static final String[] PAGES = {"/", "/search", "/cart", "/checkout", "/account", "/help", "/p/", "/c/"};
  private static final String[] COUNTRIES = {"US", "DE", "FR", "GB", "IN", "BR", "JP", "CA", "ES", "IT"};
  private static final String[] DEVICES = {"ios", "android", "web-desktop", "web-mobile", "tv"};

  private final LocalTables localTables = new LocalTables();

  @TempDir
  Path directory;

  /**
   * Clusters one group of known bytes with Hudi's Java rewrite in this JVM while a sampler forces full collections
   * and reads the heap still live: what the run held above the heap before it. Two tables, a large group first (so
   * that one-time caches count against it) and a small one, separate the part that grows with the group's bytes
   * (the decode factor) from the run's fixed part (write client, timeline, metadata writer). The estimate of each
   * pending plan must not be below what its run held. The figures of a run are in the log lines "Rewrite of ...";
   * {@link HeapEstimator#DECODE_FACTOR} and {@link HeapEstimator#REWRITE_FIXED_BYTES} document those measured here.
   * Measured 2026-12-01 (Java 17, G1, -Xmx2g, 2 cores): 8 files of 15,000 rows, 9.8 MiB: 109-111 MiB held (11.2-11.6
   * per byte, the first rewrite in the JVM); 4 files of 1,500 rows, 2.0 MiB: 13.0 MiB (6.5 per byte); the slope
   * between them 12.6 per byte, with no fixed part to speak of.
   */
  @Test
  void theRewriteEstimateIsNotBelowTheHeapAGroupHeld() throws Exception {
    Measured large = clusterOneGroup("large", 8, 15_000);
    // Four commits: Hudi schedules clustering only after hoodie.clustering.inline.max.commits (4) commits.
    Measured small = clusterOneGroup("small", 4, 1_500);
    double slope = (double) (large.held() - small.held()) / (large.groupBytes() - small.groupBytes());
    LOG.info("Rewrite heap per byte of Parquet {} (between {} and {} groups); fixed part {}",
        String.format("%.2f", slope), ByteSize.format(small.groupBytes()), ByteSize.format(large.groupBytes()),
        ByteSize.format(small.held() - (long) (slope * small.groupBytes())));

    for (Measured run : List.of(large, small)) {
      assertThat(run.estimate().basis()).isEqualTo("1 group, largest " + ByteSize.format(run.groupBytes()) + " x "
          + String.format("%.1f", HeapEstimator.DECODE_FACTOR) + " decode factor + "
          + ByteSize.format(HeapEstimator.REWRITE_FIXED_BYTES) + " per run");
      assertThat(run.estimate().bytes()).as("estimate against the heap held by " + run)
          .isGreaterThanOrEqualTo(run.held());
    }
    // The large group's ratio includes what the first rewrite in a JVM caches: the factor covers it alone.
    assertThat(HeapEstimator.DECODE_FACTOR).as("the measured factor")
        .isGreaterThanOrEqualTo((double) large.held() / large.groupBytes());
  }

  private record Measured(long groupBytes, long held, HeapEstimate estimate) {
  }

  private Measured clusterOneGroup(String name, int commits, int rowsPerCommit) throws Exception {
    ServicedTable table = eventsTable(directory.resolve(name));
    for (int commit = 0; commit < commits; commit++) {
      insertEvents(table, commit, rowsPerCommit);
    }
    Map<String, String> oneGroup = Map.of(
        "hoodie.clustering.plan.strategy.max.bytes.per.group", Long.toString(1L << 30),
        "hoodie.clustering.plan.strategy.target.file.max.bytes", Long.toString(1L << 30),
        "hoodie.clustering.plan.strategy.small.file.limit", Long.toString(1L << 30),
        "hoodie.clustering.plan.strategy.hot.commits", "0", "hoodie.clustering.plan.strategy.hot.minutes", "0",
        // Sorted: Hudi's own strategy (the plain client here executes with it) holds the group's records, and so
        // does the daemon's streaming strategy for a sorted plan, which it hands to Hudi's.
        HeapEstimator.SORT_COLUMNS_KEY, "event_id");
    try (HoodieJavaWriteClient<HoodieAvroPayload> client = localTables.hudiTables().writeClient(table, oneGroup)) {
      String instant = client.scheduleClustering(Option.empty()).get();
      HoodieTableMetaClient metaClient = localTables.hudiTables().metaClient(table.basePath());
      PendingPlan plan = PendingPlans.find(metaClient, instant).orElseThrow();
      long groupBytes = PlanSizes.of(metaClient, plan).bytesIn();
      HeapEstimate estimate = new HeapEstimator().estimate(metaClient, table, plan);

      LiveHeapSampler sampler = new LiveHeapSampler();
      long before = sampler.liveNow();
      sampler.start();
      long start = System.nanoTime();
      try {
        client.cluster(instant, true);
      } finally {
        sampler.stop();
      }
      long held = sampler.peak() - before;
      LOG.info("Rewrite of one group of {} ({} bytes, {} files) in {} ms: held {} ({} bytes) live above the heap"
              + " before it, {} samples; {} per byte; estimate {} ({})", ByteSize.format(groupBytes), groupBytes,
          commits, (System.nanoTime() - start) / 1_000_000, ByteSize.format(held), held, sampler.samples(),
          String.format("%.2f", (double) held / groupBytes), ByteSize.format(estimate.bytes()), estimate.basis());
      assertThat(sampler.samples()).as("samples taken while the group ran").isGreaterThan(3);
      return new Measured(groupBytes, held, estimate);
    }
  }

  /**
   * A compaction of known log and base bytes, executed as the daemon executes it, holds no more than its estimate.
   * Measured 2026-12-01 (Java 17, G1, -Xmx2g): 2 file groups, 9.1 MiB of logs, 136 MiB held; see the log line
   * "Compaction of ..." for the figures of a run.
   */
  @Test
  void theCompactionEstimateIsNotBelowTheHeapItHeld() throws Exception {
    ServicedTable table = localTables.create(directory.resolve("orders"), HoodieTableType.MERGE_ON_READ, 9,
        Map.of("hoodie.compact.inline.max.delta.commits", "1"));
    localTables.upsert(table, 0, 40_000, 1);
    localTables.upsert(table, 0, 40_000, 2);
    localTables.upsert(table, 0, 40_000, 3);
    try (HoodieJavaWriteClient<HoodieAvroPayload> client = localTables.hudiTables().writeClient(table)) {
      client.scheduleCompaction(Option.empty()).get();
    }
    HoodieTableMetaClient metaClient = localTables.hudiTables().metaClient(table.basePath());
    PendingPlan plan = PendingPlans.list(metaClient).get(0);
    HeapEstimate estimate = new HeapEstimator().estimate(metaClient, table, plan);
    PlanRunner runner = PlanRunner.withDefaultActions(localTables.hudiTables());

    LiveHeapSampler sampler = new LiveHeapSampler();
    long before = sampler.liveNow();
    sampler.start();
    try {
      runner.apply(WorkItem.forPlan(table, plan, Placement.inProcess(estimate)));
    } finally {
      sampler.stop();
    }
    long held = sampler.peak() - before;
    LOG.info("Compaction of {} file groups, {} of logs: held {} ({} bytes) live above the heap before it, {} samples;"
            + " estimate {} ({})", plan.fileGroupIds().size(), ByteSize.format(plan.inputBytes()),
        ByteSize.format(held), held, sampler.samples(), ByteSize.format(estimate.bytes()), estimate.basis());

    assertThat(sampler.samples()).isGreaterThan(3);
    assertThat(estimate.bytes()).as("estimate against the heap held").isGreaterThanOrEqualTo(held);
  }

  @Test
  void compactionSumsTheLargestOperationsThatRunAtOnceEachCappedByTheSpillableMap() throws IOException {
    ServicedTable table = localTables.create(directory.resolve("mor"), HoodieTableType.MERGE_ON_READ, 9, Map.of());
    HoodieTableMetaClient metaClient = localTables.hudiTables().metaClient(table.basePath());
    HoodieCompactionPlan plan = HoodieCompactionPlan.newBuilder()
        .setOperations(List.of(operation("f1", 10 * MIB), operation("f2", 300 * MIB), operation("f3", MIB)))
        .build();
    Map<String, String> keys = Map.of("hoodie.memory.compaction.max.size", Long.toString(100 * MIB));

    HeapEstimate estimate = new HeapEstimator(2).compaction(metaClient, keys, plan);

    // f2: min(300 MiB x 16, 100 MiB) + 2 x min(300 MiB, 120 MiB); f1: min(160 MiB, 100 MiB) + 2 x 10 MiB; f3 does
    // not run beside them.
    assertThat(estimate.bytes()).isEqualTo((100 + 240) * MIB + (100 + 20) * MIB);
    assertThat(estimate.basis()).isEqualTo("3 operations, up to 2 at once; largest 300.0 MiB logs x 16.0 decode"
        + " factor (spillable map cap 100.0 MiB) + 2 row groups of 120.0 MiB");
    // Without the key Hudi's Java engine caps each map at 1 GiB (its task context reports no memory).
    assertThat(new HeapEstimator(1).compaction(metaClient, Map.of(), plan).bytes())
        .isEqualTo((1024 + 240) * MIB);
  }

  @Test
  void aBinaryCopyHoldsItsLargestSourceFileAndAGroupWithLogsCountsAsItsRewrite() throws IOException {
    ServicedTable table = localTables.create(directory.resolve("cow"), HoodieTableType.COPY_ON_WRITE, 9, Map.of());
    HoodieTableMetaClient metaClient = localTables.hudiTables().metaClient(table.basePath());
    Path partition = Files.createDirectories(directory.resolve("cow").resolve("eu"));
    Files.write(partition.resolve("a.parquet"), new byte[3 * 1024 * 1024]);
    Files.write(partition.resolve("b.parquet"), new byte[1024 * 1024]);
    Files.write(partition.resolve("c.parquet"), new byte[512 * 1024]);
    Files.write(partition.resolve(".c.log.1_0-1-1"), new byte[512 * 1024]);
    HoodieClusteringGroup copied = group(slice("a.parquet", List.of()), slice("b.parquet", List.of()));
    HoodieClusteringGroup rewritten = group(slice("c.parquet", List.of(".c.log.1_0-1-1")));
    HoodieClusteringPlan copyOnly = clusteringPlan(JavaBinaryCopyClusteringExecutionStrategy.class.getName(),
        List.of(copied));
    HoodieClusteringPlan mixed = clusteringPlan(JavaBinaryCopyClusteringExecutionStrategy.class.getName(),
        List.of(copied, rewritten));
    HoodieClusteringPlan rewrite = clusteringPlan(ClusteringStrategyMatch.JAVA_SORT_AND_SIZE,
        List.of(copied, rewritten), Map.of(HeapEstimator.SORT_COLUMNS_KEY, "event_id"));
    HoodieClusteringPlan streamed = clusteringPlan(ClusteringStrategyMatch.JAVA_SORT_AND_SIZE,
        List.of(copied, rewritten));
    HeapEstimator estimator = new HeapEstimator();

    assertThat(estimator.clustering(metaClient, Map.of(), copyOnly))
        .isEqualTo(new HeapEstimate(3 * MIB, "binary copy of 1 group, largest source file 3.0 MiB"));
    // The group with a log goes to the streaming rewrite: its slice's 0.5 MiB of logs x 16, two row groups (here
    // the group's 1 MiB), 16 MiB.
    assertThat(estimator.clustering(metaClient, Map.of(), mixed)).isEqualTo(new HeapEstimate(
        8 * MIB + 2 * MIB + 16 * MIB, "binary copy of 1 group, largest source file 3.0 MiB; rewritten (log files,"
            + " sort columns, ...): streamed rewrite of 1 group, largest 1.0 MiB: one slice's logs x 16.0 decode"
            + " factor + 2 row groups + 16.0 MiB per run"));
    // Sorted, no group is copied and every one is held in a list by Hudi's sorted rewrite.
    HoodieClusteringPlan sortedCopy = clusteringPlan(JavaBinaryCopyClusteringExecutionStrategy.class.getName(),
        List.of(copied, rewritten), Map.of(HeapEstimator.SORT_COLUMNS_KEY, "event_id"));
    assertThat(estimator.clustering(metaClient, Map.of(), sortedCopy).bytes())
        .isEqualTo(HeapEstimator.rewriteBytes(4 * MIB));
    // What tsd.engine.spark.min.bytes weighs: the bytes rewritten, not those a copy copies.
    assertThat(estimator.clusteringBytesRewritten(metaClient, Map.of(), copyOnly)).isZero();
    assertThat(estimator.clusteringBytesRewritten(metaClient, Map.of(), mixed)).isEqualTo(MIB);
    assertThat(estimator.clusteringBytesRewritten(metaClient, Map.of(), sortedCopy)).isEqualTo(5 * MIB);
    assertThat(estimator.clusteringBytesRewritten(metaClient, Map.of(), streamed)).isEqualTo(5 * MIB);
    assertThat(estimator.clustering(metaClient, Map.of(), rewrite)).isEqualTo(new HeapEstimate(
        HeapEstimator.rewriteBytes(4 * MIB), "2 groups, largest 4.0 MiB x " + factor()
            + " decode factor + 16.0 MiB per run"));
    // Unsorted, the daemon's streaming rewrite executes it: per group the largest slice's logs x 16, two row
    // groups (here the group's bytes), 16 MiB. The group with a log: 0.5 MiB x 16 + 2 x 1 MiB; without: 2 x 4 MiB.
    assertThat(estimator.clustering(metaClient, Map.of(), streamed)).isEqualTo(new HeapEstimate(
        10 * MIB + 16 * MIB, "streamed rewrite of 2 groups, largest 1.0 MiB: one slice's logs x 16.0 decode factor"
            + " + 2 row groups + 16.0 MiB per run"));
    // A table whose bulk inserts sort sends the plan to Hudi's list-holding strategy.
    assertThat(estimator.clustering(metaClient, Map.of(HeapEstimator.BULK_INSERT_SORT_MODE_KEY, "GLOBAL_SORT"),
        streamed).bytes()).isEqualTo(HeapEstimator.rewriteBytes(4 * MIB));
  }

  @Test
  void cleanAndIndexHaveFixedAllowances() throws IOException {
    ServicedTable table = localTables.create(directory.resolve("t"), HoodieTableType.COPY_ON_WRITE, 9, Map.of());
    HoodieTableMetaClient metaClient = localTables.hudiTables().metaClient(table.basePath());
    HeapEstimator estimator = new HeapEstimator();

    assertThat(estimator.estimate(metaClient, table, new PendingPlan(ServiceType.CLEAN, "001", false, Set.of(), 0)))
        .isEqualTo(new HeapEstimate(32 * MIB, "clean: a fixed 32.0 MiB allowance"));
    assertThat(estimator.estimate(metaClient, table, new PendingPlan(ServiceType.INDEX, "001", false, Set.of(), 0)))
        .isEqualTo(new HeapEstimate(256 * MIB, "index build: a fixed 256.0 MiB allowance"));
  }

  private static String factor() {
    return String.format("%.1f", HeapEstimator.DECODE_FACTOR);
  }

  private static HoodieCompactionOperation operation(String fileId, long logBytes) {
    Map<String, Double> metrics = new HashMap<>();
    metrics.put(CompactionStrategy.TOTAL_LOG_FILE_SIZE, (double) logBytes);
    return HoodieCompactionOperation.newBuilder().setBaseInstantTime("001").setFileId(fileId).setPartitionPath("eu")
        .setDeltaFilePaths(List.of()).setMetrics(metrics).build();
  }

  private static HoodieSliceInfo slice(String base, List<String> logs) {
    return HoodieSliceInfo.newBuilder().setPartitionPath("eu").setFileId(base.substring(0, 1))
        .setDataFilePath("eu/" + base).setDeltaFilePaths(logs).setBootstrapFilePath("").build();
  }

  private static HoodieClusteringGroup group(HoodieSliceInfo... slices) {
    return HoodieClusteringGroup.newBuilder().setSlices(List.of(slices)).setNumOutputFileGroups(1)
        .setMetrics(Map.of()).build();
  }

  private static HoodieClusteringPlan clusteringPlan(String strategy, List<HoodieClusteringGroup> groups) {
    return clusteringPlan(strategy, groups, Map.of());
  }

  private static HoodieClusteringPlan clusteringPlan(String strategy, List<HoodieClusteringGroup> groups,
                                                     Map<String, String> params) {
    return HoodieClusteringPlan.newBuilder().setInputGroups(groups)
        .setStrategy(HoodieClusteringStrategy.newBuilder().setStrategyClassName(strategy)
            .setStrategyParams(params).build())
        .setExtraMetadata(Map.of()).setPreserveHoodieMetadata(true).build();
  }

  private ServicedTable eventsTable(Path path) throws IOException {
    String basePath = TablePaths.normalize(path.toString());
    HoodieTableMetaClient.newTableBuilder()
        .setTableType(HoodieTableType.COPY_ON_WRITE)
        .setTableName("events")
        .setTableVersion(9)
        .setRecordKeyFields("event_id")
        .setPartitionFields("event_date")
        .setOrderingFields("ingest_ts")
        .setRecordMergeMode(RecordMergeMode.EVENT_TIME_ORDERING)
        .setPayloadClassName(DefaultHoodieRecordPayload.class.getName())
        .setKeyGeneratorClassProp("org.apache.hudi.keygen.SimpleKeyGenerator")
        .setTableCreateSchema(EVENTS.toString())
        .initTable(localTables.hudiTables().storageConfiguration().newInstance(), basePath);
    return new ServicedTable(TableIds.derive(basePath), basePath, Set.of(ServiceType.values()),
        Duration.ofSeconds(30), Map.of("hoodie.parquet.compression.codec", "gzip"), MetadataIndexes.none());
  }

  /** One commit of the benchmark's rows (a fixed seed per commit): one new base file. */
  @SuppressWarnings({"unchecked", "rawtypes"})
  private void insertEvents(ServicedTable table, int commit, int rows) {
    Random random = new Random(20261129L + commit);
    List<HoodieRecord<HoodieAvroPayload>> records = new ArrayList<>(rows);
    for (int i = 0; i < rows; i++) {
      long eventTime = 1_793_491_200_000_000L + commit * 400_000_000_000L + i * 20_000_000L
          + random.nextInt(1_000_000);
      long userId = 1_000_000L + (long) (Math.pow(random.nextDouble(), 2) * 5_000_000);
      String eventType = EVENT_TYPES[random.nextInt(EVENT_TYPES.length)];
      String page = PAGES[random.nextInt(PAGES.length)];
      GenericRecord row = new GenericData.Record(EVENTS);
      row.put("event_id", Long.toString(eventTime, 36) + "-"
          + String.format("%014x", random.nextLong() & 0xFF_FFFF_FFFF_FFFFL));
      row.put("event_date", "2026-11-01");
      row.put("event_time", eventTime);
      row.put("ingest_ts", eventTime / 1000 + 2_000 + random.nextInt(60_000));
      row.put("user_id", userId);
      row.put("session_id", Long.toHexString(userId * 31 + eventTime / 1_800_000_000L));
      row.put("event_type", eventType);
      row.put("page_url", page.endsWith("/") && page.length() > 1 ? page + random.nextInt(50_000) : page);
      row.put("country", COUNTRIES[Math.min(random.nextInt(COUNTRIES.length), random.nextInt(COUNTRIES.length))]);
      row.put("device", DEVICES[random.nextInt(DEVICES.length)]);
      row.put("duration_ms", (int) Math.min(600_000, Math.abs(random.nextGaussian()) * 20_000));
      row.put("revenue", eventType.equals("purchase") ? Math.round(random.nextDouble() * 20_000) / 100.0 : 0.0);
      records.add((HoodieRecord) new HoodieAvroRecord<>(new HoodieKey((String) row.get("event_id"), "2026-11-01"),
          new DefaultHoodieRecordPayload(row, (Long) row.get("ingest_ts"))));
    }
    ServicedTable writer = table.withHoodieKeysOverridden(Map.of("hoodie.clustering.inline", "false",
        "hoodie.parquet.small.file.limit", "0", "hoodie.insert.shuffle.parallelism", "1"));
    try (HoodieJavaWriteClient<HoodieAvroPayload> client = localTables.hudiTables().writeClient(writer)) {
      String instant = client.startCommit();
      List<WriteStatus> statuses = client.insert(records, instant);
      assertThat(statuses).noneMatch(WriteStatus::hasErrors);
      client.commit(instant, statuses);
    }
  }

  /**
   * Forces full collections one after another on a thread of its own and keeps the largest heap still in use
   * after one: the live set at each sample, garbage excluded.
   */
  private static final class LiveHeapSampler {
    private final MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
    private final AtomicBoolean running = new AtomicBoolean();
    private final AtomicLong peak = new AtomicLong();
    private final AtomicLong samples = new AtomicLong();
    private Thread thread;

    long liveNow() {
      System.gc();
      System.gc();
      return memory.getHeapMemoryUsage().getUsed();
    }

    void start() {
      running.set(true);
      thread = new Thread(() -> {
        while (running.get()) {
          System.gc();
          peak.accumulateAndGet(memory.getHeapMemoryUsage().getUsed(), Math::max);
          samples.incrementAndGet();
          // The sampling cadence, not a wait for an event: back to back, the collections slow the run tenfold.
          LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
        }
      }, "live-heap-sampler");
      thread.setDaemon(true);
      thread.start();
    }

    void stop() throws InterruptedException {
      running.set(false);
      thread.join();
    }

    long peak() {
      return peak.get();
    }

    long samples() {
      return samples.get();
    }
  }
}
