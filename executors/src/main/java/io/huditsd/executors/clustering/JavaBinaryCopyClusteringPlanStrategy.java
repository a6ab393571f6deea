package io.huditsd.executors.clustering;

import org.apache.hudi.avro.model.HoodieClusteringGroup;
import org.apache.hudi.avro.model.HoodieClusteringPlan;
import org.apache.hudi.avro.model.HoodieClusteringStrategy;
import org.apache.hudi.client.clustering.plan.strategy.JavaSizeBasedClusteringPlanStrategy;
import org.apache.hudi.common.engine.HoodieEngineContext;
import org.apache.hudi.common.model.FileSlice;
import org.apache.hudi.common.util.Option;
import org.apache.hudi.common.util.StringUtils;
import org.apache.hudi.common.util.collection.Pair;
import org.apache.hudi.config.HoodieWriteConfig;
import org.apache.hudi.table.HoodieTable;
import org.apache.hudi.table.action.cluster.ClusteringPlanActionExecutor;
import org.apache.hudi.util.Lazy;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * Plans clustering for {@link JavaBinaryCopyClusteringExecutionStrategy}: small file slices are grouped by size as
 * Hudi's {@link JavaSizeBasedClusteringPlanStrategy} does, but slices that are a Parquet base file alone (every
 * slice of a COW table, compacted slices of a MOR table) are grouped apart from slices with log files, so that one
 * slice with logs does not send a whole group to the rewrite path. The plan names the binary-copy execution
 * strategy whatever the planning client's {@code hoodie.clustering.execution.strategy.class} says.
 *
 * <p>File groups that writers wrote recently are left out, as by the daemon's default planner
 * ({@link HotAwareClusteringPlanStrategy}). Planning reads no file: footers are read once, when the plan is executed.
 */
public class JavaBinaryCopyClusteringPlanStrategy<T> extends HotAwareClusteringPlanStrategy<T> {
  public JavaBinaryCopyClusteringPlanStrategy(HoodieTable table, HoodieEngineContext engineContext,
                                              HoodieWriteConfig writeConfig) {
    super(table, engineContext, writeConfig);
  }

  @Override
  protected Pair<Stream<HoodieClusteringGroup>, Boolean> buildClusteringGroupsForPartition(String partitionPath,
                                                                                          List<FileSlice> fileSlices) {
    if (!StringUtils.isNullOrEmpty(getWriteConfig().getClusteringSortColumns())) {
      // Sorted clustering rewrites every group anyway: no reason to keep slices apart.
      return super.buildClusteringGroupsForPartition(partitionPath, fileSlices);
    }
    List<FileSlice> baseFilesOnly = new ArrayList<>();
    List<FileSlice> others = new ArrayList<>();
    for (FileSlice slice : fileSlices) {
      (isBaseFileOnly(slice) ? baseFilesOnly : others).add(slice);
    }
    Pair<Stream<HoodieClusteringGroup>, Boolean> copyable =
        super.buildClusteringGroupsForPartition(partitionPath, baseFilesOnly);
    if (others.isEmpty()) {
      return copyable;
    }
    Pair<Stream<HoodieClusteringGroup>, Boolean> rest = super.buildClusteringGroupsForPartition(partitionPath, others);
    return Pair.of(Stream.concat(copyable.getLeft(), rest.getLeft()), copyable.getRight() || rest.getRight());
  }

  @Override
  public Option<HoodieClusteringPlan> generateClusteringPlan(ClusteringPlanActionExecutor executor,
                                                             Lazy<List<String>> partitions) {
    Option<HoodieClusteringPlan> plan = super.generateClusteringPlan(executor, partitions);
    if (plan.isPresent()) {
      HoodieClusteringStrategy strategy = plan.get().getStrategy();
      plan.get().setStrategy(HoodieClusteringStrategy.newBuilder(strategy)
          .setStrategyClassName(JavaBinaryCopyClusteringExecutionStrategy.class.getName())
          .build());
    }
    return plan;
  }

  static boolean isBaseFileOnly(FileSlice slice) {
    return slice.getLogFiles().findAny().isEmpty() && slice.getBaseFile().isPresent()
        && slice.getBaseFile().get().getBootstrapBaseFile().isEmpty()
        && slice.getBaseFile().get().getFileName().endsWith(".parquet");
  }
}
