package io.huditsd.executors.clustering;

import org.apache.hudi.avro.model.HoodieClusteringGroup;
import org.apache.hudi.avro.model.HoodieClusteringPlan;
import org.apache.hudi.client.WriteStatus;
import org.apache.hudi.client.clustering.run.strategy.JavaSortAndSizeExecutionStrategy;
import org.apache.hudi.client.common.JavaTaskContextSupplier;
import org.apache.hudi.common.config.HoodieStorageConfig;
import org.apache.hudi.common.data.HoodieData;
import org.apache.hudi.common.data.HoodieListData;
import org.apache.hudi.common.engine.EngineType;
import org.apache.hudi.common.engine.HoodieEngineContext;
import org.apache.hudi.common.engine.ReaderContextFactory;
import org.apache.hudi.common.model.ClusteringOperation;
import org.apache.hudi.common.model.HoodieKey;
import org.apache.hudi.common.model.HoodieRecord;
import org.apache.hudi.common.schema.HoodieSchema;
import org.apache.hudi.common.util.ReflectionUtils;
import org.apache.hudi.common.util.collection.ClosableIterator;
import org.apache.hudi.common.util.queue.ExecutorType;
import org.apache.hudi.config.HoodieClusteringConfig;
import org.apache.hudi.config.HoodieWriteConfig;
import org.apache.hudi.execution.JavaLazyInsertIterable;
import org.apache.hudi.execution.bulkinsert.BulkInsertSortMode;
import org.apache.hudi.io.CreateHandleFactory;
import org.apache.hudi.io.IOUtils;
import org.apache.hudi.table.FileIdPrefixProvider;
import org.apache.hudi.table.HoodieTable;
import org.apache.hudi.table.action.HoodieWriteMetadata;
import org.apache.hudi.table.action.cluster.strategy.ClusteringExecutionStrategy;
import org.apache.hudi.util.LazyConcatenatingIterator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * The daemon's default clustering rewrite: what Hudi's {@link JavaSortAndSizeExecutionStrategy} writes, without
 * holding a group's records in a list.
 *
 * <p>Hudi's Java strategy reads every record of a group into an {@code ArrayList} before bulk-inserting it, so heap
 * grows with the group (12-30x its Parquet bytes), and it decodes and encodes on one thread. Without sort columns the
 * list buys nothing: Hudi's bulk insert with sort mode {@code NONE} writes the records in the order it reads them. So
 * this strategy feeds the same file-group reader iterator ({@link ClusteringExecutionStrategy#getRecordIterator},
 * which merges MOR logs) straight into the same insert iterable and create handles Hudi's bulk insert uses, rolled
 * at {@code hoodie.clustering.plan.strategy.target.file.max.bytes}. Meta columns are preserved as the plan says, the
 * write statuses are Hudi's own, and Hudi's commit writes the replacecommit and the metadata-table update.
 *
 * <p>Reading runs on a producer thread of Hudi's {@code DISRUPTOR} executor (a ring of
 * {@code hoodie.write.executor.disruptor.buffer.limit.bytes} records, 1,024 by default), writing on a consumer
 * thread: two cores for one group, with heap bounded by the ring, one open file writer and the reader's current row
 * group.
 *
 * <p>A group with sort columns, or a table configured with a bulk-insert sort mode, needs all its records before
 * the first is written: those groups go to Hudi's {@link JavaSortAndSizeExecutionStrategy} (logged).
 */
