package io.huditsd.it.support;

import org.apache.hudi.avro.model.HoodieClusteringPlan;
import org.apache.hudi.avro.model.HoodieCompactionOperation;
import org.apache.hudi.avro.model.HoodieCompactionPlan;
import org.apache.hudi.common.model.HoodieTableType;
import org.apache.hudi.common.table.HoodieTableMetaClient;
import org.apache.hudi.common.table.timeline.HoodieInstant;
import org.apache.hudi.common.table.timeline.HoodieTimeline;
import org.apache.hudi.common.util.ClusteringUtils;
import org.apache.hudi.common.util.CompactionUtils;
import org.apache.hudi.common.util.Option;
import org.apache.hudi.common.util.collection.Pair;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Every compaction and clustering plan seen on one table, kept across archival (a plan read once stays in the ledger
 * after its instant left the active timeline), so that "no file group in two plans" can be checked over a whole run:
 * <ul>
 *   <li>a compaction operation is a file slice ({@code partition/fileId@baseInstant}); two plans compacting the same
 *       slice wrote two base files from it, and the second may lack what was logged in between;</li>
 *   <li>a clustering input is a file group ({@code partition/fileId}); a group is replaced once, so a second plan
 *       over it rewrote data that was already rewritten.</li>
 * </ul>
 */
public final class PlanLedger {
  /** A plan read from the timeline: what it covers, and whether it was seen completed. */
  private record Entry(String kind, String instant, List<String> units, boolean completed) {
  }

  private final Map<String, Entry> plans = new HashMap<>();

  /**
   * Reads the plans of every compaction and clustering instant on {@code metaClient}'s active timeline not read
   * before, and returns the file slices or groups that some other plan already held, each naming both plans. A plan
   * last seen pending that is no longer on the timeline was rolled back and holds nothing any more; a completed one
   * keeps its file groups after archival.
   */
  public List<String> record(HoodieTableMetaClient metaClient) {
    Objects.requireNonNull(metaClient, "metaClient is null");
    HoodieTimeline timeline = metaClient.getActiveTimeline();
    Map<String, HoodieInstant> onTimeline = new HashMap<>();
    for (HoodieInstant instant : timeline.getInstants()) {
      if (isCompaction(metaClient, instant)) {
        onTimeline.put("compaction@" + instant.requestedTime(), instant);
      } else if (ClusteringUtils.isClusteringInstant(timeline, instant, metaClient.getInstantGenerator())) {
        onTimeline.put("clustering@" + instant.requestedTime(), instant);
      }
    }
    plans.values().removeIf(entry -> !entry.completed()
        && !onTimeline.containsKey(entry.kind() + "@" + entry.instant()));

    List<String> overlaps = new ArrayList<>();
    for (Map.Entry<String, HoodieInstant> found : onTimeline.entrySet()) {
      HoodieInstant instant = found.getValue();
      Entry known = plans.get(found.getKey());
      if (known != null) {
        if (instant.isCompleted() && !known.completed()) {
          plans.put(found.getKey(), new Entry(known.kind(), known.instant(), known.units(), true));
        }
        continue;
      }
      Entry entry = read(metaClient, found.getKey().startsWith("compaction@") ? "compaction" : "clustering",
          instant);
      for (Entry other : plans.values()) {
        for (String unit : entry.units()) {
          if (other.units().contains(unit)) {
            overlaps.add((entry.kind().equals("compaction") ? "file slice " : "file group ") + unit + " is in "
                + entry.kind() + " plans " + other.instant() + " and " + entry.instant());
          }
        }
      }
      plans.put(found.getKey(), entry);
    }
    return overlaps;
  }

  private static Entry read(HoodieTableMetaClient metaClient, String kind, HoodieInstant instant) {
    List<String> units = new ArrayList<>();
    if (kind.equals("compaction")) {
      HoodieCompactionPlan plan = CompactionUtils.getCompactionPlan(metaClient, instant.requestedTime());
      for (HoodieCompactionOperation operation : plan.getOperations()) {
        units.add(operation.getPartitionPath() + "/" + operation.getFileId() + "@" + operation.getBaseInstantTime());
      }
    } else {
      Option<Pair<HoodieInstant, HoodieClusteringPlan>> plan = ClusteringUtils.getClusteringPlan(metaClient, instant);
      if (plan.isPresent()) {
        ClusteringUtils.getFileGroupsFromClusteringPlan(plan.get().getRight())
            .forEach(group -> units.add(group.getPartitionPath() + "/" + group.getFileId()));
      }
    }
    return new Entry(kind, instant.requestedTime(), List.copyOf(units), instant.isCompleted());
  }

  /** Completed compactions of a MOR table are {@code commit} instants; their plan stays as {@code .requested}. */
  private static boolean isCompaction(HoodieTableMetaClient metaClient, HoodieInstant instant) {
    if (instant.getAction().equals(HoodieTimeline.COMPACTION_ACTION)) {
      return true;
    }
    return instant.getAction().equals(HoodieTimeline.COMMIT_ACTION) && instant.isCompleted()
        && metaClient.getTableType() == HoodieTableType.MERGE_ON_READ;
  }

  /** Plans of {@code kind} ("compaction" or "clustering") seen completed so far. */
  public long completed(String kind) {
    return plans.values().stream().filter(entry -> entry.kind().equals(kind) && entry.completed()).count();
  }
}
