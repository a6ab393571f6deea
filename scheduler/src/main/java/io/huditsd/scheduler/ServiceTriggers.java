package io.huditsd.scheduler;

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

/**
 * The daemon's cheap pre-checks of Hudi's own triggers ({@code hoodie.compact.inline.trigger.strategy},
 * {@code hoodie.compact.inline.max.delta.commits}/{@code .seconds}, {@code hoodie.clustering.inline.max.commits},
 * {@code hoodie.keep.max.commits}), evaluated on the already loaded timeline. They only decide whether to open a
 * write client: Hudi evaluates the same trigger again when it schedules, so a plan is written exactly when Hudi's
 * own inline scheduling would write one.
 */
final class ServiceTriggers {
  private ServiceTriggers() {
  }

  static boolean compactionDue(HoodieTableMetaClient metaClient, HoodieWriteConfig config, long nowMillis) {
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
  static boolean compactionTriggerUsesTime(HoodieWriteConfig config) {
    return switch (config.getInlineCompactTriggerStrategy()) {
      case TIME_ELAPSED, NUM_OR_TIME, NUM_AND_TIME -> true;
      default -> false;
    };
  }

  static boolean clusteringDue(HoodieTableMetaClient metaClient, HoodieWriteConfig config) {
    HoodieActiveTimeline timeline = metaClient.getActiveTimeline();
    Option<HoodieInstant> lastClustering = timeline.getLastClusteringInstant();
    int commitsSince = timeline.getCommitsTimeline().filterCompletedInstants()
        .findInstantsAfter(lastClustering.map(HoodieInstant::requestedTime).orElse("0"), Integer.MAX_VALUE)
        .countInstants();
    return commitsSince >= config.getInlineClusterMaxCommits();
  }

  static boolean cleanMayBeDue(HoodieTableMetaClient metaClient) {
    HoodieActiveTimeline timeline = metaClient.getActiveTimeline();
    Option<HoodieInstant> lastClean = timeline.getCleanerTimeline().filterCompletedInstants().lastInstant();
    int commitsSince = timeline.getCommitsTimeline().filterCompletedInstants()
        .findInstantsAfter(lastClean.map(HoodieInstant::requestedTime).orElse("0"), Integer.MAX_VALUE)
        .countInstants();
    return commitsSince > 0;
  }

  static boolean archiveDue(HoodieTableMetaClient metaClient, HoodieWriteConfig config) {
    return metaClient.getActiveTimeline().filterCompletedInstants().countInstants() > config.getMaxCommitsToKeep();
  }
}
