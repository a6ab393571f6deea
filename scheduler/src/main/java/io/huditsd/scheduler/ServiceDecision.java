package io.huditsd.scheduler;

import io.huditsd.config.ServiceType;
import io.huditsd.config.ServicedTable;

import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * What the last planning round decided for one service of a table, and why, in one line an operator can act on:
 * the message names the figures behind the decision and the keys that change it. A round that schedules nothing
 * says so here rather than only in a debug log, so {@code once}, REST, the console and the log can all tell "not due
 * yet" from "due, but every file group was left out".
 *
 * @param service the service decided on
 * @param reason what was decided, as a code scripts can match
 * @param message the decision for a person: figures and the keys that change it
 */
public record ServiceDecision(ServiceType service, Reason reason, String message) {
  public ServiceDecision {
    Objects.requireNonNull(service, "service is null");
    Objects.requireNonNull(reason, "reason is null");
    Objects.requireNonNull(message, "message is null");
  }

  /** What a round decided for a service. */
  public enum Reason {
    /** A plan was written (or, for archival, a run queued). */
    SCHEDULED,
    /** The service is not among the table's services. */
    DISABLED,
    /** The table is paused: nothing is scheduled or executed. */
    PAUSED,
    /** The service does not apply to the table (compaction of a copy-on-write table). */
    NOT_APPLICABLE,
    /** The service already has a pending plan, which runs first. */
    PENDING_PLAN,
    /** Hudi's trigger for the service is not reached yet. */
    BELOW_TRIGGER,
    /** Due, but every file group the service could plan was written recently and left out as hot. */
    HOT_FILE_GROUPS,
    /** Due, but every candidate file group is under another pending plan. */
    UNDER_PENDING_PLAN,
    /**
     * Due, but a writer commit is in flight on a table below version 8, where a compaction planned now would conflict
     * with it.
     */
    WRITER_IN_FLIGHT,
    /** Due, but no file is below the small-file limit. */
    NO_SMALL_FILES,
    /** Due, and Hudi looked, but found nothing to plan. */
    NOTHING_TO_PLAN,
    /** The clean (or archival) waits for the table's compaction or clustering running here; the next poll plans it. */
    DEFERRED,
    /** An index build failed recently and is retried later. */
    BACKING_OFF,
    /** The plan just written shared file groups with an earlier pending plan and was withdrawn. */
    WITHDRAWN,
    /**
     * A writer commit is pending without a heartbeat: its writer runs outside Hudi's multi-writer mode, and nothing
     * is scheduled or executed beside it.
     */
    SINGLE_WRITER;

    /** The reason as JSON and REST name it: {@code below-trigger}, {@code hot-file-groups}, ... */
    public String code() {
      return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }
  }

  static ServiceDecision of(ServiceType service, Reason reason, String message) {
    return new ServiceDecision(service, reason, message);
  }

  /**
   * One decision for every service the table runs, for a reason that holds for the whole table (paused, a writer
   * outside multi-writer mode); the services it does not run are {@link Reason#DISABLED}.
   */
  static Map<ServiceType, ServiceDecision> forEveryService(ServicedTable table, Reason reason, String message) {
    Map<ServiceType, ServiceDecision> decisions = new EnumMap<>(ServiceType.class);
    for (ServiceType type : ServiceType.values()) {
      decisions.put(type, table.runs(type) ? of(type, reason, message) : DuePlanner.disabled(type));
    }
    return decisions;
  }

  /** Whether the round scheduled nothing for the service although the table runs it. */
  public boolean scheduledNothing() {
    return reason != Reason.SCHEDULED && reason != Reason.DISABLED;
  }

  /** The decision as one log or console line of {@code table}. */
  public String line(String tableId) {
    return "table=" + tableId + " service=" + service.configName() + " decision=" + reason.code() + ": " + message;
  }
}