public class JavaStreamingRewriteExecutionStrategy<T>
    extends ClusteringExecutionStrategy<T, HoodieData<HoodieRecord<T>>, HoodieData<HoodieKey>, HoodieData<WriteStatus>> {
  private static final Logger LOG = LoggerFactory.getLogger(JavaStreamingRewriteExecutionStrategy.class);
  private static final String WRITE_EXECUTOR_TYPE = "hoodie.write.executor.type";

  public JavaStreamingRewriteExecutionStrategy(HoodieTable table, HoodieEngineContext engineContext,
                                               HoodieWriteConfig writeConfig) {
    super(table, engineContext, writeConfig);
  }

  @Override
  public HoodieWriteMetadata<HoodieData<WriteStatus>> performClustering(HoodieClusteringPlan plan, HoodieSchema schema,
                                                                        String instantTime) {
    Map<String, String> params = plan.getStrategy() == null ? Map.of() : plan.getStrategy().getStrategyParams();
    String sortedBy = sortedBy(params);
    if (sortedBy != null) {
      // Sort columns are the plan's (strategy params), so every group of the plan is sorted.
      LOG.info("Clustering {} of {}: the plan sorts by {}; Hudi's JavaSortAndSizeExecutionStrategy rewrites its {}"
          + " groups, holding each group's records in memory", instantTime, getWriteConfig().getBasePath(), sortedBy,
          plan.getInputGroups().size());
      return new JavaSortAndSizeExecutionStrategy<T>(getHoodieTable(), getEngineContext(), getWriteConfig())
          .performClustering(plan, schema, instantTime);
    }
    // As Hudi's Java strategy reads it: a plan that does not say keeps no metadata.
    boolean preserveMetadata = Boolean.TRUE.equals(plan.getPreserveHoodieMetadata());
    HoodieWriteConfig streamConfig = streamingConfig(getWriteConfig());
    List<WriteStatus> statuses = new ArrayList<>();
    for (HoodieClusteringGroup group : plan.getInputGroups()) {
      statuses.addAll(rewrite(group, instantTime, preserveMetadata, streamConfig));
    }
    HoodieWriteMetadata<HoodieData<WriteStatus>> metadata = new HoodieWriteMetadata<>();
    metadata.setWriteStatuses(HoodieListData.eager(statuses));
    return metadata;
  }

  /** What the plan's groups are sorted by, for the log; null when records may be written in the order they are read. */
  private String sortedBy(Map<String, String> params) {
    String columns = params.get(HoodieClusteringConfig.PLAN_STRATEGY_SORT_COLUMNS.key());
    if (columns != null && !columns.isBlank()) {
      return "sort columns " + columns;
    }
    BulkInsertSortMode mode = getWriteConfig().getBulkInsertSortMode();
    return mode == BulkInsertSortMode.NONE ? null : "hoodie.bulkinsert.sort.mode " + mode;
  }

  /**
   * The write config Hudi's sort-and-size strategy writes a group with (its bulk insert rolls files at the
   * clustering target size), with reading moved to a producer thread.
   */
  static HoodieWriteConfig streamingConfig(HoodieWriteConfig config) {
    HoodieWriteConfig stream = HoodieWriteConfig.newBuilder().withEngineType(EngineType.JAVA)
        .withProps(config.getProps()).build();
    stream.setValue(HoodieStorageConfig.PARQUET_MAX_FILE_SIZE, String.valueOf(config.getClusteringTargetFileMaxBytes()));
    // Hudi's builder fills in every default, so a SIMPLE here (one thread) cannot be told from a table that chose
    // it. DISRUPTOR rather than BOUNDED_IN_MEMORY: the latter sizes every 64th record with JOL's object graph walk,
    // which measured here took more CPU than the whole rewrite (75 s against 28 s for 600,000 rows).
    if (config.getExecutorType() != ExecutorType.BOUNDED_IN_MEMORY) {
      stream.setValue(WRITE_EXECUTOR_TYPE, ExecutorType.DISRUPTOR.name());
    }
    return stream;
  }

  private List<WriteStatus> rewrite(HoodieClusteringGroup group, String instantTime, boolean preserveMetadata,
                                    HoodieWriteConfig streamConfig) {
    long maxMemory = IOUtils.getMaxMemoryPerCompaction(new JavaTaskContextSupplier(), getWriteConfig());
    ReaderContextFactory<T> readers = getEngineContext().getReaderContextFactory(getHoodieTable().getMetaClient());
    List<Supplier<ClosableIterator<HoodieRecord<T>>>> slices = new ArrayList<>(group.getSlices().size());
    group.getSlices().forEach(slice -> slices.add(
        () -> getRecordIterator(readers, ClusteringOperation.create(slice), instantTime, maxMemory)));
    // The file id prefix as Hudi's bulk insert draws it: a random UUID unless the table configures a provider.
    String idPrefix = ((FileIdPrefixProvider) ReflectionUtils.loadClass(streamConfig.getFileIdPrefixProviderClassName(),
        streamConfig.getProps())).createFilePrefix("");
    List<WriteStatus> statuses = new ArrayList<>();
    try (LazyConcatenatingIterator<HoodieRecord<T>> records = new LazyConcatenatingIterator<>(slices)) {
      // areRecordsSorted: a group lies in one partition, so one handle is open at a time (as Hudi's bulk insert).
      new JavaLazyInsertIterable<>(records, true, streamConfig, instantTime, getHoodieTable(), idPrefix,
          getHoodieTable().getTaskContextSupplier(), new CreateHandleFactory<>(preserveMetadata))
          .forEachRemaining(statuses::addAll);
    }
    LOG.info("Clustering {} of {}: streamed {} file groups into {} files ({} executor)", instantTime,
        getWriteConfig().getBasePath(), group.getSlices().size(), statuses.size(), streamConfig.getExecutorType());
    return statuses;
  }
}
