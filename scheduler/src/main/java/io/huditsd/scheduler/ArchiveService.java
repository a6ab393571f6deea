package io.huditsd.scheduler;

import io.huditsd.config.ServiceType;
import io.huditsd.config.ServicedTable;
import io.huditsd.executors.ArchiveAction;
import io.huditsd.executors.ServiceAction;
import org.apache.hudi.common.table.HoodieTableMetaClient;
import org.apache.hudi.config.HoodieWriteConfig;

import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Archival: moves completed instants beyond {@code hoodie.keep.max.commits} out of the active timeline.
 *
 * <ul>
 *   <li>Due: past {@code hoodie.keep.max.commits} completed instants, and again only after the timeline grew by the
 *       archival window since the last run ({@link #decide}).</li>
 *   <li>Scheduled: never; archival has no plan on the timeline. A due table gets a work item without an instant.</li>
 *   <li>Run: {@link ArchiveAction}; Hudi decides what to move when it runs, under the table lock.</li>
 * </ul>
 */
public final class ArchiveService implements TableService {
  private final ArchiveAction action = new ArchiveAction();
  /** Completed-instant count of each table when archival was last found due. */
  private final Map<String, Integer> archivedAtCount = new ConcurrentHashMap<>();

  @Override
  public ServiceType type() {
    return ServiceType.ARCHIVE;
  }

  @Override
  public ServiceAction action() {
    return action;
  }

  /** Forgets a table no longer serviced. */
  void forget(String tableId) {
    archivedAtCount.remove(tableId);
  }

  /** The tables with a count of their last archival. */
  Set<String> tables() {
    return Set.copyOf(archivedAtCount.keySet());
  }

  /**
   * Archival is due past {@code hoodie.keep.max.commits}, but Hudi may archive nothing (instants a pending plan or
   * the cleaner still needs). Re-run it only after the timeline grew by the archival window
   * ({@code keep.max - keep.min}) since the last run, not on every commit. {@link ServiceDecision.Reason#SCHEDULED}
   * when a run is to be queued, which counts as a run; else why not.
   */
  ServiceDecision decide(ServicedTable table, HoodieTableMetaClient metaClient, HoodieWriteConfig config) {
    int completed = metaClient.getActiveTimeline().filterCompletedInstants().countInstants();
    if (completed <= config.getMaxCommitsToKeep()) {
      archivedAtCount.remove(table.id());
      return ServiceDecision.of(type(), ServiceDecision.Reason.BELOW_TRIGGER, "below the trigger (" + completed
          + " of more than " + config.getMaxCommitsToKeep() + " completed instants; hoodie.keep.max.commits)");
    }
    int window = Math.max(1, config.getMaxCommitsToKeep() - config.getMinCommitsToKeep());
    Integer last = archivedAtCount.get(table.id());
    if (last != null && completed < last + window) {
      return ServiceDecision.of(type(), ServiceDecision.Reason.BELOW_TRIGGER, "ran at " + last
          + " completed instants; runs again at " + (last + window) + " (now " + completed
          + "; hoodie.keep.max.commits - hoodie.keep.min.commits)");
    }
    archivedAtCount.put(table.id(), completed);
    return ServiceDecision.of(type(), ServiceDecision.Reason.SCHEDULED, "queued: " + completed
        + " completed instants, more than hoodie.keep.max.commits=" + config.getMaxCommitsToKeep());
  }

  /** Whether the active timeline holds more completed instants than {@code hoodie.keep.max.commits}. */
  static boolean pastMaxCommits(HoodieTableMetaClient metaClient, HoodieWriteConfig config) {
    return metaClient.getActiveTimeline().filterCompletedInstants().countInstants() > config.getMaxCommitsToKeep();
  }
}
