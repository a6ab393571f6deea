package io.huditsd.config;

import org.apache.hudi.avro.model.HoodieIndexPartitionInfo;
import org.apache.hudi.avro.model.HoodieIndexPlan;
import org.apache.hudi.common.table.HoodieTableConfig;
import org.apache.hudi.common.table.HoodieTableMetaClient;
import org.apache.hudi.common.table.timeline.HoodieInstant;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * Where a table's metadata indexes stand: built ({@code hoodie.table.metadata.partitions}), being built
 * ({@code hoodie.table.metadata.partitions.inflight}, set by Hudi's indexer when it starts building), and planned (the
 * partitions of pending {@code indexing} instants, requested or inflight).
 *
 * @param completed metadata partitions the table has
 * @param inflight metadata partitions being built
 * @param pendingPlans pending indexing plans by instant, with the partitions each builds and its base instant
 */
public record MetadataIndexState(Set<String> completed, Set<String> inflight, Map<String, PendingIndexPlan> pendingPlans) {
  public MetadataIndexState {
    completed = Set.copyOf(completed);
    inflight = Set.copyOf(inflight);
    pendingPlans = Map.copyOf(pendingPlans);
  }

  /**
   * One pending indexing plan.
   *
   * @param instant the indexing instant
   * @param inflight whether the build started ({@code .indexing.inflight} exists)
   * @param partitions metadata partitions the plan builds
   * @param baseInstant the data-table instant the build covers; later commits are caught up before it completes
   */
  public record PendingIndexPlan(String instant, boolean inflight, List<String> partitions, String baseInstant) {
    public PendingIndexPlan {
      Objects.requireNonNull(instant, "instant is null");
      partitions = List.copyOf(partitions);
    }
  }

  public static MetadataIndexState read(HoodieTableMetaClient metaClient) {
    HoodieTableConfig config = metaClient.getTableConfig();
    Map<String, PendingIndexPlan> plans = new LinkedHashMap<>();
    for (HoodieInstant instant : metaClient.getActiveTimeline().filterPendingIndexTimeline().getInstants()) {
      plans.put(instant.requestedTime(), readPlan(metaClient, instant));
    }
    return new MetadataIndexState(config.getMetadataPartitions(), config.getMetadataPartitionsInflight(), plans);
  }

  private static PendingIndexPlan readPlan(HoodieTableMetaClient metaClient, HoodieInstant instant) {
    HoodieInstant requested = metaClient.getInstantGenerator().getIndexRequestedInstant(instant.requestedTime());
    try {
      HoodieIndexPlan plan = metaClient.getActiveTimeline().readIndexPlan(requested);
      List<String> partitions = new ArrayList<>();
      String base = null;
      if (plan.getIndexPartitionInfos() != null) {
        for (HoodieIndexPartitionInfo info : plan.getIndexPartitionInfos()) {
          partitions.add(info.getMetadataPartitionPath());
          base = info.getIndexUptoInstant();
        }
      }
      return new PendingIndexPlan(instant.requestedTime(), instant.isInflight(), partitions, base);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read the indexing plan " + instant + " of " + metaClient.getBasePath(), e);
    }
  }

  /** Partitions in pending plans. */
  public Set<String> planned() {
    Set<String> planned = new LinkedHashSet<>();
    pendingPlans.values().forEach(plan -> planned.addAll(plan.partitions()));
    return planned;
  }

  /** Whether the partition is built, being built or planned: nothing to schedule for it. */
  public boolean builtOrUnderway(String partition) {
    return completed.contains(partition) || inflight.contains(partition) || planned().contains(partition);
  }

  /** Wanted indexes that are neither built nor being built nor planned. */
  public Set<MetadataIndexKind> missing(MetadataIndexes wanted) {
    Set<MetadataIndexKind> missing = EnumSet.noneOf(MetadataIndexKind.class);
    for (MetadataIndexKind kind : wanted.kinds()) {
      if (!builtOrUnderway(kind.partitionPath())) {
        missing.add(kind);
      }
    }
    return missing;
  }
}
