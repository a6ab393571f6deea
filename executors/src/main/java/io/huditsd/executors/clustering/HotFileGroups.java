package io.huditsd.executors.clustering;

import org.apache.hudi.avro.model.HoodieClusteringPlan;
import org.apache.hudi.common.model.FileSlice;
import org.apache.hudi.common.model.HoodieCommitMetadata;
import org.apache.hudi.common.model.HoodieFileGroupId;
import org.apache.hudi.common.model.HoodieTableType;
import org.apache.hudi.common.model.HoodieWriteStat;
import org.apache.hudi.common.model.WriteOperationType;
import org.apache.hudi.common.table.HoodieTableMetaClient;
import org.apache.hudi.common.table.timeline.HoodieInstant;
import org.apache.hudi.common.table.timeline.HoodieInstantTimeGenerator;
import org.apache.hudi.common.table.timeline.HoodieTimeline;
import org.apache.hudi.common.table.timeline.TimelineUtils;
import org.apache.hudi.common.util.ClusteringUtils;
import org.apache.hudi.config.HoodieWriteConfig;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.text.ParseException;
import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * The file groups that writers wrote recently, which a clustering plan leaves out: those named in the write stats of
 * the last {@code commits} completed writer commits, of every writer commit completed within {@code window}, and of
 * every writer commit still in flight; and file slices whose files were written within {@code window} (see
 * {@link #recentlyWritten}). A clustering of a file group that a writer keeps updating either fails the
 * writer (Hudi's default conflict resolution, Spark's reject-update strategy) or is itself thrown away at commit
 * (see {@code IngestionFirstConflictResolutionStrategy}): planning around hot data avoids both.
 *
 * <p>Writer commits are the timeline's commits, delta commits and replace commits that are not the output of a
 * table service: a MOR table's {@code commit} with operation {@code COMPACT} and a clustering replacecommit are not
 * writers'.
 *
 * @param commits how many of the latest completed writer commits make their file groups hot
 * @param window how long after its completion a writer commit keeps its file groups hot
 */
public record HotFileGroups(int commits, Duration window) {
  private static final Logger LOG = LoggerFactory.getLogger(HotFileGroups.class);

  /** {@code hoodie.clustering.plan.strategy.hot.commits}: the latest completed writer commits whose file groups are hot. */
  public static final String COMMITS_KEY = "hoodie.clustering.plan.strategy.hot.commits";
  public static final int COMMITS_DEFAULT = 10;
  /** {@code hoodie.clustering.plan.strategy.hot.minutes}: writer commits completed this recently make file groups hot. */
  public static final String MINUTES_KEY = "hoodie.clustering.plan.strategy.hot.minutes";
  public static final long MINUTES_DEFAULT = 10;
  /** The key of a clustering plan's extra metadata that says how many file groups were left out as hot. */
  public static final String SKIPPED_METADATA_KEY = "tsd.skippedHotFileGroups";

  public HotFileGroups {
    if (commits < 0) {
      throw new IllegalArgumentException(COMMITS_KEY + " must not be negative, got " + commits);
    }
    Objects.requireNonNull(window, "window is null");
    if (window.isNegative()) {
      throw new IllegalArgumentException(MINUTES_KEY + " must not be negative, got " + window);
    }
  }

  /** How many file groups a clustering plan's planner left out as hot; 0 for plans of other planners. */
  public static int skippedIn(HoodieClusteringPlan plan) {
    Map<String, String> extra = plan == null ? null : plan.getExtraMetadata();
    String skipped = extra == null ? null : extra.get(SKIPPED_METADATA_KEY);
    try {
      return skipped == null ? 0 : Integer.parseInt(skipped);
    } catch (NumberFormatException e) {
      return 0;
    }
  }

  /** The settings in force for a table: its write config's keys, else the defaults above. */
  public static HotFileGroups of(HoodieWriteConfig config) {
    String commits = config.getProps().getProperty(COMMITS_KEY);
    String minutes = config.getProps().getProperty(MINUTES_KEY);
    try {
      return new HotFileGroups(commits == null ? COMMITS_DEFAULT : Integer.parseInt(commits.trim()),
          Duration.ofMinutes(minutes == null ? MINUTES_DEFAULT : Long.parseLong(minutes.trim())));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("Cannot read the hot-data settings of " + config.getBasePath() + ": "
          + COMMITS_KEY + "=" + commits + ", " + MINUTES_KEY + "=" + minutes + " must be whole numbers", e);
    }
  }

  /** Whether nothing is hot (both settings 0): clustering plans as Hudi does. */
  public boolean disabled() {
    return commits == 0 && window.isZero();
  }

  /** The hot file groups of the table as its timeline stands. */
  public Set<HoodieFileGroupId> find(HoodieTableMetaClient metaClient, Instant now) {
    Set<HoodieFileGroupId> hot = new HashSet<>();
    if (disabled()) {
      return hot;
    }
    HoodieTimeline timeline = metaClient.getActiveTimeline();
    boolean mergeOnRead = metaClient.getTableType() == HoodieTableType.MERGE_ON_READ;
    Instant since = now.minus(window);
    int counted = 0;
    List<HoodieInstant> completed = timeline.getCommitsTimeline().filterCompletedInstants()
        .getReverseOrderedInstantsByCompletionTime().toList();
    for (HoodieInstant instant : completed) {
      boolean withinCount = counted < commits;
      boolean withinWindow = !window.isZero() && completedAt(instant).map(at -> !at.isBefore(since)).orElse(false);
      if (!withinCount && !withinWindow) {
        break;
      }
      if (ClusteringUtils.isClusteringInstant(timeline, instant, metaClient.getInstantGenerator())) {
        continue;
      }
      HoodieCommitMetadata metadata = read(instant, timeline);
      if (metadata == null || isTableService(metadata, mergeOnRead, instant)) {
        continue;
      }
      counted++;
      addFileGroups(metadata, hot);
    }
    // A writer in flight is writing into file groups right now; its inflight file names them once its workload is
    // known (Hudi writes the workload profile there before writing data).
    for (HoodieInstant instant : timeline.getCommitsTimeline().filterInflights().getInstants()) {
      if (ClusteringUtils.isClusteringInstant(timeline, instant, metaClient.getInstantGenerator())) {
        continue;
      }
      HoodieCommitMetadata metadata = read(instant, timeline);
      if (metadata != null) {
        addFileGroups(metadata, hot);
      }
    }
    return hot;
  }

  /**
   * Whether a file slice was written within the window, by the instant times in its file names (the base file's
   * and, on table version 8+, each log file's). The timeline alone cannot say for commits already archived (a
   * table that archives often keeps only minutes of commits); a base file that a compaction or clustering wrote
   * counts as written then, which keeps a file group just serviced out of the next plan for the window too.
   */
  public boolean recentlyWritten(FileSlice slice, Instant now) {
    if (window.isZero()) {
      return false;
    }
    String latest = slice.getLatestInstantTime();
    if (latest == null) {
      return false;
    }
    try {
      return !HoodieInstantTimeGenerator.parseDateFromInstantTime(latest).toInstant().isBefore(now.minus(window));
    } catch (ParseException | RuntimeException e) {
      return false;
    }
  }

  private static boolean isTableService(HoodieCommitMetadata metadata, boolean mergeOnRead, HoodieInstant instant) {
    WriteOperationType operation = metadata.getOperationType();
    if (operation == WriteOperationType.COMPACT || operation == WriteOperationType.LOG_COMPACT
        || operation == WriteOperationType.CLUSTER) {
      return true;
    }
    // A MOR table's writers write delta commits; an old compaction commit may carry no operation type.
    return mergeOnRead && HoodieTimeline.COMMIT_ACTION.equals(instant.getAction())
        && (operation == null || operation == WriteOperationType.UNKNOWN);
  }

  private static void addFileGroups(HoodieCommitMetadata metadata, Set<HoodieFileGroupId> hot) {
    for (HoodieWriteStat stat : metadata.getWriteStats()) {
      if (stat.getFileId() != null && !stat.getFileId().isEmpty()) {
        hot.add(new HoodieFileGroupId(stat.getPartitionPath() == null ? "" : stat.getPartitionPath(),
            stat.getFileId()));
      }
    }
  }

  private static HoodieCommitMetadata read(HoodieInstant instant, HoodieTimeline timeline) {
    try {
      return TimelineUtils.getCommitMetadata(instant, timeline);
    } catch (IOException | RuntimeException e) {
      // A requested or just-created inflight has no metadata yet; a corrupt completed instant is reported by polling.
      LOG.debug("No commit metadata in {}: {}", instant, e.toString());
      return null;
    }
  }

  /** When the instant completed; its requested time on timelines without completion times (table version 6). */
  private static Optional<Instant> completedAt(HoodieInstant instant) {
    String time = instant.getCompletionTime() != null ? instant.getCompletionTime() : instant.requestedTime();
    try {
      return Optional.of(HoodieInstantTimeGenerator.parseDateFromInstantTime(time).toInstant());
    } catch (ParseException | RuntimeException e) {
      return Optional.empty();
    }
  }
}
