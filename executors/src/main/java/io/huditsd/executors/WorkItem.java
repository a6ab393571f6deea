package io.huditsd.executors;

import io.huditsd.config.ServiceType;
import io.huditsd.config.ServicedTable;

import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * One unit of work for the pool: execute a service on a table, at a plan's instant where the service has plans.
 * Only a service enabled on the table has work ({@link ServicedTable#runs}); callers check before making one.
 *
 * @param table the table
 * @param service the service
 * @param instant the plan's instant; empty for archive
 * @param backlogBytes how much the work relieves (for compaction: log bytes in the plan); larger runs first
 * @param fileGroupIds file groups the plan touches; two items that share one never run at once
 * @param enqueuedAt when the item was first queued; older runs first among equal backlogs
 * @param placement the engine the plan runs on and its heap estimate, decided when it is queued
 *     ({@link ExecutionPlacement})
 */
public record WorkItem(ServicedTable table, ServiceType service, Optional<String> instant, long backlogBytes,
                       Set<String> fileGroupIds, Instant enqueuedAt, Placement placement) {
  public WorkItem {
    Objects.requireNonNull(table, "table is null");
    Objects.requireNonNull(service, "service is null");
    Objects.requireNonNull(instant, "instant is null");
    fileGroupIds = Set.copyOf(fileGroupIds);
    Objects.requireNonNull(enqueuedAt, "enqueuedAt is null");
    Objects.requireNonNull(placement, "placement is null");
    // INVARIANT: no work of a service disabled on the table. Writers that leave a service out of the daemon's hands
    // execute its plans themselves; the poll, REST and the table service manager endpoint all make items here.
    if (!table.runs(service)) {
      throw new IllegalArgumentException("Service " + service.configName() + " is not enabled on table '"
          + table.id() + "'");
    }
  }

  public static WorkItem forPlan(ServicedTable table, PendingPlan plan, Placement placement) {
    return new WorkItem(table, plan.service(), Optional.of(plan.instant()), plan.inputBytes(), plan.fileGroupIds(),
        Instant.now(), placement);
  }

  /** Archival has no plan to size; it runs in the daemon. */
  public static WorkItem forArchive(ServicedTable table) {
    return new WorkItem(table, ServiceType.ARCHIVE, Optional.empty(), 0, Set.of(), Instant.now(),
        Placement.inProcess(HeapEstimate.NONE));
  }

  /** Identity of the work: the same plan is never queued twice. */
  public String key() {
    return table.id() + "/" + service.configName() + "/" + instant.orElse("-");
  }

  /** The {@link #key()} a work item of {@code plan} would have. */
  public static String keyOf(ServicedTable table, PendingPlan plan) {
    return table.id() + "/" + plan.service().configName() + "/" + plan.instant();
  }

  /** At most one item per table and service runs at a time. */
  public String exclusivityKey() {
    return table.id() + "/" + service.configName();
  }

  /** The plan, as log lines and {@code once}'s output name it: table, service and instant. */
  public String describePlan() {
    return "table=" + table.id() + " service=" + service.configName() + " instant=" + instant.orElse("-");
  }

  /** The plan and where it runs, for the pool's and the engines' log lines. */
  public String describe() {
    return describePlan() + " engine=" + placement.engine().configName();
  }
}
