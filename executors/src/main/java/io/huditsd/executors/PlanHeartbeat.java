package io.huditsd.executors;

import org.apache.hudi.client.heartbeat.HoodieHeartbeatClient;
import org.apache.hudi.common.table.HoodieTableMetaClient;
import org.apache.hudi.common.util.ClusteringUtils;
import org.apache.hudi.config.HoodieWriteConfig;
import org.apache.hudi.storage.HoodieStorage;

import java.io.IOException;
import java.io.UncheckedIOException;

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

  /**
   * Starts the heartbeat of a pending clustering plan under the table lock, unless another process holds a live
   * heartbeat of it or it is no longer pending. Two processes that both found the plan requested (overlapping
   * {@code once} runs) would otherwise both execute it: Hudi checks the heartbeat of a compaction under the lock
   * ({@code BaseHoodieTableServiceClient.validateHeartBeat}) but not of a clustering. Whoever starts the heartbeat
   * under the lock first executes the plan; the other run is skipped.
   */
  static PlanHeartbeat claimClustering(HoodieWriteConfig config, HoodieTableMetaClient metaClient, String instant) {
    return TableLock.underTableLock(config, metaClient, current -> {
      if (!ClusteringUtils.getPendingClusteringInstantTimes(current).stream()
          .anyMatch(pending -> pending.requestedTime().equals(instant))) {
        throw new PlanSkippedException("plan " + instant + " is no longer pending (completed or rolled back "
            + "elsewhere; checked under the table lock)");
      }
      HoodieHeartbeatClient client = new HoodieHeartbeatClient(current.getStorage(), config.getBasePath(),
          config.getHoodieClientHeartbeatIntervalInMs(), config.getHoodieClientHeartbeatTolerableMisses());
      try {
        if (!client.isHeartbeatExpired(instant)) {
          throw new PlanSkippedException("plan " + instant + " is being executed by another process (its "
              + "heartbeat is alive; checked under the table lock)");
        }
        client.start(instant);
      } catch (IOException e) {
        client.close();
        throw new UncheckedIOException("Cannot read the heartbeat of " + instant, e);
      } catch (RuntimeException e) {
        client.close();
        throw e;
      }
      return new PlanHeartbeat(client, instant);
    });
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
