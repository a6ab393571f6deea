package io.huditsd.sparkrunner;

import org.apache.hudi.client.heartbeat.HoodieHeartbeatClient;
import org.apache.hudi.client.transaction.TransactionManager;
import org.apache.hudi.common.table.HoodieTableMetaClient;
import org.apache.hudi.common.util.ClusteringUtils;
import org.apache.hudi.common.util.Option;
import org.apache.hudi.config.HoodieWriteConfig;

import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * Hudi's heartbeat of a pending clustering plan ({@code .hoodie/.heartbeat/<instant>}), started under the table lock
 * and kept while the runner executes the plan. Hudi heartbeats a compaction itself and checks that heartbeat under
 * the lock, but not a clustering: without this a daemon restarted while the application runs (or a second
 * submission) would see an inflight plan without a live heartbeat, roll it back and execute it again. Whoever starts
 * the heartbeat under the lock first executes the plan. The same rule as the daemon's in-process PlanHeartbeat,
 * which this module cannot depend on. Closing stops the heartbeat and deletes its file.
 */
final class ClusteringClaim implements AutoCloseable {
  private final HoodieHeartbeatClient client;
  private final String instant;

  private ClusteringClaim(HoodieHeartbeatClient client, String instant) {
    this.client = client;
    this.instant = instant;
  }

  /**
   * @throws PlanNotExecutableException when the plan is no longer pending, or another process holds a live
   *     heartbeat of it (both checked under the table lock)
   */
  static ClusteringClaim claim(HoodieWriteConfig config, HoodieTableMetaClient metaClient, String instant) {
    TransactionManager transactions = new TransactionManager(config, metaClient.getStorage());
    transactions.beginStateChange(Option.empty(), Option.empty());
    try {
      HoodieTableMetaClient current = HoodieTableMetaClient.reload(metaClient);
      if (ClusteringUtils.getPendingClusteringInstantTimes(current).stream()
          .noneMatch(pending -> pending.requestedTime().equals(instant))) {
        throw new PlanNotExecutableException("clustering plan " + instant + " of " + config.getBasePath()
            + " is not pending (completed or rolled back elsewhere, or never scheduled; checked under the table"
            + " lock)");
      }
      HoodieHeartbeatClient client = new HoodieHeartbeatClient(current.getStorage(), config.getBasePath(),
          config.getHoodieClientHeartbeatIntervalInMs(), config.getHoodieClientHeartbeatTolerableMisses());
      try {
        if (!client.isHeartbeatExpired(instant)) {
          throw new PlanNotExecutableException("clustering plan " + instant + " of " + config.getBasePath()
              + " is being executed by another process (its heartbeat is alive; checked under the table lock)");
        }
        client.start(instant);
      } catch (IOException e) {
        client.close();
        throw new UncheckedIOException("Cannot read the heartbeat of " + instant, e);
      } catch (RuntimeException e) {
        client.close();
        throw e;
      }
      return new ClusteringClaim(client, instant);
    } finally {
      transactions.endStateChange(Option.empty());
      transactions.close();
    }
  }

  @Override
  public void close() {
    try {
      client.stop(instant);
    } finally {
      client.close();
    }
  }
}
