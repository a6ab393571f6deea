package io.huditsd.scheduler;

import io.huditsd.config.ServiceType;
import io.huditsd.config.ServicedTable;
import io.huditsd.executors.CleanInflightPlans;
import io.huditsd.executors.FailedWrites;
import io.huditsd.executors.HudiTables;
import io.huditsd.scheduler.view.BacklogReader;
import io.huditsd.scheduler.view.TableBacklog;
import org.apache.hadoop.conf.Configuration;
import org.apache.hudi.common.table.HoodieTableMetaClient;
import org.apache.hudi.config.HoodieWriteConfig;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Predicate;

/**
 * One poll of one table. Cheap when nothing changed: one listing of the timeline folder compared with the last
 * one ({@code hoodie.properties} is read as well when the listing changed, and on every
 * {@value #PROPERTIES_RECHECK_POLLS}th poll; on every poll where its status costs no request); the meta client is reloaded and policies evaluated only on change (or, against the timeline already loaded,
 * on every poll for time-based compaction triggers and once the live heartbeat of a pending plan that another
 * process holds has expired). On a change the instant files that are new since are read with Hudi's own
 * deserializers ({@link io.huditsd.executors.InstantFileCheck}); one that Hudi cannot read fails the poll, naming the
 * file. A failing poll is recorded and the table is retried after a backoff that doubles per failure up to
 * {@code maxBackoff}.
 *
 * <p>A poll reads the table's last {@link PollResult} when it starts and publishes the next one, whole, when it
 * ends ({@link TableState}); a failed poll keeps the table as the last successful one read it, so the next poll
 * compares against that and retries what failed.
 */
public final class TablePoller {
  private static final Logger LOG = LoggerFactory.getLogger(TablePoller.class);
  /** An idle table reads {@code hoodie.properties} on every this many polls; one LIST on the others. */
  static final int PROPERTIES_RECHECK_POLLS = 10;

  private final HudiTables tables;
  private final Configuration hadoopConfiguration;
  private final DuePlanner planner;
  private final Duration maxBackoff;
  private final Optional<BacklogReader> backlogReader;
  private final PollObserver observer;
  private final Predicate<String> owned;
  private final Clock clock;

  /** Whether changed polls compute the table's backlog figures, which only REST, metrics and the console read. */
  public enum Backlog {
    READ,
    /** A one-shot pass serves none of them and saves a file-system view and a clean planning per changed poll. */
    SKIPPED
  }

  /**
   * @param backlog whether changed polls read the table's backlog figures
   * @param observer told about every poll ({@link PollObserver#NONE} when nobody listens)
   * @param owned whether this replica owns a table; tables owned by other replicas are not polled (their owner
   *     polls, schedules and executes them). A replica alone owns every table: {@code tableId -> true}
   * @param clock the time polls, changes and backoffs are recorded in
   */
  public TablePoller(HudiTables tables, Configuration hadoopConfiguration, DuePlanner planner, Duration maxBackoff,
                     Backlog backlog, PollObserver observer, Predicate<String> owned, Clock clock) {
    this.tables = Objects.requireNonNull(tables, "tables is null");
    this.hadoopConfiguration = Objects.requireNonNull(hadoopConfiguration, "hadoopConfiguration is null");
    this.planner = Objects.requireNonNull(planner, "planner is null");
    this.maxBackoff = Objects.requireNonNull(maxBackoff, "maxBackoff is null");
    this.backlogReader = Objects.requireNonNull(backlog, "backlog is null") == Backlog.READ
        ? Optional.of(new BacklogReader(tables.engineContext())) : Optional.empty();
    this.observer = Objects.requireNonNull(observer, "observer is null");
    this.owned = Objects.requireNonNull(owned, "owned is null");
    this.clock = Objects.requireNonNull(clock, "clock is null");
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
    Instant now = clock.instant();
    if (!owned.test(state.table().id())) {
      return Result.NOT_OWNED;
    }
    PollResult last = state.polled();
    if (!force && now.isBefore(last.failures().nextAttempt())) {
      return Result.IN_BACKOFF;
    }
    long start = System.nanoTime();
    Result result = pollNow(state, last, force, now);
    observer.polled(state.table().id(), result, Duration.ofNanos(System.nanoTime() - start));
    return result;
  }

