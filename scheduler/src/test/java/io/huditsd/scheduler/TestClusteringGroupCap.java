package io.huditsd.scheduler;

import io.huditsd.config.ServicedTable;
import io.huditsd.config.TableWriteConfigs;
import io.huditsd.executors.ActionResult;
import io.huditsd.executors.ClusteringStrategyMatch;
import io.huditsd.executors.HeapEstimator;
import io.huditsd.executors.LocalTables;
import io.huditsd.executors.PendingPlan;
import io.huditsd.executors.PendingPlans;
import io.huditsd.executors.PlanSizes;
import io.huditsd.executors.RunRecord;
import io.huditsd.executors.RunStatus;
import io.huditsd.executors.WorkerPool;
import org.apache.hudi.avro.model.HoodieClusteringGroup;
import org.apache.hudi.avro.model.HoodieClusteringPlan;
import org.apache.hudi.avro.model.HoodieSliceInfo;
import org.apache.hudi.common.model.HoodieTableType;
import org.apache.hudi.common.table.HoodieTableMetaClient;
import org.apache.hudi.common.util.ClusteringUtils;
import org.apache.hudi.storage.StoragePath;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** Clustering planned by the daemon for a table that clusters in process keeps each group within the budget. */
class TestClusteringGroupCap {
  private static final long MIB = 1L << 20;
  /** One group of at most 1 MiB fits: 16 MiB per run + 1 MiB x 13. */
  private static final long BUDGET = HeapEstimator.rewriteBytes(MIB);
  private static final Map<String, String> CLUSTER_NOW = Map.of(
      "hoodie.clustering.plan.strategy.hot.commits", "0", "hoodie.clustering.plan.strategy.hot.minutes", "0");

