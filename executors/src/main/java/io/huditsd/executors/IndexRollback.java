package io.huditsd.executors;

import io.huditsd.config.MetadataIndexState;
import org.apache.hudi.client.heartbeat.HeartbeatUtils;
import org.apache.hudi.client.transaction.TransactionManager;
import org.apache.hudi.common.engine.HoodieEngineContext;
import org.apache.hudi.common.table.HoodieTableMetaClient;
import org.apache.hudi.common.table.timeline.HoodieActiveTimeline;
import org.apache.hudi.common.table.timeline.InstantGenerator;
import org.apache.hudi.common.util.Option;
import org.apache.hudi.config.HoodieWriteConfig;
import org.apache.hudi.metadata.HoodieTableMetadataUtil;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.List;

/**
 * Rolls back an index build that failed or whose executor died, as Hudi's indexer aborts one
 * ({@code RunIndexActionExecutor.abort}) and further: the plan's partitions that are not built are removed from
 * {@code hoodie.table.metadata.partitions.inflight} and their metadata-table folders deleted, then the indexing
 * instant (inflight and requested) and its heartbeat. All under the table lock. The index is planned anew on the
 * next poll. Partitions already built are left alone.
 */
final class IndexRollback {
  private static final Logger LOG = LoggerFactory.getLogger(IndexRollback.class);

  private IndexRollback() {
  }

  /** @return the partitions whose partial build was removed */
  static List<String> rollback(HoodieWriteConfig config, HoodieEngineContext context, HoodieTableMetaClient metaClient,
                               String indexInstant) {
    TransactionManager transactions = new TransactionManager(config, metaClient.getStorage());
    transactions.beginStateChange(Option.empty(), Option.empty());
    try {
      HoodieTableMetaClient fresh = HoodieTableMetaClient.reload(metaClient);
      MetadataIndexState.PendingIndexPlan plan = MetadataIndexState.read(fresh).pendingPlans().get(indexInstant);
      if (plan == null) {
        return List.of();
      }
      List<String> removed = new ArrayList<>();
      for (String partition : plan.partitions()) {
        if (!fresh.getTableConfig().getMetadataPartitions().contains(partition)) {
          HoodieTableMetadataUtil.deleteMetadataTablePartition(fresh, context, partition, false);
          removed.add(partition);
        }
      }
      InstantGenerator instants = fresh.getInstantGenerator();
      HoodieActiveTimeline timeline = fresh.reloadActiveTimeline();
      timeline.deleteInstantFileIfExists(instants.getIndexInflightInstant(indexInstant));
      timeline.deleteInstantFileIfExists(instants.getIndexRequestedInstant(indexInstant));
      HeartbeatUtils.deleteHeartbeatFile(fresh.getStorage(), fresh.getBasePath().toString(), indexInstant);
      LOG.info("Rolled back index build table={} instant={} partitionsRemoved={}", fresh.getBasePath(), indexInstant,
          removed);
      return removed;
    } finally {
      transactions.endStateChange(Option.empty());
      transactions.close();
    }
  }
}
