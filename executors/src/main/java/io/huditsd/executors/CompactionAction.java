package io.huditsd.executors;

import io.huditsd.config.ServiceType;
import org.apache.hudi.client.HoodieJavaWriteClient;
import org.apache.hudi.common.model.HoodieAvroPayload;
import org.apache.hudi.common.util.CompactionUtils;

import java.time.Duration;
import java.util.Optional;

/**
 * Executes a compaction plan and commits it. Hudi rolls back a previous, abandoned attempt of the same instant
 * first; in multi-writer mode it refuses while another process holds the plan's heartbeat.
 */
public final class CompactionAction implements ServiceAction {
  @Override
  public ServiceType service() {
    return ServiceType.COMPACTION;
  }

  @Override
  public ActionResult execute(HoodieJavaWriteClient<HoodieAvroPayload> client, Optional<String> instant) {
    String compactionInstant = instant.orElseThrow(() -> new IllegalArgumentException("compaction needs an instant"));
    // bytesIn counts the log bytes the plan compacts (file sizes, as the backlog gauges count them): the backlog
    // this run removes. Hudi's own totalLogSizeCompacted counts log blocks read and differs from file sizes.
    long logBytes = PendingPlans.compactionLogBytes(
        CompactionUtils.getCompactionPlan(ClientMetaClients.of(client), compactionInstant));
    long start = System.nanoTime();
    WriteStatsTotals totals = WriteStatsTotals.of(client.compact(compactionInstant, true));
    return new ActionResult(service(), instant, totals.fileGroups(), logBytes, totals.bytesWritten(),
        Duration.ofNanos(System.nanoTime() - start));
  }
}
