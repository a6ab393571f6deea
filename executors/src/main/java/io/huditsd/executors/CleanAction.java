package io.huditsd.executors;

import io.huditsd.config.ServiceType;
import org.apache.hudi.avro.model.HoodieCleanMetadata;
import org.apache.hudi.client.HoodieJavaWriteClient;
import org.apache.hudi.common.model.HoodieAvroPayload;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * Executes the table's pending clean plans (the scheduler wrote them under the lock). Hudi's cleaner executes every
 * pending clean, oldest first, whichever one a run was queued for; so the action claims them all before it starts
 * ({@link PlanHeartbeat#claimCleans}) and keeps their heartbeats until the cleaner returns. Hudi keeps no heartbeat
 * for a clean: without the claim two overlapping {@code once} runs, each queued for a clean of its own, executed the
 * same plan at once and the later failed on the inflight file the first created.
 */
public final class CleanAction implements ServiceAction {
  private static final Logger LOG = LoggerFactory.getLogger(CleanAction.class);

  @Override
  public ServiceType service() {
    return ServiceType.CLEAN;
  }

  /** Hudi keeps no heartbeat for a clean; this action keeps one for each clean it executes (see the class comment). */
  @Override
  public boolean keepsHeartbeat() {
    return true;
  }

  /** Hudi's cleaner rolls back failed writes before it executes a clean (see the interface). */
  @Override
  public boolean rollsBackFailedWrites() {
    return true;
  }

  @Override
  public ActionResult execute(HoodieJavaWriteClient<HoodieAvroPayload> client, Optional<String> instant) {
    long start = System.nanoTime();
    List<String> withoutHeartbeat = FailedWritesRollback.withoutHeartbeat(ClientMetaClients.of(client));
    if (!withoutHeartbeat.isEmpty()) {
      // Hudi's cleaner would roll that write back first (it counts a missing heartbeat as expired).
      throw new PlanSkippedException("the clean is not executed: "
          + FailedWrites.singleWriterProblem(withoutHeartbeat));
    }
    HoodieCleanMetadata metadata;
    try (PlanHeartbeat heartbeat = PlanHeartbeat.claimCleans(client.getConfig(), ClientMetaClients.of(client))) {
      if (heartbeat.instants().size() > 1) {
        LOG.info("Cleaning table={}: Hudi's cleaner executes the pending cleans {} in turn",
            client.getConfig().getBasePath(), heartbeat.instants());
      }
      // Below table version 8 the plan goes into .clean.inflight too, as the writers of those versions read it.
      CleanInflightPlans.startWithPlans(ClientMetaClients.of(client));
      metadata = client.clean(false);
    }
    Duration duration = Duration.ofNanos(System.nanoTime() - start);
    if (metadata == null) {
      return new ActionResult(service(), Optional.empty(), 0, 0, 0, duration);
    }
    return new ActionResult(service(), Optional.of(metadata.getStartCleanTime()), metadata.getTotalFilesDeleted(),
        0, 0, duration);
  }
}
