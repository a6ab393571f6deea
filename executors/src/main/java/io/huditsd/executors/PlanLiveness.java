package io.huditsd.executors;

import io.huditsd.config.HeartbeatSettings;
import org.apache.hudi.common.heartbeat.HoodieHeartbeatUtils;
import org.apache.hudi.common.table.HoodieTableMetaClient;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.util.Optional;

/**
 * Tells a plan that a live process is executing from one whose executor died: by its Hudi heartbeat file
 * ({@code .hoodie/.heartbeat/<instant>}), the same signal Hudi's own multi-writer rollback uses.
 */
public final class PlanLiveness {
  private final HeartbeatSettings heartbeat;

  public PlanLiveness(HeartbeatSettings heartbeat) {
    this.heartbeat = heartbeat;
  }

  /** Whether a heartbeat for {@code instant} was written within the expiry window. */
  public boolean isAlive(HoodieTableMetaClient metaClient, String instant) {
    return aliveUntil(metaClient, instant).isPresent();
  }

  /** When the heartbeat of {@code instant} expires unless renewed; empty when there is none or it expired. */
  public Optional<Instant> aliveUntil(HoodieTableMetaClient metaClient, String instant) {
    try {
      long last = HoodieHeartbeatUtils.getLastHeartbeatTime(metaClient.getStorage(),
          metaClient.getBasePath().toString(), instant);
      long expires = last + heartbeat.expiryMillis();
      return last > 0 && System.currentTimeMillis() <= expires
          ? Optional.of(Instant.ofEpochMilli(expires)) : Optional.empty();
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read the heartbeat of instant " + instant + " of "
          + metaClient.getBasePath(), e);
    }
  }
}
