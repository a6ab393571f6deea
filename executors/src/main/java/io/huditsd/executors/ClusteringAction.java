package io.huditsd.executors;

import io.huditsd.config.ServiceType;
import org.apache.hudi.avro.model.HoodieClusteringGroup;
import org.apache.hudi.avro.model.HoodieClusteringPlan;
import org.apache.hudi.avro.model.HoodieSliceInfo;
import org.apache.hudi.client.HoodieJavaWriteClient;
import org.apache.hudi.common.model.HoodieAvroPayload;
import org.apache.hudi.common.table.HoodieTableMetaClient;
import org.apache.hudi.common.util.ClusteringUtils;
import org.apache.hudi.config.HoodieWriteConfig;
import org.apache.hudi.storage.StoragePath;

import java.io.IOException;
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
    long bytesIn = inputBytes(metaClient, clusteringInstant);
    long start = System.nanoTime();
    try (PlanHeartbeat heartbeat = PlanHeartbeat.start(metaClient.getStorage(), config, clusteringInstant)) {
      WriteStatsTotals totals = WriteStatsTotals.of(client.cluster(clusteringInstant, true));
      return new ActionResult(service(), instant, totals.fileGroups(), bytesIn, totals.bytesWritten(),
          Duration.ofNanos(System.nanoTime() - start));
    }
  }

  private static long inputBytes(HoodieTableMetaClient metaClient, String clusteringInstant) {
    HoodieClusteringPlan plan = ClusteringUtils.getPendingClusteringPlan(metaClient, clusteringInstant);
    long bytes = 0;
    if (plan.getInputGroups() == null) {
      return 0;
    }
    for (HoodieClusteringGroup group : plan.getInputGroups()) {
      for (HoodieSliceInfo slice : group.getSlices()) {
        if (slice.getDataFilePath() != null && !slice.getDataFilePath().isEmpty()) {
          bytes += fileSize(metaClient, slice.getPartitionPath(), slice.getDataFilePath());
        }
        if (slice.getDeltaFilePaths() != null) {
          for (String log : slice.getDeltaFilePaths()) {
            bytes += fileSize(metaClient, slice.getPartitionPath(), log);
          }
        }
      }
    }
    return bytes;
  }

  private static long fileSize(HoodieTableMetaClient metaClient, String partition, String file) {
    StoragePath path = file.contains("/")
        ? new StoragePath(file) : new StoragePath(new StoragePath(metaClient.getBasePath(), partition), file);
    if (!path.isAbsolute()) {
      path = new StoragePath(metaClient.getBasePath(), file);
    }
    try {
      return metaClient.getStorage().getPathInfo(path).getLength();
    } catch (IOException e) {
      return 0;
    }
  }
}
