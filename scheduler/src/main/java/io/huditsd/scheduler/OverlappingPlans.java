package io.huditsd.scheduler;

import io.huditsd.config.ServiceType;
import io.huditsd.executors.PendingPlan;
import io.huditsd.executors.TableLock;
import org.apache.hudi.common.table.HoodieTableMetaClient;
import org.apache.hudi.common.table.timeline.HoodieInstant;
import org.apache.hudi.config.HoodieWriteConfig;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Pending compaction and clustering plans that share a file group with an earlier pending plan. Under a lock that
 * excludes every process Hudi never writes one (it plans only file groups no pending plan holds, with the timeline
 * read inside the lock), but a lock that does not (an explicit {@code InProcessLockProvider} with a second process)
 * lets two processes plan the same file groups. The later plan was built on the slices the earlier one compacts or
 * rewrites: executing it as well writes a second base file per file group, without the logs the earlier plan's
 * slice took in, and readers lose those updates. It must never run.
 */
final class OverlappingPlans {
  private static final Set<ServiceType> FILE_GROUP_SERVICES = EnumSet.of(ServiceType.COMPACTION,
      ServiceType.CLUSTERING);

  private OverlappingPlans() {
  }

  /**
   * Every pending plan that shares a file group with a plan of an earlier instant, with the instants of those
   * earlier plans; the earliest plan of a file group is never in it.
   */
  static Map<String, List<String>> later(List<PendingPlan> pending) {
    List<PendingPlan> plans = pending.stream()
        .filter(plan -> FILE_GROUP_SERVICES.contains(plan.service()))
        .sorted(Comparator.comparing(PendingPlan::instant))
        .toList();
    Map<String, List<String>> later = new LinkedHashMap<>();
    for (int i = 0; i < plans.size(); i++) {
      PendingPlan plan = plans.get(i);
      List<String> earlier = new ArrayList<>();
      for (int j = 0; j < i; j++) {
        PendingPlan other = plans.get(j);
        if (other.fileGroupIds().stream().anyMatch(plan.fileGroupIds()::contains)) {
          earlier.add(other.instant());
        }
      }
      if (!earlier.isEmpty()) {
        later.put(plan.instant(), List.copyOf(earlier));
      }
    }
    return later;
  }

  /**
   * Deletes the requested plan {@code instant} under the table lock, so that no process executes it; a plan whose
   * execution has started (inflight) is left alone, since its rollback belongs to whoever executes it.
   *
   * @return whether the plan was removed
   */
  static boolean withdraw(HoodieWriteConfig config, HoodieTableMetaClient metaClient, String instant) {
    return TableLock.underTableLock(config, metaClient, fresh -> {
      Optional<HoodieInstant> requested = fresh.getActiveTimeline().filterPendingReplaceOrClusteringTimeline()
          .getInstantsAsStream()
          .filter(candidate -> candidate.requestedTime().equals(instant))
          .findFirst()
          .or(() -> fresh.getActiveTimeline().filterPendingCompactionTimeline().getInstantsAsStream()
              .filter(candidate -> candidate.requestedTime().equals(instant))
              .findFirst());
      if (requested.isEmpty() || !requested.get().isRequested()) {
        return false;
      }
      fresh.getActiveTimeline().deletePending(requested.get());
      return true;
    });
  }
}
