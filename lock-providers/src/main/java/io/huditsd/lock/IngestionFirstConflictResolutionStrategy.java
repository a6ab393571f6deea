package io.huditsd.lock;

import org.apache.hudi.client.transaction.ConcurrentOperation;
import org.apache.hudi.client.transaction.PreferWriterConflictResolutionStrategy;
import org.apache.hudi.common.model.HoodieCommitMetadata;
import org.apache.hudi.common.model.HoodieTableType;
import org.apache.hudi.common.model.WriteOperationType;
import org.apache.hudi.common.table.HoodieTableMetaClient;
import org.apache.hudi.common.util.Option;
import org.apache.hudi.table.HoodieTable;

/**
 * Hudi's {@link PreferWriterConflictResolutionStrategy} (writers win over clustering), without its false conflict
 * between a MOR writer and a compaction scheduled after the writer started.
 *
 * <p>What Hudi 1.2.0's strategies do, for the writer and for a table service committing:
 * <ul>
 *   <li>{@code SimpleConcurrentFileWritesConflictResolutionStrategy} (Hudi's default) checks a writer's commit
 *       against every pending clustering plan: a writer that updated a file group under a pending plan fails,
 *       although the plan has not committed anything.</li>
 *   <li>{@code PreferWriterConflictResolutionStrategy} checks a writer only against what completed since it started.
 *       A clustering commit is checked against completed commits and writers in flight (and, with
 *       {@code hoodie.clustering.fail.on.pending.ingestion.during.conflict.resolution}, writers still requested with a
 *       live heartbeat): the clustering is the one that fails. But it checks a MOR writer against compactions
 *       completed since it started too, and one whose instant is later than the writer's is a conflict. In
 *       multi-writer mode Hudi schedules compactions while writers are in flight, so a MOR writer fails whenever a
 *       compaction planned during its write completes first over a file group it appends to.</li>
 * </ul>
 * On table version 8 and later that last conflict is not one: file slices are cut by completion time, so the
 * writer's log, completed after the compaction was planned, belongs to the slice that the compaction starts, and
 * the compaction never read it. Hudi's default strategy skips completed compactions of MOR tables on version 8+ for
 * the same reason. This strategy does the same for writers and is otherwise Hudi's {@code PreferWriter}.
 *
 * <p>Writers set {@code hoodie.write.lock.conflict.resolution.strategy} to this class, with the
 * {@code hudi-tsd-lock-providers} jar beside Hudi's (as for {@link HadoopStorageLockProvider}); the daemon uses it
 * by default.
 */
public class IngestionFirstConflictResolutionStrategy extends PreferWriterConflictResolutionStrategy {
  @Override
  public Option<HoodieCommitMetadata> resolveConflict(HoodieTable table, ConcurrentOperation thisOperation,
                                                      ConcurrentOperation otherOperation) {
    if (otherOperation.getOperationType() == WriteOperationType.COMPACT && !isTableService(thisOperation)
        && slicesByCompletionTime(table.getMetaClient())) {
      return thisOperation.getCommitMetadataOption();
    }
    return super.resolveConflict(table, thisOperation, otherOperation);
  }

  private static boolean isTableService(ConcurrentOperation operation) {
    WriteOperationType type = operation.getOperationType();
    return type == WriteOperationType.COMPACT || type == WriteOperationType.LOG_COMPACT
        || type == WriteOperationType.CLUSTER;
  }

  private static boolean slicesByCompletionTime(HoodieTableMetaClient metaClient) {
    // versionCode() rather than HoodieTableVersion.EIGHT and greaterThanOrEquals: this class runs inside the
    // writer's Hudi, and Hudi 0.14/0.15 have neither (their enum ends at SIX), so a 0.15 writer would die with a
    // NoSuchFieldError here when it meets a completed compaction.
    return metaClient.getTableType() == HoodieTableType.MERGE_ON_READ
        && metaClient.getTableConfig().getTableVersion().versionCode() >= 8;
  }
}
