package io.huditsd.scheduler;

import io.huditsd.config.ServiceType;
import io.huditsd.config.ServicedTable;
import io.huditsd.executors.CleanAction;
import io.huditsd.executors.ServiceAction;
import org.apache.hudi.client.HoodieJavaWriteClient;
import org.apache.hudi.common.model.HoodieAvroPayload;
import org.apache.hudi.common.model.HoodieCleaningPolicy;
import org.apache.hudi.common.model.TableServiceType;
import org.apache.hudi.common.table.HoodieTableMetaClient;
import org.apache.hudi.common.table.timeline.HoodieActiveTimeline;
import org.apache.hudi.common.table.timeline.HoodieInstant;
import org.apache.hudi.common.util.Option;
import org.apache.hudi.config.HoodieWriteConfig;
import org.apache.hudi.table.action.clean.CleaningTriggerStrategy;

import java.util.Map;
import java.util.Optional;

/**
 * Clean: deletes the file slices that the table's retention ({@code hoodie.clean.*}) no longer keeps.
 *
 * <ul>
 *   <li>Due: whenever anything was committed since the last clean; Hudi's own trigger
 *       ({@code hoodie.clean.trigger.strategy}, {@code hoodie.clean.max.commits}) decides when it schedules.</li>
 *   <li>Scheduled: {@code scheduleTableService(CLEAN)}. A clean plan never reaches past a failed write (see
 *       {@code FailedWritesRollback}), so failed writes are rolled back first: by every poll, and before a clean
 *       requested through the API.</li>
 *   <li>Run: {@link CleanAction}, which claims every pending clean under the table lock and keeps their heartbeats
 *       (Hudi keeps none, and its cleaner executes every pending clean).</li>
 * </ul>
 */
public final class CleanService implements PlannedService {
  private static final Map<String, String> FORCE_NOW = Map.of(
      "hoodie.clean.trigger.strategy", "NUM_COMMITS", "hoodie.clean.max.commits", "1");

  private final CleanAction action = new CleanAction();

  @Override
  public ServiceType type() {
    return ServiceType.CLEAN;
  }

  @Override
  public ServiceAction action() {
    return action;
  }

  @Override
  public Due due(ServicedTable table, HoodieTableMetaClient metaClient, HoodieWriteConfig config, long nowMillis) {
    return mayBeDue(metaClient) ? Due.yes(CleanService::schedule)
        : new Due.No(ServiceDecision.of(type(), ServiceDecision.Reason.BELOW_TRIGGER,
            "nothing committed since the last clean"));
  }

  /**
   * Hudi's own clean trigger ({@code hoodie.clean.max.commits} commits since the last clean) not reached yet, or no
   * file slice past the retention.
   */
  @Override
  public ServiceDecision nothingPlanned(ServicedTable table, HoodieTableMetaClient metaClient,
                                        HoodieWriteConfig config) {
    int since = commitsSinceLastClean(metaClient);
    if (config.getCleaningTriggerStrategy() == CleaningTriggerStrategy.NUM_COMMITS
        && since < config.getCleanTriggerMaxCommits()) {
      return ServiceDecision.of(type(), ServiceDecision.Reason.BELOW_TRIGGER, "below Hudi's clean trigger (" + since
          + " of " + config.getCleanTriggerMaxCommits() + " commits since the last clean; hoodie.clean.max.commits)");
    }
    HoodieCleaningPolicy policy = config.getCleanerPolicy();
    String retention = switch (policy) {
      case KEEP_LATEST_COMMITS -> "hoodie.clean.commits.retained=" + config.getCleanerCommitsRetained();
      case KEEP_LATEST_FILE_VERSIONS -> "hoodie.clean.fileversions.retained="
          + config.getCleanerFileVersionsRetained();
      case KEEP_LATEST_BY_HOURS -> "hoodie.clean.hours.retained=" + config.getCleanerHoursRetained();
    };
    return ServiceDecision.of(type(), ServiceDecision.Reason.NOTHING_TO_PLAN, "no file slice is past the retention ("
        + "hoodie.clean.policy=" + policy + ", " + retention + "), or a pending instant holds the clean boundary back");
  }

  @Override
  public Optional<Scheduling> onRequest(ServicedTable table, HoodieTableMetaClient metaClient) {
    return Optional.of(CleanService::schedule);
  }

  @Override
  public Map<String, String> forceNowKeys() {
    return FORCE_NOW;
  }

  @Override
  public boolean rollsBackFailedWritesFirst() {
    return true;
  }

  private static Option<String> schedule(HoodieJavaWriteClient<HoodieAvroPayload> client) {
    return client.scheduleTableService(Option.empty(), TableServiceType.CLEAN);
  }

  /** Whether anything was committed since the last completed clean. */
  static boolean mayBeDue(HoodieTableMetaClient metaClient) {
    return commitsSinceLastClean(metaClient) > 0;
  }

  private static int commitsSinceLastClean(HoodieTableMetaClient metaClient) {
    HoodieActiveTimeline timeline = metaClient.getActiveTimeline();
    Option<HoodieInstant> lastClean = timeline.getCleanerTimeline().filterCompletedInstants().lastInstant();
    return timeline.getCommitsTimeline().filterCompletedInstants()
        .findInstantsAfter(lastClean.map(HoodieInstant::requestedTime).orElse("0"), Integer.MAX_VALUE)
        .countInstants();
  }
}
