package io.huditsd.scheduler;

import io.huditsd.config.ServiceType;
import io.huditsd.config.ServicedTable;
import io.huditsd.executors.CompactionAction;
import io.huditsd.executors.ServiceAction;
import org.apache.hudi.client.HoodieJavaWriteClient;
import org.apache.hudi.common.model.HoodieAvroPayload;
import org.apache.hudi.common.model.HoodieTableType;
import org.apache.hudi.common.table.HoodieTableMetaClient;
import org.apache.hudi.common.table.timeline.HoodieActiveTimeline;
import org.apache.hudi.common.table.timeline.HoodieInstant;
import org.apache.hudi.common.table.timeline.HoodieTimeline;
import org.apache.hudi.common.table.timeline.TimelineUtils;
import org.apache.hudi.common.util.CompactionUtils;
import org.apache.hudi.common.util.Option;
import org.apache.hudi.common.util.collection.Pair;
import org.apache.hudi.config.HoodieWriteConfig;
import org.apache.hudi.table.action.compact.CompactionTriggerStrategy;

import java.util.Date;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Compaction of a merge-on-read table: merges the log files of each file group into a new base file.
 *
 * <ul>
 *   <li>Due: by Hudi's trigger ({@code hoodie.compact.inline.trigger.strategy},
 *       {@code hoodie.compact.inline.max.delta.commits} / {@code .max.delta.seconds}), counted from the last
 *       compaction; never on a copy-on-write table.</li>
 *   <li>Scheduled: {@code scheduleCompaction}, Hudi's {@code ScheduleCompactionActionExecutor}, which leaves out file
 *       groups that another pending plan holds.</li>
 *   <li>Run: {@link CompactionAction}; Hudi keeps the plan's heartbeat while it compacts.</li>
 * </ul>
 */
public final class CompactionService implements PlannedService {
  private static final String TRIGGER_STRATEGY_KEY = "hoodie.compact.inline.trigger.strategy";
  private static final String MAX_DELTA_COMMITS_KEY = "hoodie.compact.inline.max.delta.commits";
  private static final String MAX_DELTA_SECONDS_KEY = "hoodie.compact.inline.max.delta.seconds";
  private static final Map<String, String> FORCE_NOW = Map.of(
      TRIGGER_STRATEGY_KEY, "NUM_COMMITS", MAX_DELTA_COMMITS_KEY, "1");

  private final CompactionAction action = new CompactionAction();

  @Override
  public ServiceType type() {
    return ServiceType.COMPACTION;
  }

  @Override
  public ServiceAction action() {
    return action;
  }

  @Override
  public Due due(ServicedTable table, HoodieTableMetaClient metaClient, HoodieWriteConfig config, long nowMillis) {
    Optional<ServiceDecision> notNow = notDue(metaClient, config, nowMillis).or(() -> writerInFlight(metaClient));
    return notNow.<Due>map(Due.No::new).orElseGet(() -> Due.yes(CompactionService::schedule));
  }

