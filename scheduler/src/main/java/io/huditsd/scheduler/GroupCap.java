package io.huditsd.scheduler;

import io.huditsd.config.ServicedTable;
import io.huditsd.executors.ByteSize;
import io.huditsd.executors.ClusteringStrategyMatch;
import io.huditsd.executors.HeapEstimator;
import org.apache.hudi.common.util.Option;
import org.apache.hudi.config.HoodieWriteConfig;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * Keeps clustering groups that would execute in the daemon small enough to run there: while a plan is written,
 * {@value #MAX_BYTES_PER_GROUP_KEY} is lowered to the largest group whose rewrite estimate
 * ({@link HeapEstimator#rewriteBytes}) fits {@code workers.memoryBudget}, unless the table's keys ask for less. Not
 * for tables whose clustering runs on Spark ({@code tsd.engine.clustering}, else {@code tsd.engine}, is
 * {@code spark}), nor for the binary-copy plan strategy, whose groups cost the heap of one source file, not of the
 * group, nor for plans the daemon's streaming rewrite executes (no sort columns, the default), which hold a row
 * group or two whatever the group's size ({@link HeapEstimator#streamsWith}). Said once per table in the log.
 */
final class GroupCap {
  static final String MAX_BYTES_PER_GROUP_KEY = "hoodie.clustering.plan.strategy.max.bytes.per.group";
  static final String ENGINE_KEY = "tsd.engine";
  static final String CLUSTERING_ENGINE_KEY = "tsd.engine.clustering";
  private static final String PLAN_STRATEGY_KEY = "hoodie.clustering.plan.strategy.class";
  private static final String BINARY_COPY_PLAN_STRATEGY =
      "io.huditsd.executors.clustering.JavaBinaryCopyClusteringPlanStrategy";
  private static final Logger LOG = LoggerFactory.getLogger(GroupCap.class);

  private final long memoryBudgetBytes;
  private final Set<String> announced = ConcurrentHashMap.newKeySet();

  /** Forgets a table no longer serviced. */
  void forget(String tableId) {
    announced.remove(tableId);
  }

  /** The tables whose cap was announced. */
  Set<String> tables() {
    return Set.copyOf(announced);
  }

  GroupCap(long memoryBudgetBytes) {
    if (memoryBudgetBytes < 1) {
      throw new IllegalArgumentException("memoryBudgetBytes must be positive, got " + memoryBudgetBytes);
    }
    this.memoryBudgetBytes = memoryBudgetBytes;
  }

  /**
   * The group size to plan with for {@code table}, or empty to plan as the table's keys say.
   *
   * @param configuredBytes the table's {@value #MAX_BYTES_PER_GROUP_KEY}
   * @param planStrategy the table's {@code hoodie.clustering.plan.strategy.class}
   */
  OptionalLong capFor(ServicedTable table, long configuredBytes, String planStrategy, boolean streamed) {
    if (memoryBudgetBytes == Long.MAX_VALUE || streamed || runsOnSpark(table.hoodieKeys())
        || BINARY_COPY_PLAN_STRATEGY.equals(planStrategy)) {
      return OptionalLong.empty();
    }
    long cap = largestGroupWithin(memoryBudgetBytes);
    return configuredBytes > cap ? OptionalLong.of(cap) : OptionalLong.empty();
  }

  /** The largest group bytes whose rewrite estimate fits {@code budget}; at least 1 byte. */
  static long largestGroupWithin(long budget) {
    long cap = (long) ((budget - HeapEstimator.REWRITE_FIXED_BYTES) / HeapEstimator.DECODE_FACTOR);
    while (cap > 1 && HeapEstimator.rewriteBytes(cap) > budget) {
      cap--;
    }
    return Math.max(1, cap);
  }

  /** Whether the plan this config writes will be executed by the daemon's streaming rewrite. */
  private static boolean streams(HoodieWriteConfig config) {
    // The plan names the config's execution strategy; the run maps it as for any plan.
    String named = config.getClusteringExecutionStrategyClass();
    return HeapEstimator.streamsWith(ClusteringStrategyMatch.executedWith(named, named).orElse(null),
        config.getProps().getProperty(HeapEstimator.SORT_COLUMNS_KEY),
        config.getProps().getProperty(HeapEstimator.BULK_INSERT_SORT_MODE_KEY));
  }

  private static boolean runsOnSpark(Map<String, String> keys) {
    String engine = keys.getOrDefault(CLUSTERING_ENGINE_KEY, keys.get(ENGINE_KEY));
    return engine != null && engine.trim().toLowerCase(Locale.ROOT).equals("spark");
  }

  /**
   * Runs {@code planning} with the cap set on {@code config} (the write client's own, which Hudi's plan strategy
   * reads as it plans) and puts the table's value back afterwards: the same client may plan other services next.
   */
  Option<String> whilePlanning(ServicedTable table, HoodieWriteConfig config, Supplier<Option<String>> planning) {
    Objects.requireNonNull(config, "config is null");
    OptionalLong cap = capFor(table, config.getClusteringMaxBytesInGroup(),
        config.getProps().getProperty(PLAN_STRATEGY_KEY), streams(config));
    if (cap.isEmpty()) {
      return planning.get();
    }
    String previous = config.getProps().getProperty(MAX_BYTES_PER_GROUP_KEY);
    if (announced.add(table.id())) {
      LOG.info("Clustering of table {} plans groups of at most {} ({} bytes; {} was {}): one sorted group's"
              + " rewrite estimate ({} decode factor + {}) must fit workers.memoryBudget {}; clustering on Spark"
              + " ({}: spark) plans as the table says", table.id(), ByteSize.format(cap.getAsLong()),
          cap.getAsLong(), MAX_BYTES_PER_GROUP_KEY, ByteSize.format(config.getClusteringMaxBytesInGroup()),
          HeapEstimator.DECODE_FACTOR, ByteSize.format(HeapEstimator.REWRITE_FIXED_BYTES),
          ByteSize.format(memoryBudgetBytes), CLUSTERING_ENGINE_KEY);
    }
    config.setValue(MAX_BYTES_PER_GROUP_KEY, Long.toString(cap.getAsLong()));
    try {
      return planning.get();
    } finally {
      if (previous == null) {
        config.getProps().remove(MAX_BYTES_PER_GROUP_KEY);
      } else {
        config.setValue(MAX_BYTES_PER_GROUP_KEY, previous);
      }
    }
  }
}
