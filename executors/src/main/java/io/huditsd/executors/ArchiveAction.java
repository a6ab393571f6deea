package io.huditsd.executors;

import io.huditsd.config.ServiceType;
import org.apache.hudi.client.HoodieJavaWriteClient;
import org.apache.hudi.common.model.HoodieAvroPayload;

import java.time.Duration;
import java.util.Optional;

/**
 * Archives completed instants beyond {@code hoodie.keep.max.commits} out of the active timeline. Archival has no
 * plan on the timeline: Hudi decides what to move when it runs, under the table lock.
 */
public final class ArchiveAction implements ServiceAction {
  @Override
  public ServiceType service() {
    return ServiceType.ARCHIVE;
  }

  /** Archival has no plan, so no plan heartbeat; Hudi runs it under the table lock. */
  @Override
  public boolean keepsHeartbeat() {
    return false;
  }

  @Override
  public ActionResult execute(HoodieJavaWriteClient<HoodieAvroPayload> client, Optional<String> instant) {
    long start = System.nanoTime();
    client.archive();
    return new ActionResult(service(), Optional.empty(), 0, 0, 0, Duration.ofNanos(System.nanoTime() - start));
  }
}
