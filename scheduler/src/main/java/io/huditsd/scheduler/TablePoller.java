package io.huditsd.scheduler;

import io.huditsd.executors.HudiTables;
import org.apache.hadoop.conf.Configuration;
import io.huditsd.scheduler.view.BacklogReader;
import org.apache.hudi.common.table.HoodieTableMetaClient;
import org.apache.hudi.config.HoodieWriteConfig;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.function.Predicate;

/**
 * One poll of one table. Cheap when nothing changed: one listing of the timeline folder compared with the last
 * one; the meta client is reloaded and policies evaluated only on change (or, against the timeline already loaded,
 * on every poll for time-based compaction triggers and once the live heartbeat of a pending plan that another
 * process holds has expired). On a change the instant files that are new since are read with Hudi's own
 * deserializers ({@link io.huditsd.executors.InstantFileCheck}); one that Hudi cannot read fails the poll, naming the
 * file. A failing poll is recorded and the table is retried after a backoff that doubles per failure up to
 * {@code maxBackoff}.
 */
public final class TablePoller {
  private static final Logger LOG = LoggerFactory.getLogger(TablePoller.class);

  private final HudiTables tables;
  private final Configuration hadoopConfiguration;
  private final DuePlanner planner;
  private final Duration maxBackoff;
  private final BacklogReader backlogReader;
  private final PollObserver observer;
  private final Predicate<String> owned;

  public TablePoller(HudiTables tables, Configuration hadoopConfiguration, DuePlanner planner, Duration maxBackoff) {
    this(tables, hadoopConfiguration, planner, maxBackoff, PollObserver.NONE);
  }

  public TablePoller(HudiTables tables, Configuration hadoopConfiguration, DuePlanner planner, Duration maxBackoff,
                     PollObserver observer) {
    this(tables, hadoopConfiguration, planner, maxBackoff, observer, tableId -> true);
  }

  /**
   * @param owned whether this replica owns a table; tables owned by other replicas are not polled (their owner
   *     polls, schedules and executes them)
   */
  public TablePoller(HudiTables tables, Configuration hadoopConfiguration, DuePlanner planner, Duration maxBackoff,
                     PollObserver observer, Predicate<String> owned) {
    this.owned = Objects.requireNonNull(owned, "owned is null");
    this.tables = Objects.requireNonNull(tables, "tables is null");
    this.hadoopConfiguration = Objects.requireNonNull(hadoopConfiguration, "hadoopConfiguration is null");
    this.planner = Objects.requireNonNull(planner, "planner is null");
    this.maxBackoff = Objects.requireNonNull(maxBackoff, "maxBackoff is null");
    this.backlogReader = new BacklogReader(tables.engineContext());
    this.observer = Objects.requireNonNull(observer, "observer is null");
  }

  /** Result of a poll. */
  public enum Result {
    UNCHANGED,
    PLANNED,
    NOT_OWNED,
    IN_BACKOFF,
    FAILED
  }

  public Result poll(TableState state, boolean force) {
    Instant now = Instant.now();
    if (!owned.test(state.table.id())) {
      return Result.NOT_OWNED;
    }
    if (!force && now.isBefore(state.nextAttempt)) {
      return Result.IN_BACKOFF;
    }
    long start = System.nanoTime();
    Result result = pollNow(state, force, now);
    observer.polled(state.table.id(), result, Duration.ofNanos(System.nanoTime() - start));
    return result;
  }

  private Result pollNow(TableState state, boolean force, Instant now) {
    String basePath = state.table.basePath();
    try {
      HoodieTableMetaClient known = state.metaClient;
      String timelinePath = known == null ? basePath + "/.hoodie" : known.getTimelinePath().toString();
      TimelineFingerprint fingerprint = TimelineFingerprint.read(hadoopConfiguration, basePath, timelinePath);
      boolean changed = force || known == null || !fingerprint.equals(state.fingerprint);
      state.lastPoll = now;
      boolean recheckDue = state.recheckAt != null && !now.isBefore(state.recheckAt);
      if (!changed && !state.timeTriggered && !recheckDue) {
        recordSuccess(state);
        return Result.UNCHANGED;
      }
      HoodieTableMetaClient metaClient = changed ? tables.metaClient(basePath) : known;
      TableProbe.requireSupportedVersion(metaClient);
      if (changed) {
        TableProbe.requireReadableInstants(tables.instantFiles(), metaClient);
        state.lastChange = now;
      }
      state.metaClient = metaClient;
      // Unchanged timeline (a time-trigger poll): the write config built at the last change still holds.
      HoodieWriteConfig config = changed || state.writeConfig == null
          ? tables.writeConfig(state.table, metaClient) : state.writeConfig;
      state.writeConfig = config;
      // Loading the table can take seconds; a table handed to another replica meanwhile is planned by it.
      if (!state.paused && owned.test(state.table.id())) {
        DuePlanner.Outcome outcome = planner.planAndEnqueue(state.table, metaClient, config);
        state.timeTriggered = outcome.timeTriggered();
        state.recheckAt = outcome.recheckAt().orElse(null);
        state.failedWrites = outcome.failedWrites();
        if (!outcome.scheduledInstants().isEmpty()) {
          // Our own plans changed the timeline; they are already enqueued.
          fingerprint = TimelineFingerprint.read(hadoopConfiguration, basePath, metaClient.getTimelinePath().toString());
        }
      }
      // The first poll of a table reads .hoodie; later ones read the version's own timeline folder.
      if (known == null) {
        fingerprint = TimelineFingerprint.read(hadoopConfiguration, basePath, metaClient.getTimelinePath().toString());
      }
      state.fingerprint = fingerprint;
      if (changed) {
        state.backlog = backlogReader.read(metaClient, config.getParquetSmallFileLimit(),
            config.getCleanerCommitsRetained());
      }
      recordSuccess(state);
      return Result.PLANNED;
    } catch (Exception | LinkageError e) {
      recordFailure(state, now, e);
      return Result.FAILED;
    }
  }

  private static void recordSuccess(TableState state) {
    if (state.consecutiveFailures > 0) {
      LOG.info("Table {} ({}) polls again after {} failures", state.table.id(), state.table.basePath(),
          state.consecutiveFailures);
    }
    state.consecutiveFailures = 0;
    state.lastError = null;
    state.nextAttempt = Instant.MIN;
  }

  private void recordFailure(TableState state, Instant now, Throwable error) {
    int failures = ++state.consecutiveFailures;
    Duration backoff = state.table.pollInterval().multipliedBy(1L << Math.min(16, failures));
    if (backoff.compareTo(maxBackoff) > 0) {
      backoff = maxBackoff;
    }
    state.nextAttempt = now.plus(backoff);
    String message = error instanceof TableProblem ? error.getMessage()
        : state.table.basePath() + ": " + error.getClass().getSimpleName() + ": " + error.getMessage();
    state.lastError = message;
    // A stack trace only for the first failure in a row; repeats would flood the log.
    if (failures == 1) {
      LOG.warn("Poll failed for table {}: {}; retrying in {}s", state.table.id(), message, backoff.toSeconds(), error);
    } else {
      LOG.warn("Poll failed for table {} ({} in a row): {}; retrying in {}s", state.table.id(), failures, message,
          backoff.toSeconds());
    }
  }
}