  /**
   * Why no compaction may be planned now on a table below version 8: a writer's commit or delta commit is in flight.
   * There Hudi cuts file slices by instant time and a plan takes the log files on storage when it is made, so a
   * writer with an earlier instant still appending to a planned file group writes log blocks the compaction never
   * reads into the slice it replaces: Hudi's conflict resolution (PreferWriter, the ingestion-first strategy) fails
   * that writer's commit (Hudi 0.x's own compaction scheduling refused it for the same reason). From version 8 slices
   * are cut by completion time and the writer's log belongs to the slice the compaction starts. Empty when a plan may
   * be made.
   */
  static Optional<ServiceDecision> writerInFlight(HoodieTableMetaClient metaClient) {
    int version = metaClient.getTableConfig().getTableVersion().versionCode();
    if (version >= 8) {
      return Optional.empty();
    }
    List<String> writers = metaClient.getActiveTimeline().getCommitsTimeline().filterInflightsAndRequested()
        .getInstantsAsStream()
        .filter(instant -> instant.getAction().equals(HoodieTimeline.COMMIT_ACTION)
            || instant.getAction().equals(HoodieTimeline.DELTA_COMMIT_ACTION))
        .map(HoodieInstant::requestedTime).toList();
    if (writers.isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(ServiceDecision.of(ServiceType.COMPACTION, ServiceDecision.Reason.WRITER_IN_FLIGHT,
        "due, but writer commits " + writers + " are in flight on table version " + version + ", where a compaction"
            + " planned now would fail them (file slices are cut by instant time before version 8); planned once"
            + " they complete or are rolled back"));
  }

  /**
   * Hudi's compaction strategy picked no file slice: every file group with log files is under a pending clustering,
   * or none has log files to merge.
   */
  @Override
  public ServiceDecision nothingPlanned(ServicedTable table, HoodieTableMetaClient metaClient,
                                        HoodieWriteConfig config) {
    return ServiceDecision.of(type(), ServiceDecision.Reason.NOTHING_TO_PLAN, "due, but Hudi's compaction strategy ("
        + config.getCompactionStrategy().getClass().getSimpleName() + ", hoodie.compaction.strategy) picked no file"
        + " slice: none has log files outside a pending clustering plan");
  }

  @Override
  public Optional<Scheduling> onRequest(ServicedTable table, HoodieTableMetaClient metaClient) {
    return Optional.of(CompactionService::schedule);
  }

  @Override
  public Map<String, String> forceNowKeys() {
    return FORCE_NOW;
  }

  @Override
  public boolean timeCanMakeDue(HoodieWriteConfig config) {
    return triggerUsesTime(config);
  }

  private static Option<String> schedule(HoodieJavaWriteClient<HoodieAvroPayload> client) {
    return client.scheduleCompaction(Option.empty());
  }

  /** Hudi's compaction trigger, evaluated on the loaded timeline at {@code nowMillis}. */
  static boolean triggerDue(HoodieTableMetaClient metaClient, HoodieWriteConfig config, long nowMillis) {
    return notDue(metaClient, config, nowMillis).isEmpty();
  }

  /** Why Hudi's compaction trigger is not reached on the loaded timeline at {@code nowMillis}; empty when it is. */
  static Optional<ServiceDecision> notDue(HoodieTableMetaClient metaClient, HoodieWriteConfig config,
                                          long nowMillis) {
    if (metaClient.getTableType() != HoodieTableType.MERGE_ON_READ) {
      return Optional.of(ServiceDecision.of(ServiceType.COMPACTION, ServiceDecision.Reason.NOT_APPLICABLE,
          "a copy-on-write table has no log files to compact"));
    }
    HoodieActiveTimeline timeline = metaClient.getActiveTimeline();
    Option<Pair<HoodieTimeline, HoodieInstant>> since =
        CompactionUtils.getCompletedDeltaCommitsSinceLatestCompaction(timeline);
    if (!since.isPresent()) {
      return Optional.of(ServiceDecision.of(ServiceType.COMPACTION, ServiceDecision.Reason.BELOW_TRIGGER,
          "no delta commit since the last compaction"));
    }
    int deltaCommits = since.get().getLeft().countInstants();
    int commitsWanted = config.getInlineCompactDeltaCommitMax();
    boolean enoughCommits = deltaCommits >= commitsWanted;
    Option<Date> last = TimelineUtils.parseDateFromInstantTimeSafely(since.get().getRight().requestedTime());
    long elapsedSeconds = last.isPresent() ? (nowMillis - last.get().getTime()) / 1000 : 0;
    int secondsWanted = config.getInlineCompactDeltaSecondsMax();
    boolean enoughTime = last.isPresent() && deltaCommits > 0 && elapsedSeconds >= secondsWanted;
    CompactionTriggerStrategy strategy = config.getInlineCompactTriggerStrategy();
    boolean due = switch (strategy) {
      case NUM_COMMITS, NUM_COMMITS_AFTER_LAST_REQUEST -> enoughCommits;
      case TIME_ELAPSED -> enoughTime;
      case NUM_OR_TIME -> enoughCommits || enoughTime;
      case NUM_AND_TIME -> enoughCommits && enoughTime;
    };
    if (due) {
      return Optional.empty();
    }
    String commits = deltaCommits + " of " + commitsWanted + " delta commits since the last compaction";
    String time = elapsedSeconds + " of " + secondsWanted + " s since it";
    String figures = switch (strategy) {
      case NUM_COMMITS, NUM_COMMITS_AFTER_LAST_REQUEST -> commits + "; " + MAX_DELTA_COMMITS_KEY;
      case TIME_ELAPSED -> time + "; " + MAX_DELTA_SECONDS_KEY;
      case NUM_OR_TIME, NUM_AND_TIME -> commits + ", " + time + "; " + MAX_DELTA_COMMITS_KEY + ", "
          + MAX_DELTA_SECONDS_KEY;
    };
    return Optional.of(ServiceDecision.of(ServiceType.COMPACTION, ServiceDecision.Reason.BELOW_TRIGGER,
        "below the trigger (" + figures + ", " + TRIGGER_STRATEGY_KEY + "=" + strategy + ")"));
  }

  /** Whether time alone can make compaction due, so a poll must evaluate it even when nothing changed. */
  static boolean triggerUsesTime(HoodieWriteConfig config) {
    return switch (config.getInlineCompactTriggerStrategy()) {
      case TIME_ELAPSED, NUM_OR_TIME, NUM_AND_TIME -> true;
      default -> false;
    };
  }
}
