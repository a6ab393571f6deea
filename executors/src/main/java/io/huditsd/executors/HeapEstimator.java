package io.huditsd.executors;

import io.huditsd.config.ServicedTable;
import io.huditsd.config.TableWriteConfigs;
import io.huditsd.executors.clustering.CopyHeap;
import org.apache.hudi.avro.model.HoodieClusteringGroup;
import org.apache.hudi.avro.model.HoodieClusteringPlan;
import org.apache.hudi.avro.model.HoodieCompactionOperation;
import org.apache.hudi.avro.model.HoodieCompactionPlan;
import org.apache.hudi.avro.model.HoodieSliceInfo;
import org.apache.hudi.common.config.HoodieMemoryConfig;
import org.apache.hudi.common.table.HoodieTableMetaClient;
import org.apache.hudi.common.util.ClusteringUtils;
import org.apache.hudi.common.util.CompactionUtils;
import org.apache.hudi.table.action.compact.strategy.CompactionStrategy;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Estimates the heap a pending plan needs when it executes in the daemon, from what the plan says before it runs:
 * the plan and the sizes of the files it names (issue 14 §1). Called when a plan is queued, on the poll or REST
 * thread, never under another class's lock. The {@link HeapEstimate#basis()} is shown to operators (log lines,
 * {@code /runs}, the message of a plan refused by the budget).
 *
 * <ul>
 *   <li>Compaction: per operation, the log bytes times {@link #LOG_DECODE_FACTOR} (the records Hudi merges in its
 *   spillable map), at most the map's cap, plus the row groups read from the base file and buffered for the new
 *   one. Hudi's Java engine runs the operations of one
 *   plan in a parallel stream ({@code HoodieCompactor.compact} maps {@code context.parallelize(operations)}, a
 *   parallel {@code HoodieListData}) on the plan's own pool ({@link PlanThreads}), so up to that pool's parallelism
 *   of operations run at once: the estimate is the sum of the largest that many.</li>
 *   <li>Streamed rewrite clustering (the daemon's default, {@link #streams}): per group one slice's logs merged, a
 *   row group read and one written ({@link #streamedRewrite}); the largest group's.</li>
 *   <li>Sorted rewrite clustering: Hudi's Java strategy reads every record of a group into a list before writing it, and
 *   executes the groups one after another ({@code JavaExecutionStrategy.performClustering}): the largest group's
 *   bytes times {@link #DECODE_FACTOR}.</li>
 *   <li>Binary copy: the largest source file, which the copier buffers (up to {@link CopyHeap#bufferCapBytes()});
 *   groups the copy must rewrite (log files, sort columns, ...) count as a rewrite.</li>
 *   <li>Clean and index: fixed allowances ({@link #CLEAN_BYTES}, {@link #INDEX_BYTES}).</li>
 * </ul>
 */
public class HeapEstimator {
  /**
   * Heap held per byte of Parquet read by a rewrite: Hudi's Java clustering keeps a group's records decoded as
   * {@code HoodieRecord}s (keys, Avro payloads) in a list, then writes them. Measured by TestHeapEstimator, which
   * clusters groups of known bytes of the binary-copy benchmark's events (12 columns, gzip) on a real table in
   * process and reads the live heap during the run: 11.2-11.6 heap bytes per file byte on a 9.8 MiB group of
   * 15,000-row files, 6.5 on a 2.0 MiB group of 1,500-row files (better-compressed files decode to more). 13 keeps
   * a margin above the highest; it agrees with the benchmark's 128 MiB groups that needed most of a 2 GiB heap.
   */
  public static final double DECODE_FACTOR = 13.0;
  /**
   * Heap held per byte of log files by a compaction (the merged records in Hudi's spillable map, the file group
   * reader, the new file's writer, the commit's metadata-table update), the base file's row groups counted apart.
   * Measured by TestHeapEstimator: a compaction of 2 file groups with 9.1 MiB of Avro logs (40,000 updated records)
   * and 1.4 MiB of base files held 136 MiB, about 15 per log byte all told; 16 keeps a margin.
   */
  public static final double LOG_DECODE_FACTOR = 16.0;
  /**
   * What a rewrite holds whatever the group's size (write client, timeline, metadata writer); the measurement found
   * it small beside the records, so this is an allowance rather than a figure.
   */
  public static final long REWRITE_FIXED_BYTES = 16L << 20;
  /** Hudi's spillable map cap when {@code hoodie.memory.compaction.max.size} is not set (see below). */
  public static final long SPILLABLE_MAP_DEFAULT_BYTES = HoodieMemoryConfig.DEFAULT_MAX_MEMORY_FOR_SPILLABLE_MAP_IN_BYTES;
  public static final String PARQUET_BLOCK_SIZE_KEY = "hoodie.parquet.block.size";
  public static final String SORT_COLUMNS_KEY = TableWriteConfigs.SORT_COLUMNS_KEY;
  public static final String BULK_INSERT_SORT_MODE_KEY = TableWriteConfigs.BULK_INSERT_SORT_MODE_KEY;
  /** Hudi's default {@value #PARQUET_BLOCK_SIZE_KEY}: a row group, which the reader and the writer each hold. */
  public static final long PARQUET_BLOCK_SIZE_DEFAULT = 120L << 20;
  /**
   * A clean plan lists the files to delete; executing it holds those lists and the timeline. A fixed allowance, not
   * measured: cleans of tens of thousands of files stay well under it.
   */
  public static final long CLEAN_BYTES = 32L << 20;
  /**
   * Building a metadata index reads the table's files through the metadata writer; a fixed allowance, not measured.
   * A record index over a very large table can need more.
   */
  public static final long INDEX_BYTES = 256L << 20;

  private final int compactionParallelism;

  /** Operations of one compaction at once as {@link JavaEngine} runs them by default: one per core. */
  public HeapEstimator() {
    this(PlanThreads.perCore().parallelism());
  }

  public HeapEstimator(int compactionParallelism) {
    if (compactionParallelism < 1) {
      throw new IllegalArgumentException("compactionParallelism must be at least 1, got " + compactionParallelism);
    }
    this.compactionParallelism = compactionParallelism;
  }

  /** The estimate for {@code plan} of {@code table}. */
  public HeapEstimate estimate(HoodieTableMetaClient metaClient, ServicedTable table, PendingPlan plan) {
    try {
      return switch (plan.service()) {
        case COMPACTION -> compaction(metaClient, table.hoodieKeys(),
            CompactionUtils.getCompactionPlan(metaClient, plan.instant()));
        case CLUSTERING -> clustering(metaClient, table.hoodieKeys(),
            ClusteringUtils.getPendingClusteringPlan(metaClient, plan.instant()));
        case CLEAN -> new HeapEstimate(CLEAN_BYTES, "clean: a fixed " + ByteSize.format(CLEAN_BYTES) + " allowance");
        case INDEX -> new HeapEstimate(INDEX_BYTES, "index build: a fixed " + ByteSize.format(INDEX_BYTES)
            + " allowance");
        case ARCHIVE -> HeapEstimate.NONE;
      };
    } catch (RuntimeException e) {
      // The run reads the same plan and reports the problem with its own message.
      return new HeapEstimate(0, "not estimated: the plan could not be read (" + e.getMessage() + ")");
    }
  }

  HeapEstimate compaction(HoodieTableMetaClient metaClient, Map<String, String> keys, HoodieCompactionPlan plan) {
    List<HoodieCompactionOperation> operations = plan.getOperations() == null ? List.of() : plan.getOperations();
    if (operations.isEmpty()) {
      return new HeapEstimate(0, "compaction: no operations");
    }
    long spillCap = spillableMapCap(keys);
    long blockSize = longKey(keys, PARQUET_BLOCK_SIZE_KEY, PARQUET_BLOCK_SIZE_DEFAULT);
    List<OperationHeap> heaps = new ArrayList<>(operations.size());
    for (HoodieCompactionOperation operation : operations) {
      long logBytes = logBytes(metaClient, operation);
      long baseBytes = operation.getDataFilePath() == null || operation.getDataFilePath().isEmpty() ? 0
          : PlanSizes.fileSize(metaClient, operation.getPartitionPath(), operation.getDataFilePath());
      long merged = Math.min((long) (logBytes * LOG_DECODE_FACTOR), spillCap);
      long rowGroups = 2 * Math.min(baseBytes + logBytes, blockSize);
      heaps.add(new OperationHeap(logBytes, baseBytes, merged + rowGroups));
    }
    heaps.sort(Comparator.comparingLong(OperationHeap::bytes).reversed());
    int atOnce = Math.min(compactionParallelism, heaps.size());
    long total = 0;
    for (int i = 0; i < atOnce; i++) {
      total += heaps.get(i).bytes();
    }
    OperationHeap largest = heaps.get(0);
    return new HeapEstimate(total, String.format(Locale.ROOT,
        "%d operations, up to %d at once; largest %s logs x %.1f decode factor (spillable map cap %s) + 2 row groups"
            + " of %s", heaps.size(), atOnce, ByteSize.format(largest.logBytes()), LOG_DECODE_FACTOR,
        ByteSize.format(spillCap), ByteSize.format(Math.min(largest.baseBytes() + largest.logBytes(), blockSize))));
  }

  /**
   * Hudi's cap on one operation's spillable map ({@code IOUtils.getMaxMemoryPerCompaction}): the key when set,
   * else a fraction of the engine's task memory; the Java engine reports none ({@code JavaTaskContextSupplier}
   * answers every engine property empty), so Hudi falls back to 1 GiB whatever the fraction.
   */
  static long spillableMapCap(Map<String, String> keys) {
    return longKey(keys, HoodieMemoryConfig.MAX_MEMORY_FOR_COMPACTION.key(), SPILLABLE_MAP_DEFAULT_BYTES);
  }

  private static long logBytes(HoodieTableMetaClient metaClient, HoodieCompactionOperation operation) {
    Map<String, Double> metrics = operation.getMetrics();
    if (metrics != null && metrics.get(CompactionStrategy.TOTAL_LOG_FILE_SIZE) != null) {
      return metrics.get(CompactionStrategy.TOTAL_LOG_FILE_SIZE).longValue();
    }
    long bytes = 0;
    if (operation.getDeltaFilePaths() != null) {
      for (String log : operation.getDeltaFilePaths()) {
        bytes += PlanSizes.fileSize(metaClient, operation.getPartitionPath(), log);
      }
    }
    return bytes;
  }

  HeapEstimate clustering(HoodieTableMetaClient metaClient, Map<String, String> keys, HoodieClusteringPlan plan) {
    List<HoodieClusteringGroup> groups = plan.getInputGroups() == null ? List.of() : plan.getInputGroups();
    if (groups.isEmpty()) {
      return new HeapEstimate(0, "clustering: no groups");
    }
    if (isBinaryCopy(plan, keys)) {
      return binaryCopy(metaClient, keys, plan, groups);
    }
    if (streams(plan, keys)) {
      return streamedRewrite(metaClient, keys, groups);
    }
    return listRewrite(metaClient, groups);
  }

  /** Hudi's sorted rewrite holds a group's records in a list; groups run one after another: the largest counts. */
  private HeapEstimate listRewrite(HoodieTableMetaClient metaClient, List<HoodieClusteringGroup> groups) {
    long largest = 0;
    for (HoodieClusteringGroup group : groups) {
      largest = Math.max(largest, groupBytes(metaClient, group));
    }
    return new HeapEstimate(rewriteBytes(largest), String.format(Locale.ROOT,
        "%d %s, largest %s x %.1f decode factor + %s per run", groups.size(), groups.size() == 1 ? "group" : "groups",
        ByteSize.format(largest), DECODE_FACTOR, ByteSize.format(REWRITE_FIXED_BYTES)));
  }

  /**
   * Bytes of the groups a clustering plan rewrites: every group's, except for a binary-copy plan the groups it can
   * copy (as far as the plan shows; a group whose footers turn out not to match is rewritten all the same). What
   * {@code tsd.engine.spark.min.bytes} is weighed against: a copy costs about what reading its bytes costs, in the
   * daemon as on Spark, where a submission alone costs tens of seconds.
   */
  public long clusteringBytesRewritten(HoodieTableMetaClient metaClient, Map<String, String> keys,
                                       HoodieClusteringPlan plan) {
    List<HoodieClusteringGroup> groups = plan.getInputGroups() == null ? List.of() : plan.getInputGroups();
    boolean copies = isBinaryCopy(plan, keys);
    long bytes = 0;
    for (HoodieClusteringGroup group : groups) {
      if (!copies || !CopyHeap.copyable(plan, group, metaClient.getTableConfig())) {
        bytes += groupBytes(metaClient, group);
      }
    }
    return bytes;
  }

  /**
   * A streamed rewrite ({@link ClusteringStrategyMatch#JAVA_STREAMING_REWRITE}) holds no group: per group one slice's
   * log records merged at a time (as a compaction's operation, up to the spillable map's cap), a row group read and
   * one buffered for the output, and what any rewrite holds. Groups run one after another: the largest counts.
   */
  private HeapEstimate streamedRewrite(HoodieTableMetaClient metaClient, Map<String, String> keys,
                                       List<HoodieClusteringGroup> groups) {
    long spillCap = spillableMapCap(keys);
    long blockSize = longKey(keys, PARQUET_BLOCK_SIZE_KEY, PARQUET_BLOCK_SIZE_DEFAULT);
    long largest = 0;
    long largestGroup = 0;
    for (HoodieClusteringGroup group : groups) {
      long groupBytes = groupBytes(metaClient, group);
      long largestLogs = 0;
      for (HoodieSliceInfo slice : group.getSlices()) {
        long logs = 0;
        if (slice.getDeltaFilePaths() != null) {
          for (String log : slice.getDeltaFilePaths()) {
            logs += PlanSizes.fileSize(metaClient, slice.getPartitionPath(), log);
          }
        }
        largestLogs = Math.max(largestLogs, logs);
      }
      long bytes = Math.min((long) (largestLogs * LOG_DECODE_FACTOR), spillCap) + 2 * Math.min(groupBytes, blockSize)
          + REWRITE_FIXED_BYTES;
      if (bytes > largest) {
        largest = bytes;
        largestGroup = groupBytes;
      }
    }
    return new HeapEstimate(largest, String.format(Locale.ROOT,
        "streamed rewrite of %d %s, largest %s: one slice's logs x %.1f decode factor + 2 row groups + %s per run",
        groups.size(), groups.size() == 1 ? "group" : "groups", ByteSize.format(largestGroup), LOG_DECODE_FACTOR,
        ByteSize.format(REWRITE_FIXED_BYTES)));
  }

  /**
   * Whether the plan executes with the daemon's streaming rewrite, which holds no group's records: the class
   * {@link ClusteringStrategyMatch} picks for it, no sort columns in the plan and no bulk-insert sort mode (those
   * groups go to Hudi's list-holding strategy, as {@code JavaStreamingRewriteExecutionStrategy} decides).
   */
  public static boolean streams(HoodieClusteringPlan plan, Map<String, String> keys) {
    return streamsWith(chosenStrategy(plan, keys), sortColumns(plan), keys.get(BULK_INSERT_SORT_MODE_KEY));
  }

  /**
   * Whether a plan executed with {@code executionStrategy} ({@code hoodie.clustering.execution.strategy.class} as
   * the run picks it, see {@link ClusteringStrategyMatch}), sorted by {@code sortColumns} (none: null or blank) on
   * a table with {@code bulkInsertSortMode} (null: Hudi's default, NONE) streams its groups.
   */
  public static boolean streamsWith(String executionStrategy, String sortColumns, String bulkInsertSortMode) {
    return ClusteringStrategyMatch.JAVA_STREAMING_REWRITE.equals(executionStrategy)
        && !TableWriteConfigs.sorts(sortColumns, bulkInsertSortMode);
  }

  /**
   * The largest source file of the groups copied, and the groups the copy must rewrite (log files, sort columns,
   * ...) as their rewrite holds them: streamed unless the plan sorts ({@code JavaBinaryCopyClusteringExecutionStrategy}
   * hands them to the streaming rewrite, which passes sorted groups on to Hudi's list strategy).
   */
  private HeapEstimate binaryCopy(HoodieTableMetaClient metaClient, Map<String, String> keys,
                                  HoodieClusteringPlan plan, List<HoodieClusteringGroup> groups) {
    long largestFile = 0;
    int copied = 0;
    List<HoodieClusteringGroup> rewritten = new ArrayList<>();
    for (HoodieClusteringGroup group : groups) {
      if (CopyHeap.copyable(plan, group, metaClient.getTableConfig())) {
        copied++;
        for (HoodieSliceInfo slice : group.getSlices()) {
          largestFile = Math.max(largestFile,
              PlanSizes.fileSize(metaClient, slice.getPartitionPath(), slice.getDataFilePath()));
        }
      } else {
        rewritten.add(group);
      }
    }
    long copyBuffer = Math.min(largestFile, CopyHeap.bufferCapBytes());
    String basis = String.format(Locale.ROOT, "binary copy of %d %s, largest source file %s", copied,
        copied == 1 ? "group" : "groups", ByteSize.format(largestFile));
    if (rewritten.isEmpty()) {
      return new HeapEstimate(copyBuffer, basis);
    }
    HeapEstimate rewrite = streamsWith(ClusteringStrategyMatch.JAVA_STREAMING_REWRITE, sortColumns(plan),
        keys.get(BULK_INSERT_SORT_MODE_KEY))
        ? streamedRewrite(metaClient, keys, rewritten) : listRewrite(metaClient, rewritten);
    // Copies run before the rewrite of the rest, one at a time: the larger of the two is what is held at once.
    return new HeapEstimate(Math.max(copyBuffer, rewrite.bytes()),
        basis + "; rewritten (log files, sort columns, ...): " + rewrite.basis());
  }

  private static String sortColumns(HoodieClusteringPlan plan) {
    return plan.getStrategy() == null || plan.getStrategy().getStrategyParams() == null ? null
        : plan.getStrategy().getStrategyParams().get(SORT_COLUMNS_KEY);
  }

  /**
   * Whether the plan executes with the daemon's binary copy: what {@link ClusteringStrategyMatch} picks for the class
   * the plan names, else the table's configured execution strategy.
   */
  private static boolean isBinaryCopy(HoodieClusteringPlan plan, Map<String, String> keys) {
    return ClusteringStrategyMatch.JAVA_BINARY_COPY.equals(chosenStrategy(plan, keys));
  }

  /** The execution strategy the run picks for {@code plan}; null when the run refuses it (sized as a rewrite). */
  private static String chosenStrategy(HoodieClusteringPlan plan, Map<String, String> keys) {
    String named = plan.getStrategy() == null ? null : plan.getStrategy().getStrategyClassName();
    return ClusteringStrategyMatch.executedWith(named, keys.get(ClusteringStrategyMatch.EXECUTION_STRATEGY_KEY))
        .orElse(null);
  }

  /** The heap a rewrite of a group of {@code groupBytes} holds. */
  public static long rewriteBytes(long groupBytes) {
    return (long) (groupBytes * DECODE_FACTOR) + REWRITE_FIXED_BYTES;
  }

  private static long groupBytes(HoodieTableMetaClient metaClient, HoodieClusteringGroup group) {
    long bytes = 0;
    for (HoodieSliceInfo slice : group.getSlices()) {
      if (slice.getDataFilePath() != null && !slice.getDataFilePath().isEmpty()) {
        bytes += PlanSizes.fileSize(metaClient, slice.getPartitionPath(), slice.getDataFilePath());
      }
      if (slice.getDeltaFilePaths() != null) {
        for (String log : slice.getDeltaFilePaths()) {
          bytes += PlanSizes.fileSize(metaClient, slice.getPartitionPath(), log);
        }
      }
    }
    return bytes;
  }

  private static long longKey(Map<String, String> keys, String key, long fallback) {
    String value = keys.get(key);
    if (value == null || value.isBlank()) {
      return fallback;
    }
    try {
      return Long.parseLong(value.trim());
    } catch (NumberFormatException e) {
      // Hudi refuses the value when the plan runs, with its own message.
      return fallback;
    }
  }

  private record OperationHeap(long logBytes, long baseBytes, long bytes) {
  }
}
