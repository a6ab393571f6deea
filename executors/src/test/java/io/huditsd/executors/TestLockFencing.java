package io.huditsd.executors;

import io.huditsd.config.ServicedTable;
import io.huditsd.lock.ExpiringZookeeperLockProvider;
import io.huditsd.lock.LockLostException;
import io.huditsd.lock.ZookeeperClients;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingServer;
import org.apache.hudi.client.HoodieJavaWriteClient;
import org.apache.hudi.common.model.HoodieAvroPayload;
import org.apache.hudi.common.model.HoodieTableType;
import org.apache.hudi.common.table.HoodieTableMetaClient;
import org.apache.hudi.common.table.timeline.HoodieInstant;
import org.apache.hudi.common.util.Option;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A compaction whose ZooKeeper session expires while it holds the table lock to commit must not commit: Hudi's
 * commit fails before the completed instant is written, the plan stays pending, and the next attempt, under a lock
 * held anew, commits it.
 */
class TestLockFencing {
  private final LocalTables localTables = new LocalTables();
  private final PlanRunner runner = PlanRunner.withDefaultActions(localTables.hudiTables());
  private TestingServer server;

  @TempDir
  Path directory;

  @BeforeEach
  void startServer() throws Exception {
    server = new TestingServer(new InstanceSpec(null, -1, -1, -1, true, -1, 500, -1), true);
  }

  @AfterEach
  void stopServer() throws Exception {
    ExpiringZookeeperLockProvider.EXPIRE_WHEN_ACQUIRED_BY.set(null);
    ZookeeperClients.closeAll();
    server.close();
  }

  @Test
  void aCompactionWhoseSessionExpiredUnderTheCommitLockDoesNotCommit() throws Exception {
    ServicedTable written = localTables.create(directory.resolve("orders"), HoodieTableType.MERGE_ON_READ, 9,
        Map.of("hoodie.compact.inline.max.delta.commits", "1"));
    localTables.upsert(written, 0, 20, 1);
    localTables.upsert(written, 0, 10, 2);
    try (HoodieJavaWriteClient<HoodieAvroPayload> client = localTables.hudiTables().writeClient(written)) {
      client.scheduleCompaction(Option.empty()).get();
    }
    Map<String, String> keys = new HashMap<>(written.hoodieKeys());
    keys.put("hoodie.write.lock.provider", ExpiringZookeeperLockProvider.class.getName());
    keys.put("hoodie.write.lock.zookeeper.url", server.getConnectString());
    keys.put("hoodie.write.lock.zookeeper.base_path", "/hudi/locks");
    keys.put("hoodie.write.lock.zookeeper.session_timeout_ms", "4000");
    keys.put("hoodie.write.lock.zookeeper.connection_timeout_ms", "2000");
    keys.put("hoodie.write.lock.client.num_retries", "0");
    ServicedTable table = written.withHoodieKeys(keys);
    PendingPlan plan = PendingPlans.list(localTables.hudiTables().metaClient(table.basePath())).get(0);

    ExpiringZookeeperLockProvider.EXPIRE_WHEN_ACQUIRED_BY.set("completeCompaction");
    assertThatThrownBy(() -> runner.apply(WorkItem.forPlan(table, plan, Placement.inProcess(HeapEstimate.NONE))))
        .hasStackTraceContaining(LockLostException.class.getName())
        .hasStackTraceContaining("is no longer held (the ZooKeeper connection was LOST");
    HoodieTableMetaClient afterLoss = localTables.hudiTables().metaClient(table.basePath());
    assertThat(afterLoss.getActiveTimeline().getCommitTimeline().filterCompletedInstants().getInstants())
        .extracting(HoodieInstant::requestedTime).as("completed commits after the lost lock")
        .doesNotContain(plan.instant());
    assertThat(afterLoss.getActiveTimeline().filterPendingCompactionTimeline().getInstants())
        .extracting(HoodieInstant::requestedTime).containsExactly(plan.instant());

    ExpiringZookeeperLockProvider.EXPIRE_WHEN_ACQUIRED_BY.set(null);
    runner.apply(WorkItem.forPlan(table, plan, Placement.inProcess(HeapEstimate.NONE)));
    HoodieTableMetaClient afterRetry = localTables.hudiTables().metaClient(table.basePath());
    assertThat(afterRetry.getActiveTimeline().getCommitTimeline().filterCompletedInstants().getInstants())
        .extracting(HoodieInstant::requestedTime).contains(plan.instant());
    assertThat(afterRetry.getActiveTimeline().filterPendingCompactionTimeline().getInstants()).isEmpty();
  }
}
