package io.huditsd.scheduler.view;

import java.time.Instant;
import java.util.Objects;

/**
 * The pending instant that holds a table's clean boundary back: Hudi's clean planner (KEEP_LATEST_COMMITS) never
 * retains past the earliest pending instant, so once more than {@code hoodie.clean.commits.retained} commits have
 * completed after it, the file slices those commits replaced stay on storage until it completes or is rolled back
 * (and archival stops at it too).
 *
 * @param instant the pending instant's requested time
 * @param action its action (deltacommit, commit, compaction, replacecommit, ...)
 * @param requestedAt the instant's requested time as a point in time
 * @param commitsAfter completed commits after it, more than the commits retained
 */
public record CleanBlocker(String instant, String action, Instant requestedAt, int commitsAfter) {
  public CleanBlocker {
    Objects.requireNonNull(instant, "instant is null");
    Objects.requireNonNull(action, "action is null");
    Objects.requireNonNull(requestedAt, "requestedAt is null");
  }
}
