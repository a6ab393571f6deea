package io.huditsd.scheduler;

import io.huditsd.config.ServicedTable;
import io.huditsd.executors.PendingPlan;
import org.apache.hudi.client.HoodieJavaWriteClient;
import org.apache.hudi.common.model.HoodieAvroPayload;
import org.apache.hudi.common.table.HoodieTableMetaClient;
import org.apache.hudi.common.util.Option;
import org.apache.hudi.config.HoodieWriteConfig;

import java.util.Map;
import java.util.Objects;
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

  /** Whether a service is due: how to write its plan, or why it is not due. */
  sealed interface Due permits Due.Yes, Due.No {
    static Due yes(Scheduling scheduling) {
      return new Yes(scheduling);
    }

    /** Due: how to write the plan now. */
    record Yes(Scheduling scheduling) implements Due {
      public Yes {
        Objects.requireNonNull(scheduling, "scheduling is null");
      }
    }

    /** Not due, and why. */
    record No(ServiceDecision why) implements Due {
      public No {
        Objects.requireNonNull(why, "why is null");
      }
    }
  }

  /**
   * Whether the service is due on this timeline, as the poll asks: how to write its plan now, or why not. Where Hudi
   * has a trigger for the service this is a cheap pre-check of it on the loaded timeline that only decides whether to
   * open a write client: Hudi evaluates the same trigger again when it schedules, so a plan is written exactly when
   * Hudi's own inline scheduling would write one.
   *
   * @param nowMillis the time the poll runs at, for triggers on elapsed time
   */
  Due due(ServicedTable table, HoodieTableMetaClient metaClient, HoodieWriteConfig config, long nowMillis);

  /**
   * Why Hudi wrote no plan although the service was due: what its planner left out and the keys that change it,
   * read again from the timeline the round planned against. By default only that Hudi found nothing.
   */
  default ServiceDecision nothingPlanned(ServicedTable table, HoodieTableMetaClient metaClient,
                                         HoodieWriteConfig config) {
    return ServiceDecision.of(type(), ServiceDecision.Reason.NOTHING_TO_PLAN, "due, but Hudi found nothing to plan");
  }

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
