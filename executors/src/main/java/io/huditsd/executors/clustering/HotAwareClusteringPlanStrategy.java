package io.huditsd.executors.clustering;

import org.apache.hudi.avro.model.HoodieClusteringPlan;
import org.apache.hudi.client.clustering.plan.strategy.JavaSizeBasedClusteringPlanStrategy;
import org.apache.hudi.common.engine.HoodieEngineContext;
import org.apache.hudi.common.model.FileSlice;
import org.apache.hudi.common.model.HoodieFileGroupId;
import org.apache.hudi.common.util.Option;
import org.apache.hudi.config.HoodieWriteConfig;
import org.apache.hudi.table.HoodieTable;
import org.apache.hudi.table.action.cluster.ClusteringPlanActionExecutor;
import org.apache.hudi.util.Lazy;

import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;

/**
 * The daemon's default clustering plan strategy: Hudi's {@link JavaSizeBasedClusteringPlanStrategy} over the file
 * groups that writers have not written recently (see {@link HotFileGroups}). Hudi's partition filters
 * ({@code hoodie.clustering.plan.partition.filter.mode}, selected partitions, regex, skip-from-latest) apply first,
 * as with Hudi's strategy; file groups in pending compaction or clustering stay out as Hudi leaves them out.
 *
 * <p>The plan records in its extra metadata, under {@link HotFileGroups#SKIPPED_METADATA_KEY}, how many file groups
 * of the planned partitions were left out as hot.
 */
public class HotAwareClusteringPlanStrategy<T> extends JavaSizeBasedClusteringPlanStrategy<T> {
  private final HotFileGroups settings;
  private final Instant now = Instant.now();
  private final Lazy<Set<HoodieFileGroupId>> hot;
  /** Hudi asks for the slices of several partitions in parallel (the Java engine's map runs on a thread pool). */
  private final Set<HoodieFileGroupId> skipped = ConcurrentHashMap.newKeySet();

  public HotAwareClusteringPlanStrategy(HoodieTable table, HoodieEngineContext engineContext,
                                        HoodieWriteConfig writeConfig) {
    super(table, engineContext, writeConfig);
    this.settings = HotFileGroups.of(writeConfig);
    this.hot = Lazy.lazily(() -> settings.find(table.getMetaClient(), now));
  }

  @Override
  protected Stream<FileSlice> getFileSlicesEligibleForClustering(String partition) {
    Stream<FileSlice> eligible = super.getFileSlicesEligibleForClustering(partition);
    if (settings.disabled()) {
      return eligible;
    }
    Set<HoodieFileGroupId> hotGroups = hot.get();
    return eligible.filter(slice -> {
      if (hotGroups.contains(slice.getFileGroupId()) || settings.recentlyWritten(slice, now)) {
        skipped.add(slice.getFileGroupId());
        return false;
      }
      return true;
    });
  }

  @Override
  public Option<HoodieClusteringPlan> generateClusteringPlan(ClusteringPlanActionExecutor executor,
                                                             Lazy<List<String>> partitions) {
    Option<HoodieClusteringPlan> plan = super.generateClusteringPlan(executor, partitions);
    if (plan.isPresent()) {
      Map<String, String> extra = plan.get().getExtraMetadata() == null
          ? new HashMap<>() : new HashMap<>(plan.get().getExtraMetadata());
      extra.put(HotFileGroups.SKIPPED_METADATA_KEY, Integer.toString(skipped.size()));
      plan.get().setExtraMetadata(extra);
    }
    return plan;
  }

  /** File groups left out as hot so far by this planner. */
  int skippedHot() {
    return skipped.size();
  }
}
