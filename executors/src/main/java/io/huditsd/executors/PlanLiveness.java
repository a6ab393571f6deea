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
    long last = lastHeartbeatMillis(metaClient, instant);
    long expires = last + heartbeat.expiryMillis();
    return last > 0 && System.currentTimeMillis() <= expires
        ? Optional.of(Instant.ofEpochMilli(expires)) : Optional.empty();
  }

  /**
   * Whether {@code instant} has a heartbeat file at all, expired or not. A process that keeps none for its plans
   * (Hudi's own HoodieIndexer, say) leaves none.
   */
  static boolean hasHeartbeat(HoodieTableMetaClient metaClient, String instant) {
    return lastHeartbeatMillis(metaClient, instant) > 0;
  }

  /** The heartbeat file's last update, 0 when there is none. */
  static long lastHeartbeatMillis(HoodieTableMetaClient metaClient, String instant) {
    try {
      return HoodieHeartbeatUtils.getLastHeartbeatTime(metaClient.getStorage(), metaClient.getBasePath().toString(),
          instant);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read the heartbeat of instant " + instant + " of "
          + metaClient.getBasePath(), e);
    }
  }
}
