package io.huditsd.executors;

import io.huditsd.config.ServiceType;
import org.apache.hudi.client.HoodieJavaWriteClient;
import org.apache.hudi.common.model.HoodieAvroPayload;
import org.apache.hudi.common.util.CompactionUtils;
import org.apache.hudi.exception.HoodieException;

import java.time.Duration;
import java.util.Optional;

/**
 * Executes a compaction plan and commits it. Hudi rolls back a previous, abandoned attempt of the same instant
 * first; in multi-writer mode it refuses while another process holds the plan's heartbeat.
 */
public final class CompactionAction implements ServiceAction {
  /**
   * How Hudi 1.2.0 refuses, under the table lock, a compaction that another process completed after this run found
   * it pending ({@code BaseHoodieTableServiceClient.compact}): overlapping {@code once} runs hit it (ConcurrentOnceIT).
   * The plan is done, which is what this run was for: skipped, not failed. (The race to start a plan is handled in
   * {@link JavaEngine}.)
   */
  static final String COMPLETED_ELSEWHERE = "is not present as pending or already completed";

  @Override
  public ServiceType service() {
    return ServiceType.COMPACTION;
  }

  /** Hudi keeps the heartbeat of a compaction it executes, and refuses to start one whose heartbeat is alive. */
  @Override
  public boolean keepsHeartbeat() {
    return true;
  }

  @Override
  public ActionResult execute(HoodieJavaWriteClient<HoodieAvroPayload> client, Optional<String> instant) {
    String compactionInstant = instant.orElseThrow(() -> new IllegalArgumentException("compaction needs an instant"));
    // bytesIn counts the log bytes the plan compacts (file sizes, as the backlog gauges count them): the backlog
    // this run removes. Hudi's own totalLogSizeCompacted counts log blocks read and differs from file sizes.
    long logBytes = PendingPlans.compactionLogBytes(
        CompactionUtils.getCompactionPlan(ClientMetaClients.of(client), compactionInstant));
    long start = System.nanoTime();
    WriteStatsTotals totals;
    try {
      totals = WriteStatsTotals.of(client.compact(compactionInstant, true));
    } catch (HoodieException e) {
      if (e.getMessage() != null && e.getMessage().contains(COMPLETED_ELSEWHERE)) {
        throw new PlanSkippedException("plan " + compactionInstant + " is no longer pending (completed elsewhere;"
            + " Hudi checked under the table lock)");
      }
      throw e;
    }
    return new ActionResult(service(), instant, totals.fileGroups(), logBytes, totals.bytesWritten(),
        Duration.ofNanos(System.nanoTime() - start));
  }
}
