package io.huditsd.executors;

import io.huditsd.config.ServiceType;
import org.apache.hudi.avro.model.HoodieCleanMetadata;
import org.apache.hudi.client.HoodieJavaWriteClient;
import org.apache.hudi.common.model.HoodieAvroPayload;

import java.time.Duration;
import java.util.Optional;

/**
 * Executes the table's pending clean plan (the scheduler wrote it under the lock). Hudi executes the oldest pending
 * clean, which is the one a plan-by-plan daemon reaches first anyway.
 */
public final class CleanAction implements ServiceAction {
  @Override
  public ServiceType service() {
    return ServiceType.CLEAN;
  }

  /**
   * Neither Hudi nor this action keeps a heartbeat for a clean: Hudi's cleaner executes an unfinished clean plan
   * again before anything else, and deleting the plan's files twice is harmless, so an inflight clean is not guarded.
   */
  @Override
  public boolean keepsHeartbeat() {
    return false;
  }

  @Override
  public ActionResult execute(HoodieJavaWriteClient<HoodieAvroPayload> client, Optional<String> instant) {
    long start = System.nanoTime();
    HoodieCleanMetadata metadata = client.clean(false);
    Duration duration = Duration.ofNanos(System.nanoTime() - start);
    if (metadata == null) {
      return new ActionResult(service(), Optional.empty(), 0, 0, 0, duration);
    }
    return new ActionResult(service(), Optional.of(metadata.getStartCleanTime()), metadata.getTotalFilesDeleted(),
        0, 0, duration);
  }
}