  /** Polls from {@code last} and publishes the next result, whole, once the poll is done. */
  private Result pollNow(TableState state, PollResult last, boolean force, Instant now) {
    // Read before the timeline is: a request made from now on is served by the next poll, not lost in this one.
    long replanRequests = state.replanRequests();
    String basePath = state.table().basePath();
    Optional<PollResult.LoadedTable> known = last.table();
    TimelineFingerprint fingerprint;
    TimelineLocation location;
    boolean propertiesRead;
    try {
      location = known.isPresent() ? known.get().location()
          : TimelineLocation.resolve(hadoopConfiguration, basePath, basePath + "/.hoodie");
      TimelineFingerprint.Listing listing;
      try {
        listing = location.list();
      } catch (IOException e) {
        if (known.isEmpty()) {
          throw e;
        }
        // The file system held may have been closed under us (FileSystem.close on Hadoop's cached instance, by
        // any user of it): list once more through the one Hadoop hands out now, which is kept if it works. A
        // table that is gone fails here as before.
        location = location.resolvedAgain(hadoopConfiguration);
        listing = location.list();
      }
      // hoodie.properties only when the listing moved or a recheck is due: an idle poll is then one LIST on an
      // object store. Hudi rewrites hoodie.properties together with timeline changes (an upgrade moves or adds
      // instants, metadata partitions change within a commit); the recheck bounds how late a change made without
      // one (a CLI edit, a damaged file) is seen. Where its status costs no request (a local file system: one stat),
      // it is read on every poll, so such a change is seen on the next one. Before table version 8 the listing of
      // .hoodie holds it anyway (TimelineFingerprint.digest); from 8 on the timeline folder does not, and listing
      // .hoodie as well would be a second LIST per idle poll on an object store, and a HEAD a billed request too.
      propertiesRead = known.isEmpty() || !listing.equals(known.get().fingerprint().listing())
          || !now.isBefore(known.get().propertiesCheckedAt().plus(propertiesRecheck(state)));
      long propertiesStamp = propertiesRead || location.statusIsFree()
          ? location.propertiesStamp()
          : known.get().fingerprint().propertiesStamp();
      fingerprint = TimelineFingerprint.of(listing, propertiesStamp);
    } catch (Exception | LinkageError e) {
      // The timeline could not even be listed: the table counts as not polled.
      return recordFailure(state, last, last.lastPoll(), now, e);
    }
    try {
      boolean replan = replanRequests != last.replansServed();
      boolean changed = force || replan || known.isEmpty() || !fingerprint.equals(known.get().fingerprint());
      Instant propertiesCheckedAt = propertiesRead ? now : known.get().propertiesCheckedAt();
      boolean recheckDue = last.recheckAt().filter(at -> !now.isBefore(at)).isPresent();
      if (!changed && !last.timeTriggered() && !recheckDue) {
        logRecovery(state, last);
        // An idle poll allocates no new LoadedTable unless something in it moved.
        boolean same = !propertiesRead && location == known.get().location();
        state.publish(same ? last.unchanged(now) : last.unchanged(now, propertiesCheckedAt, location));
        return Result.UNCHANGED;
      }
      // Not changed implies known: the first poll always counts as a change.
      HoodieTableMetaClient metaClient = changed ? TableProbe.load(tables, basePath) : known.get().metaClient();
      TableProbe.requireSupportedVersion(metaClient);
      if (known.isEmpty()) {
        // Empty .clean.inflight files an earlier run of the daemon (or of Hudi 1.x) left on a version-6 table fail
        // that table's 0.14/0.15 writers once they archive the clean: rewritten once per table and process, after
        // that by every run (PlanRunner).
        CleanInflightPlans.repair(metaClient);
      }
      // The first poll lists .hoodie; later ones the version's own timeline folder, which a version change moves
      // (.hoodie before 8, .hoodie/timeline from 8).
      location = location(basePath, metaClient, location);
      if (known.isEmpty()) {
        // The first poll listed .hoodie; its fingerprint is of the version's own timeline folder. Read before
        // planning, as every poll's is: what another process writes meanwhile is a change for the next poll.
        fingerprint = location.read();
      }
      if (changed) {
        TableProbe.requireReadableInstants(tables.instantFiles(), metaClient);
      }
      // Unchanged timeline: the write config built at the last change still holds where it was kept (a
      // time-triggered table); a recheck or a replan builds it again from the same meta client.
      HoodieWriteConfig config = changed || known.get().writeConfig().isEmpty()
          ? tables.writeConfig(state.table(), metaClient)
          : known.get().writeConfig().get();
      boolean timeTriggered = last.timeTriggered();
      Optional<Instant> recheckAt = last.recheckAt();
      FailedWrites failedWrites = last.failedWrites();
      Map<ServiceType, ServiceDecision> decisions = last.decisions();
      // Loading the table can take seconds; a table handed to another replica meanwhile is planned by it.
      if (state.isPaused()) {
        decisions = ServiceDecision.forEveryService(state.table(), ServiceDecision.Reason.PAUSED,
            "the table is paused (POST .../resume resumes it)");
      } else if (owned.test(state.table().id())) {
        DuePlanner.Outcome outcome = planner.planAndEnqueue(state.table(), metaClient, config);
        timeTriggered = outcome.timeTriggered();
        recheckAt = outcome.recheckAt();
        failedWrites = outcome.failedWrites();
        decisions = outcome.decisions();
        if (!outcome.scheduledInstants().isEmpty()) {
          observer.scheduled(state.table().id(), outcome.scheduledInstants());
          // Our own plans changed the timeline; they are already enqueued, so they alone are no change.
          fingerprint = location.afterOwnPlans(fingerprint, outcome.scheduledInstants());
        }
      }
      Optional<TableBacklog> backlog = changed
          ? backlogReader.map(reader -> reader.read(metaClient, config))
          : last.backlog();
      logRecovery(state, last);
      // Only a time-triggered table plans on unchanged polls with the config; others drop it (see LoadedTable).
      Optional<HoodieWriteConfig> kept = timeTriggered ? Optional.of(config) : Optional.empty();
      state.publish(new PollResult(Optional.of(new PollResult.LoadedTable(fingerprint, metaClient, kept, location,
              propertiesCheckedAt)),
          Optional.of(now), changed ? Optional.of(now) : last.lastChange(), timeTriggered, recheckAt, failedWrites,
          backlog, PollResult.Failures.NONE, replanRequests, decisions));
      logChangedDecisions(state.table(), last.decisions(), decisions);
      return Result.PLANNED;
    } catch (Exception | LinkageError e) {
      return recordFailure(state, last, Optional.of(now), now, e);
    }
  }