  private final LocalTables localTables = new LocalTables();
  private final CountDownLatch release = new CountDownLatch(1);
  private final List<RunRecord> runs = new ArrayList<>();
  private final WorkerPool pool = new WorkerPool(1, 0, BUDGET, 1, Duration.ZERO, item -> {
    try {
      release.await(60, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    return new ActionResult(item.service(), item.instant(), 0, 0, 0, Duration.ZERO);
  }, record -> {
    synchronized (runs) {
      runs.add(record);
    }
  }, tableId -> false);
  private final DuePlanner planner = new DuePlanner(localTables.hudiTables(), pool);

  @TempDir
  Path directory;

  @AfterEach
  void stop() throws InterruptedException {
    release.countDown();
    pool.shutdown(Duration.ofSeconds(10));
  }

  /** Sorted groups are rewritten by Hudi's strategy, which holds a group's records: they must fit the budget. */
  @Test
  void sortedGroupsOfATableClusteredInProcessFitTheBudget() throws IOException {
    Map<String, String> keys = new java.util.HashMap<>(CLUSTER_NOW);
    keys.put(HeapEstimator.SORT_COLUMNS_KEY, "ts");
    ServicedTable table = tableWithSmallFiles("orders", keys);

    HoodieClusteringPlan plan = planClustering(table);

    HoodieTableMetaClient metaClient = localTables.hudiTables().metaClient(table.basePath());
    long cap = GroupCap.largestGroupWithin(BUDGET);
    assertThat(plan.getInputGroups()).hasSizeGreaterThan(2);
    for (HoodieClusteringGroup group : plan.getInputGroups()) {
      assertThat(groupBytes(metaClient, group)).isLessThanOrEqualTo(cap);
    }
    // So the plan is queued rather than refused by the budget.
    synchronized (runs) {
      assertThat(runs).filteredOn(run -> run.item().service().configName().equals("clustering"))
          .extracting(RunRecord::status).doesNotContain(RunStatus.FAILED).isNotEmpty();
    }
    // The table's own value is back on the client's config once the plan is written.
    assertThat(localTables.hudiTables().writeConfig(table, metaClient).getClusteringMaxBytesInGroup())
        .isGreaterThan(cap);
  }

  @Test
  void groupsOfATableClusteredOnSparkArePlannedAsTheTableSays() throws IOException {
    Map<String, String> keys = new java.util.HashMap<>(CLUSTER_NOW);
    keys.put("tsd.engine.clustering", "spark");
    ServicedTable table = tableWithSmallFiles("events", keys);

    HoodieClusteringPlan plan = planClustering(table);

    HoodieTableMetaClient metaClient = localTables.hudiTables().metaClient(table.basePath());
    // One group per partition, as Hudi's default 2 GiB per group allows.
    assertThat(plan.getInputGroups()).hasSize(2);
    assertThat(plan.getInputGroups()).anyMatch(group -> groupBytes(metaClient, group) > MIB);
  }

  /**
   * The rewrite's unsorted plan is executed by the daemon's streaming rewrite, which holds a row group or two
   * whatever the group's size: it is planned as the table says, and its estimate fits the budget the list estimate
   * would not.
   */
  @Test
  void streamedGroupsArePlannedAsTheTableSaysAndFitTheBudget() throws IOException {
    Map<String, String> keys = new java.util.HashMap<>(CLUSTER_NOW);
    keys.put("hoodie.clustering.plan.strategy.class", TableWriteConfigs.REWRITE_PLAN_STRATEGY);
    ServicedTable table = tableWithSmallFiles("streamed", keys);

    HoodieClusteringPlan plan = planClustering(table);

    HoodieTableMetaClient metaClient = localTables.hudiTables().metaClient(table.basePath());
    // One group per partition, as Hudi's default 2 GiB per group allows.
    assertThat(plan.getInputGroups()).hasSize(2);
    assertThat(plan.getInputGroups()).anyMatch(group -> groupBytes(metaClient, group) > GroupCap.largestGroupWithin(BUDGET));
    assertThat(HeapEstimator.streams(plan, table.hoodieKeys())).isTrue();
    synchronized (runs) {
      assertThat(runs).filteredOn(run -> run.item().service().configName().equals("clustering"))
          .extracting(RunRecord::status).doesNotContain(RunStatus.FAILED).isNotEmpty();
    }
  }

  /** The default plan copies row groups: it holds one source file, so it is planned as the table says too. */
  @Test
  void binaryCopyGroupsOfTheDefaultPlanArePlannedAsTheTableSaysAndFitTheBudget() throws IOException {
    ServicedTable table = tableWithSmallFiles("copied", CLUSTER_NOW);

    HoodieClusteringPlan plan = planClustering(table);

    HoodieTableMetaClient metaClient = localTables.hudiTables().metaClient(table.basePath());
    assertThat(plan.getStrategy().getStrategyClassName()).isEqualTo(ClusteringStrategyMatch.JAVA_BINARY_COPY);
    assertThat(plan.getInputGroups()).hasSize(2);
    assertThat(plan.getInputGroups()).anyMatch(group -> groupBytes(metaClient, group) > GroupCap.largestGroupWithin(BUDGET));
    synchronized (runs) {
      assertThat(runs).filteredOn(run -> run.item().service().configName().equals("clustering"))
          .extracting(RunRecord::status).doesNotContain(RunStatus.FAILED).isNotEmpty();
    }
  }

  @Test
  void theCapIsTheLargestGroupWhoseEstimateFits() {
    long cap = GroupCap.largestGroupWithin(BUDGET);
    assertThat(HeapEstimator.rewriteBytes(cap)).isLessThanOrEqualTo(BUDGET);
    assertThat(HeapEstimator.rewriteBytes(cap + 1)).isGreaterThan(BUDGET);
    assertThat(new GroupCap(Long.MAX_VALUE).capFor(null, Long.MAX_VALUE, null, false)).isEmpty();
  }

  /** Six commits of one small file per partition each (most of a small file is its bloom filter). */
  private ServicedTable tableWithSmallFiles(String name, Map<String, String> keys) throws IOException {
    ServicedTable table = localTables.create(directory.resolve(name), HoodieTableType.COPY_ON_WRITE, 9, keys);
    for (int commit = 0; commit < 6; commit++) {
      localTables.upsert(table, commit * 1_000, 1_000, 1);
    }
    return table;
  }

  private HoodieClusteringPlan planClustering(ServicedTable table) {
    HoodieTableMetaClient metaClient = localTables.hudiTables().metaClient(table.basePath());
    planner.planAndEnqueue(table, metaClient);
    metaClient.reloadActiveTimeline();
    PendingPlan pending = PendingPlans.list(metaClient).stream()
        .filter(plan -> plan.service().configName().equals("clustering")).findFirst().orElseThrow();
    assertThat(PlanSizes.of(metaClient, pending).bytesIn()).isGreaterThan(2 * MIB);
    return ClusteringUtils.getPendingClusteringPlan(metaClient, pending.instant());
  }

  private static long groupBytes(HoodieTableMetaClient metaClient, HoodieClusteringGroup group) {
    long bytes = 0;
    for (HoodieSliceInfo slice : group.getSlices()) {
      try {
        bytes += metaClient.getStorage().getPathInfo(
            new StoragePath(metaClient.getBasePath(), slice.getDataFilePath())).getLength();
      } catch (IOException e) {
        throw new IllegalStateException(e);
      }
    }
    return bytes;
  }
}
