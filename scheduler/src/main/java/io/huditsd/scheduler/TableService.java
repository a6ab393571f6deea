package io.huditsd.scheduler;

import io.huditsd.config.ServiceType;
import io.huditsd.executors.ServiceAction;
import org.apache.hudi.config.HoodieWriteConfig;

/**
 * One table service of the daemon, with every rule of it in one class: when it is due on a table's timeline, how it
 * is scheduled (and with which keys on request), whether its runs keep a heartbeat, and the action that runs it. The
 * services with plans on the timeline are {@link PlannedService}s; archival, which has none, is the
 * {@link ArchiveService}. {@link DuePlanner} loops over them ({@link TableServices}) and knows none by name.
 *
 * <p>The run half lives in the executors module (this module's dependency): {@link #action()} is the service's
 * {@link ServiceAction}, which the worker pool's {@code PlanRunner} executes on an engine, and which alone says
 * whether runs keep a heartbeat.
 */
public sealed interface TableService permits PlannedService, ArchiveService {
  ServiceType type();

  /** How the service's plan runs (on Hudi's Java engine today). */
  ServiceAction action();

  /**
   * Whether a run keeps the plan's heartbeat alive, so that an inflight plan with a live heartbeat is left to the
   * process running it and the table is planned again when that heartbeat expires. Said by the action, which keeps
   * it (or not).
   */
  default boolean keepsHeartbeat() {
    return action().keepsHeartbeat();
  }

  /** Whether elapsed time alone can make the service due, so a poll must ask even when the timeline did not change. */
  default boolean timeCanMakeDue(HoodieWriteConfig config) {
    return false;
  }
}
