package io.huditsd.executors.clustering;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.hudi.avro.model.HoodieClusteringGroup;
import org.apache.hudi.avro.model.HoodieClusteringPlan;
import org.apache.hudi.avro.model.HoodieSliceInfo;
import org.apache.hudi.client.WriteStatus;
import org.apache.hudi.client.clustering.run.strategy.JavaSortAndSizeExecutionStrategy;
import org.apache.hudi.common.data.HoodieData;
import org.apache.hudi.common.data.HoodieListData;
import org.apache.hudi.common.engine.HoodieEngineContext;
import org.apache.hudi.common.model.HoodieKey;
import org.apache.hudi.common.model.HoodieRecord;
import org.apache.hudi.common.schema.HoodieSchema;
import org.apache.hudi.common.table.HoodieTableMetaClient;
import org.apache.hudi.config.HoodieWriteConfig;
import org.apache.hudi.storage.StoragePath;
import org.apache.hudi.table.HoodieTable;
import org.apache.hudi.table.action.HoodieWriteMetadata;
import org.apache.hudi.table.action.cluster.strategy.ClusteringExecutionStrategy;
import org.apache.hudi.table.marker.WriteMarkersFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Clustering on the Java engine by copying Parquet row groups: the base files of a group are stitched into output
 * files that roll over at {@code hoodie.clustering.plan.strategy.target.file.max.bytes}, without decoding a record
 * (see {@link RowGroupCopier}). Memory follows the largest row group, not the group.
 *
 * <p>A group that cannot be copied (log files, sort columns, mismatched schemas or bloom filters; see
 * {@link FallbackReason}) is rewritten by {@link JavaStreamingRewriteExecutionStrategy} (Hudi's
 * {@link JavaSortAndSizeExecutionStrategy} when the plan sorts); the reason is logged and
 * counted in {@code tsd_clustering_binary_copy_fallbacks_total}.
 *
 * <p>Set with {@code hoodie.clustering.execution.strategy.class}; plans of
 * {@link JavaBinaryCopyClusteringPlanStrategy} name it, and the daemon executes a plan with the strategy it names.
 */
public class JavaBinaryCopyClusteringExecutionStrategy<T>
    extends ClusteringExecutionStrategy<T, HoodieData<HoodieRecord<T>>, HoodieData<HoodieKey>, HoodieData<WriteStatus>> {
  private static final Logger LOG = LoggerFactory.getLogger(JavaBinaryCopyClusteringExecutionStrategy.class);
  /** Threads reading footers and decoding bloom filters ahead of the layout (CPU-bound: about one per core). */
  private static final int FOOTER_READERS = Math.max(2, Math.min(4, Runtime.getRuntime().availableProcessors()));
  private static final ThreadFactory FOOTER_READER_THREADS = new ThreadFactory() {
    private final AtomicInteger count = new AtomicInteger();

    @Override
    public Thread newThread(Runnable task) {
      Thread thread = new Thread(task, "tsd-binary-copy-footers-" + count.incrementAndGet());
      thread.setDaemon(true);
      return thread;
    }
  };

  public JavaBinaryCopyClusteringExecutionStrategy(HoodieTable table, HoodieEngineContext engineContext,
                                                   HoodieWriteConfig writeConfig) {
    super(table, engineContext, writeConfig);
  }

  @Override
  public HoodieWriteMetadata<HoodieData<WriteStatus>> performClustering(HoodieClusteringPlan plan, HoodieSchema schema,
                                                                        String instantTime) {
    HoodieTableMetaClient metaClient = getHoodieTable().getMetaClient();
    Configuration conf = getHoodieTable().getStorageConf().unwrapAs(Configuration.class);
    HoodieWriteConfig config = getWriteConfig();
    ExecutorService footerReaders = Executors.newFixedThreadPool(FOOTER_READERS, FOOTER_READER_THREADS);
    try {
      return performClustering(plan, schema, instantTime, metaClient, conf, config,
          new GroupLayout(conf, config.getClusteringTargetFileMaxBytes(), footerReaders));
    } finally {
      footerReaders.shutdownNow();
    }
  }

  private HoodieWriteMetadata<HoodieData<WriteStatus>> performClustering(
      HoodieClusteringPlan plan, HoodieSchema schema, String instantTime, HoodieTableMetaClient metaClient,
      Configuration conf, HoodieWriteConfig config, GroupLayout layouts) {
    Map<String, String> params = plan.getStrategy() == null ? Map.of() : plan.getStrategy().getStrategyParams();
    boolean preserveMetadata = plan.getPreserveHoodieMetadata() == null || plan.getPreserveHoodieMetadata();
    GroupCopier copier = new GroupCopier(config, metaClient.getStorage(), conf,
        WriteMarkersFactory.get(config.getMarkersType(), getHoodieTable(), instantTime),
        CopiedFileStats.of(config, metaClient, schema, recordType), instantTime,
        metaClient.getTableConfig().getBaseFileFormat().getFileExtension());

    List<WriteStatus> statuses = new ArrayList<>();
    List<HoodieClusteringGroup> rewrite = new ArrayList<>();
    for (HoodieClusteringGroup group : plan.getInputGroups()) {
      Optional<GroupLayout.Ineligible> ineligible =
          GroupEligibility.check(group, params, preserveMetadata, metaClient.getTableConfig());
      GroupLayout.Result result = ineligible.isPresent()
          ? ineligible.get() : layouts.plan(baseFiles(metaClient, group));
      if (result instanceof GroupLayout.Layout layout) {
        statuses.addAll(copier.copy(group.getSlices().get(0).getPartitionPath(), layout));
      } else {
        GroupLayout.Ineligible reason = (GroupLayout.Ineligible) result;
        LOG.info("Clustering {} of {}: rewriting a group of {} file groups instead of copying it ({}): {}",
            instantTime, config.getBasePath(), group.getSlices().size(), reason.reason().label(), reason.detail());
        BinaryCopyMetrics.fallback(reason.reason());
        rewrite.add(group);
      }
    }
    if (!rewrite.isEmpty()) {
      HoodieClusteringPlan rewritePlan = HoodieClusteringPlan.newBuilder(plan).setInputGroups(rewrite).build();
      statuses.addAll(new JavaStreamingRewriteExecutionStrategy<T>(getHoodieTable(), getEngineContext(), config)
          .performClustering(rewritePlan, schema, instantTime).getWriteStatuses().collectAsList());
    }
    HoodieWriteMetadata<HoodieData<WriteStatus>> metadata = new HoodieWriteMetadata<>();
    metadata.setWriteStatuses(HoodieListData.eager(statuses));
    return metadata;
  }

  private static List<Path> baseFiles(HoodieTableMetaClient metaClient, HoodieClusteringGroup group) {
    List<Path> files = new ArrayList<>(group.getSlices().size());
    for (HoodieSliceInfo slice : group.getSlices()) {
      // Plans store the base file's full path; resolved against the base path as Hudi's own strategies do.
      files.add(new Path(new StoragePath(metaClient.getBasePath(), slice.getDataFilePath()).toUri()));
    }
    return files;
  }
}