  /** How often an idle table's {@code hoodie.properties} is read again: every {@value #PROPERTIES_RECHECK_POLLS}th poll. */
  private static Duration propertiesRecheck(TableState state) {
    return state.table().pollInterval().multipliedBy(PROPERTIES_RECHECK_POLLS);
  }

  /** {@code current} when it already lists the meta client's timeline folder; resolved anew otherwise. */
  private TimelineLocation location(String basePath, HoodieTableMetaClient metaClient, TimelineLocation current)
      throws IOException {
    String timelinePath = metaClient.getTimelinePath().toString();
    return current.timeline().toString().equals(timelinePath) ? current
        : TimelineLocation.resolve(hadoopConfiguration, basePath, timelinePath);
  }

  /**
   * One line per service whose decision changed since the last planning round: by reason, not by message, so a
   * trigger counting up ("2 of 5 delta commits", "3 of 5") says it once, not on every poll. A plan written is logged
   * by the planner's own "Scheduled" line; a service the table does not run is not worth a line.
   */
  private static void logChangedDecisions(ServicedTable table, Map<ServiceType, ServiceDecision> before,
                                          Map<ServiceType, ServiceDecision> now) {
    for (ServiceDecision decision : now.values()) {
      ServiceDecision previous = before.get(decision.service());
      if (decision.scheduledNothing() && (previous == null || previous.reason() != decision.reason())) {
        LOG.info("Nothing scheduled {}", decision.line(table.id()));
      }
    }
  }

  private static void logRecovery(TableState state, PollResult last) {
    if (last.failures().count() > 0) {
      LOG.info("Table {} ({}) polls again after {} failures", state.table().id(), state.table().basePath(),
          last.failures().count());
    }
  }

  private Result recordFailure(TableState state, PollResult last, Optional<Instant> polledAt, Instant now,
                               Throwable error) {
    int failures = last.failures().count() + 1;
    Duration backoff = state.table().pollInterval().multipliedBy(1L << Math.min(16, failures));
    if (backoff.compareTo(maxBackoff) > 0) {
      backoff = maxBackoff;
    }
    String message = error instanceof TableProblem ? error.getMessage()
        : state.table().basePath() + ": " + error.getClass().getSimpleName() + ": " + error.getMessage();
    state.publish(last.failed(polledAt, new PollResult.Failures(failures, now.plus(backoff), Optional.of(message))));
    // A stack trace only for the first failure in a row; repeats would flood the log.
    if (failures == 1) {
      LOG.warn("Poll failed for table {}: {}; retrying in {}s", state.table().id(), message, backoff.toSeconds(),
          error);
    } else {
      LOG.warn("Poll failed for table {} ({} in a row): {}; retrying in {}s", state.table().id(), failures, message,
          backoff.toSeconds());
    }
    return Result.FAILED;
  }
}
