package io.huditsd.executors;

import io.huditsd.config.HeartbeatSettings;
import org.apache.hudi.common.heartbeat.HoodieHeartbeatUtils;
import org.apache.hudi.common.table.HoodieTableMetaClient;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.util.Objects;
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
    return liveHeartbeat(metaClient, instant).map(Heartbeat::expiresAt);
  }

  /**
   * The live heartbeat of {@code instant}: when it was last renewed, when a holder renewing at this daemon's interval
   * renews it next, and when it expires unless renewed; empty when there is none or it expired.
   */
  public Optional<Heartbeat> liveHeartbeat(HoodieTableMetaClient metaClient, String instant) {
    long last = lastHeartbeatMillis(metaClient, instant);
    long expires = last + heartbeat.expiryMillis();
    return last > 0 && System.currentTimeMillis() <= expires
        ? Optional.of(new Heartbeat(Instant.ofEpochMilli(last), Instant.ofEpochMilli(last + heartbeat.intervalMillis()),
            Instant.ofEpochMilli(expires)))
        : Optional.empty();
  }

  /**
   * A heartbeat as last seen: renewed at {@code renewedAt}, due again by {@code renewalDue} from a live holder with
   * the daemon's interval, abandoned after {@code expiresAt} unless renewed.
   */
  public record Heartbeat(Instant renewedAt, Instant renewalDue, Instant expiresAt) {
    public Heartbeat {
      Objects.requireNonNull(renewedAt, "renewedAt is null");
      Objects.requireNonNull(renewalDue, "renewalDue is null");
      Objects.requireNonNull(expiresAt, "expiresAt is null");
    }
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
