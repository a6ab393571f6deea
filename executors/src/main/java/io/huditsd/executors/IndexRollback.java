package io.huditsd.executors;

import io.huditsd.config.MetadataIndexState;
import org.apache.hudi.client.heartbeat.HeartbeatUtils;
import org.apache.hudi.common.engine.HoodieEngineContext;
import org.apache.hudi.common.table.HoodieTableMetaClient;
import org.apache.hudi.common.table.timeline.HoodieActiveTimeline;
import org.apache.hudi.common.table.timeline.InstantGenerator;
import org.apache.hudi.config.HoodieWriteConfig;
import org.apache.hudi.metadata.HoodieTableMetadataUtil;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.List;
import java.util.function.Function;

/**
 * Rolls back an index build that failed or whose executor died, as Hudi's indexer aborts one
 * ({@code RunIndexActionExecutor.abort}) and further: the plan's partitions are removed from
 * {@code hoodie.table.metadata.partitions} and {@code .inflight} and their metadata-table folders deleted, then the indexing
 * instant (inflight and requested) and its heartbeat. All under the table lock. The index is planned anew on a
 * later poll.
 */
final class IndexRollback {
  private static final Logger LOG = LoggerFactory.getLogger(IndexRollback.class);

  private IndexRollback() {
  }

  /**
   * Drops metadata partitions that an index build committed although they are incomplete (see
   * {@link IndexCompleteness}): removed from {@code hoodie.table.metadata.partitions} and deleted, under the table
   * lock, so that no writer commit is between reading and updating them. The completed indexing instant stays on the
   * timeline as a record; Hudi plans a partition by the table config alone.
   */
  static void dropIncomplete(HoodieWriteConfig config, HoodieEngineContext context, HoodieTableMetaClient metaClient,
                             List<String> partitions) {
    underTableLock(config, metaClient, fresh -> {
      for (String partition : partitions) {
        HoodieTableMetadataUtil.deleteMetadataTablePartition(fresh, context, partition, false);
      }
      LOG.warn("Dropped incomplete metadata index table={} partitions={}", fresh.getBasePath(), partitions);
      return partitions;
    });
  }

  /** @return the partitions whose partial build was removed */
  static List<String> rollback(HoodieWriteConfig config, HoodieEngineContext context, HoodieTableMetaClient metaClient,
                               String indexInstant) {
    return underTableLock(config, metaClient, fresh -> {
      MetadataIndexState.PendingIndexPlan plan = MetadataIndexState.read(fresh).pendingPlans().get(indexInstant);
      if (plan == null) {
        return List.of();
      }
      // Every partition of the plan goes, even one hoodie.properties lists as built: Hudi 1.2.0's indexer marks a
      // partition built as soon as its initial build is committed, before the catch-up with the commits that landed
      // meanwhile (HoodieBackedTableMetadataWriter.initializeFromFilesystem), and a failed catch-up does not undo
      // that (RunIndexActionExecutor aborts on IOException only). Such an index lacks those commits' records: a
      // reader would miss rows and a writer using it would duplicate keys. No other plan can have built them:
      // Hudi neither plans nor runs an index build for a partition that is built or inflight.
      for (String partition : plan.partitions()) {
        HoodieTableMetadataUtil.deleteMetadataTablePartition(fresh, context, partition, false);
      }
      InstantGenerator instants = fresh.getInstantGenerator();
      HoodieActiveTimeline timeline = fresh.reloadActiveTimeline();
      timeline.deleteInstantFileIfExists(instants.getIndexInflightInstant(indexInstant));
      timeline.deleteInstantFileIfExists(instants.getIndexRequestedInstant(indexInstant));
      HeartbeatUtils.deleteHeartbeatFile(fresh.getStorage(), fresh.getBasePath().toString(), indexInstant);
      LOG.info("Rolled back index build table={} instant={} partitionsRemoved={}", fresh.getBasePath(), indexInstant,
          plan.partitions());
      return plan.partitions();
    });
  }

  private static <T> T underTableLock(HoodieWriteConfig config, HoodieTableMetaClient metaClient,
                                      Function<HoodieTableMetaClient, T> change) {
    return TableLock.underTableLock(config, metaClient, change);
  }
}
