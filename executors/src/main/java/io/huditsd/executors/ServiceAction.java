package io.huditsd.executors;

import io.huditsd.config.ServiceType;
import org.apache.hudi.client.HoodieJavaWriteClient;
import org.apache.hudi.common.model.HoodieAvroPayload;
import org.apache.hudi.common.table.HoodieTableMetaClient;

import java.util.Map;
import java.util.Optional;

/**
 * How one table service's plan runs on Hudi's Java engine: one implementation per service, executed by
 * {@link JavaEngine}. The scheduler's per-service classes ({@code CompactionService}, ...) decide when a plan is due
 * and write it; this is the other half, and the only place that says whether the service's runs keep a heartbeat.
 */
public interface ServiceAction {
  ServiceType service();

  /**
   * Whether a run of this service keeps the plan's heartbeat ({@code .hoodie/.heartbeat/<instant>}) alive while it
   * executes, Hudi's own or the action's. For such a service an inflight plan with a live heartbeat is being executed
   * by some process: {@link PlanRunner} leaves it alone, and the planner plans the table again when the heartbeat
   * expires. A service whose runs keep none must answer false, or an abandoned plan of it would look alive. Every
   * engine that executes the service must keep the heartbeat when this says so.
   */
  boolean keepsHeartbeat();

  /**
   * Whether Hudi rolls back failed writer commits inside this service's run. Hudi's cleaner does (LAZY policy:
   * {@code BaseHoodieTableServiceClient.clean} calls {@code rollbackFailedWrites} first), judging each pending writer
   * commit by the heartbeat window of the client that runs it: such a run gets a client with the writers' window
   * ({@link HudiTables#writeClientJudgingWriters}), not the daemon's plan heartbeat, or a live writer renewing less
   * often than the daemon's plans would be rolled back mid-write. The run's own heartbeats then renew at the writers'
   * interval too, and are judged by the same window.
   */
  default boolean rollsBackFailedWrites() {
    return false;
  }

  /**
   * Keys that the write client executing {@code item} needs on top of the table's own (for clustering, the execution
   * strategy the plan names); none by default.
   *
   * @param metaClient a meta client of the item's table, as the runner loaded it
   */
  default Map<String, String> clientOverrides(WorkItem item, HoodieTableMetaClient metaClient) {
    return Map.of();
  }

  /**
   * Executes the plan at {@code instant} (or, for a service without plans, one round of the service).
   *
   * @param client a write client of the table, configured for the daemon; the caller closes it
   * @return what the execution did; an empty instant when there was nothing to do
   */
  ActionResult execute(HoodieJavaWriteClient<HoodieAvroPayload> client, Optional<String> instant);
}
