package io.huditsd.executors;

import io.huditsd.config.MetadataIndexState;
import org.apache.hudi.common.table.HoodieTableMetaClient;
import org.apache.hudi.common.table.timeline.HoodieInstant;
import org.apache.hudi.metadata.HoodieTableMetadata;

import java.util.Objects;

/**
 * How far a pending index build got, read from storage: requested (not started), building (Hudi's indexer marked its
 * partitions inflight and writes their initial file groups), catching up (the initial metadata commit at the
 * indexing instant completed; commits that landed meanwhile are being applied) or waiting for the commit.
 *
 * @param phase requested, building or catching-up
 * @param commitsToCatchUp completed data-table commits after the plan's base instant
 */
public record IndexProgress(String phase, int commitsToCatchUp) {
  public IndexProgress {
    Objects.requireNonNull(phase, "phase is null");
  }

  public static IndexProgress of(HoodieTableMetaClient metaClient, MetadataIndexState.PendingIndexPlan plan) {
    int behind = plan.baseInstant() == null ? 0 : metaClient.getActiveTimeline().getWriteTimeline()
        .filterCompletedInstants().findInstantsAfter(plan.baseInstant()).countInstants();
    if (!plan.inflight()) {
      return new IndexProgress("requested", behind);
    }
    return new IndexProgress(initialCommitDone(metaClient, plan.instant()) ? "catching-up" : "building", behind);
  }

  private static boolean initialCommitDone(HoodieTableMetaClient metaClient, String indexInstant) {
    try {
      HoodieTableMetaClient metadata = HoodieTableMetaClient.builder()
          .setConf(metaClient.getStorageConf().newInstance())
          .setBasePath(HoodieTableMetadata.getMetadataTableBasePath(metaClient.getBasePath()))
          .build();
      return metadata.getActiveTimeline().filterCompletedInstants().getInstantsAsStream()
          .map(HoodieInstant::requestedTime).anyMatch(time -> time.startsWith(indexInstant));
    } catch (RuntimeException e) {
      // No metadata table (yet), or it is being rewritten: not past the initial commit.
      return false;
    }
  }
}
