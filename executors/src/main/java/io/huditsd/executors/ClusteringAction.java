package io.huditsd.executors;

import io.huditsd.config.ServiceType;
import org.apache.hudi.client.HoodieJavaWriteClient;
import org.apache.hudi.common.model.HoodieAvroPayload;
import org.apache.hudi.common.table.HoodieTableMetaClient;
import org.apache.hudi.common.util.ClusteringUtils;
import org.apache.hudi.config.HoodieWriteConfig;

import java.time.Duration;
import java.util.Optional;

/**
 * Executes a clustering plan and commits the replacecommit. Unlike compaction, Hudi does not keep a heartbeat while
 * clustering runs, so the action keeps one itself: that is how another process, or this daemon after a restart,
 * tells a running plan from an abandoned one.
 */
public final class ClusteringAction implements ServiceAction {
  @Override
  public ServiceType service() {
    return ServiceType.CLUSTERING;
  }

  @Override
  public ActionResult execute(HoodieJavaWriteClient<HoodieAvroPayload> client, Optional<String> instant) {
    String clusteringInstant = instant.orElseThrow(() -> new IllegalArgumentException("clustering needs an instant"));
    HoodieWriteConfig config = client.getConfig();
    HoodieTableMetaClient metaClient = ClientMetaClients.of(client);
    long bytesIn = PlanSizes.clusteringInputBytes(metaClient,
        ClusteringUtils.getPendingClusteringPlan(metaClient, clusteringInstant));
    long start = System.nanoTime();
    try (PlanHeartbeat heartbeat = PlanHeartbeat.start(metaClient.getStorage(), config, clusteringInstant)) {
      WriteStatsTotals totals = WriteStatsTotals.of(client.cluster(clusteringInstant, true));
      return new ActionResult(service(), instant, totals.fileGroups(), bytesIn, totals.bytesWritten(),
          Duration.ofNanos(System.nanoTime() - start));
    }
  }
}
