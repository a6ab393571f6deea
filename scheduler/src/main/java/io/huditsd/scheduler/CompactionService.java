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

import java.util.Date;
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
  private static final Map<String, String> FORCE_NOW = Map.of(
      "hoodie.compact.inline.trigger.strategy", "NUM_COMMITS", "hoodie.compact.inline.max.delta.commits", "1");

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
  public Optional<Scheduling> due(ServicedTable table, HoodieTableMetaClient metaClient, HoodieWriteConfig config,
                                  long nowMillis) {
    return triggerDue(metaClient, config, nowMillis) ? Optional.of(CompactionService::schedule) : Optional.empty();
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
    if (metaClient.getTableType() != HoodieTableType.MERGE_ON_READ) {
      return false;
    }
    HoodieActiveTimeline timeline = metaClient.getActiveTimeline();
    Option<Pair<HoodieTimeline, HoodieInstant>> since =
        CompactionUtils.getCompletedDeltaCommitsSinceLatestCompaction(timeline);
    if (!since.isPresent()) {
      return false;
    }
    int deltaCommits = since.get().getLeft().countInstants();
    boolean enoughCommits = deltaCommits >= config.getInlineCompactDeltaCommitMax();
    Option<Date> last = TimelineUtils.parseDateFromInstantTimeSafely(since.get().getRight().requestedTime());
    boolean enoughTime = last.isPresent() && deltaCommits > 0
        && (nowMillis - last.get().getTime()) / 1000 >= config.getInlineCompactDeltaSecondsMax();
    return switch (config.getInlineCompactTriggerStrategy()) {
      case NUM_COMMITS, NUM_COMMITS_AFTER_LAST_REQUEST -> enoughCommits;
      case TIME_ELAPSED -> enoughTime;
      case NUM_OR_TIME -> enoughCommits || enoughTime;
      case NUM_AND_TIME -> enoughCommits && enoughTime;
    };
  }

  /** Whether time alone can make compaction due, so a poll must evaluate it even when nothing changed. */
  static boolean triggerUsesTime(HoodieWriteConfig config) {
    return switch (config.getInlineCompactTriggerStrategy()) {
      case TIME_ELAPSED, NUM_OR_TIME, NUM_AND_TIME -> true;
      default -> false;
    };
  }
}
