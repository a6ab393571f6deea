package io.huditsd.scheduler;

import io.huditsd.config.ServicedTable;
import io.huditsd.executors.PendingPlan;
import org.apache.hudi.client.HoodieJavaWriteClient;
import org.apache.hudi.common.model.HoodieAvroPayload;
import org.apache.hudi.common.table.HoodieTableMetaClient;
import org.apache.hudi.common.util.Option;
import org.apache.hudi.config.HoodieWriteConfig;

import java.util.Map;
import java.util.Optional;

/**
 * A service whose work is a plan that Hudi writes onto the table's timeline (under the table lock in multi-writer
 * mode) and that a run then executes: compaction, clustering, clean, index. The planner asks a service only while it
 * has no pending plan on the table: Hudi leaves the file groups of an unfinished compaction out of a new one, so
 * planning before the old plan finished would strand the logs written into them.
 */
public sealed interface PlannedService extends TableService
    permits CompactionService, ClusteringService, CleanService, IndexService {

  /** Writes the service's plan with an open write client of the table; the instant, or empty when Hudi wrote none. */
  @FunctionalInterface
  interface Scheduling {
    Option<String> schedule(HoodieJavaWriteClient<HoodieAvroPayload> client);
  }

  /**
   * Whether the service is due on this timeline, as the poll asks: how to write its plan now, or empty. Where Hudi
   * has a trigger for the service this is a cheap pre-check of it on the loaded timeline that only decides whether to
   * open a write client: Hudi evaluates the same trigger again when it schedules, so a plan is written exactly when
   * Hudi's own inline scheduling would write one.
   *
   * @param nowMillis the time the poll runs at, for triggers on elapsed time
   */
  Optional<Scheduling> due(ServicedTable table, HoodieTableMetaClient metaClient, HoodieWriteConfig config,
                           long nowMillis);

  /**
   * How to write a plan now, whatever the trigger says (a request through the REST API): the client then carries
   * {@link #forceNowKeys()}. Empty when there is nothing the service could plan.
   */
  Optional<Scheduling> onRequest(ServicedTable table, HoodieTableMetaClient metaClient);

  /** The trigger settings that make Hudi plan whenever there is anything to plan, for scheduling on request. */
  Map<String, String> forceNowKeys();

  /** Whether failed writes are rolled back before the service is scheduled on request. */
  default boolean rollsBackFailedWritesFirst() {
    return false;
  }

  /** What the "Scheduled" log line adds about a plan just written, after its sizes; empty by default. */
  default String scheduledDetail(ServicedTable table, HoodieTableMetaClient metaClient, PendingPlan plan) {
    return "";
  }
}
