package io.huditsd.executors;

import org.apache.hudi.client.heartbeat.HoodieHeartbeatClient;
import org.apache.hudi.config.HoodieWriteConfig;
import org.apache.hudi.storage.HoodieStorage;

/**
 * A Hudi heartbeat ({@code .hoodie/.heartbeat/<instant>}) kept for a plan while this process executes it, for the
 * services whose execution Hudi does not heartbeat itself (clustering, indexing): that is how another process, or
 * this daemon after a restart, tells a running plan from an abandoned one (see {@link PlanLiveness}). Closing stops
 * it and deletes the file; closing twice is harmless.
 */
final class PlanHeartbeat implements AutoCloseable {
  private final HoodieHeartbeatClient client;
  private final String instant;

  private PlanHeartbeat(HoodieHeartbeatClient client, String instant) {
    this.client = client;
    this.instant = instant;
  }

  static PlanHeartbeat start(HoodieStorage storage, HoodieWriteConfig config, String instant) {
    HoodieHeartbeatClient client = new HoodieHeartbeatClient(storage, config.getBasePath(),
        config.getHoodieClientHeartbeatIntervalInMs(), config.getHoodieClientHeartbeatTolerableMisses());
    try {
      client.start(instant);
    } catch (RuntimeException e) {
      client.close();
      throw e;
    }
    return new PlanHeartbeat(client, instant);
  }

  @Override
  public void close() {
    try {
      // Stopping also deletes the heartbeat file; a second stop finds no heartbeat and does nothing.
      client.stop(instant);
    } finally {
      client.close();
    }
  }
}
