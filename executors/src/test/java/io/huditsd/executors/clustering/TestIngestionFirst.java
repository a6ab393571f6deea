package io.huditsd.executors.clustering;

import io.huditsd.config.ServiceType;
import io.huditsd.config.ServicedTable;
import io.huditsd.executors.ClusteringAction;
import io.huditsd.executors.HeapEstimate;
import io.huditsd.executors.PendingPlan;
import io.huditsd.executors.PendingPlans;
import io.huditsd.executors.Placement;
import io.huditsd.executors.PlanRunner;
import io.huditsd.executors.WorkItem;
import org.apache.hudi.avro.model.HoodieClusteringPlan;
import org.apache.hudi.client.HoodieJavaWriteClient;
import org.apache.hudi.common.model.HoodieAvroPayload;
import org.apache.hudi.common.model.HoodieCommitMetadata;
import org.apache.hudi.common.model.HoodieTableType;
import org.apache.hudi.common.model.HoodieWriteStat;
import org.apache.hudi.common.table.HoodieTableMetaClient;
import org.apache.hudi.common.table.timeline.HoodieInstant;
import org.apache.hudi.common.util.ClusteringUtils;
import org.apache.hudi.common.util.Option;
import org.apache.hudi.exception.HoodieWriteConflictException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Writers before the daemon's clustering: plans leave out hot file groups, and a conflict is the clustering's loss. */
class TestIngestionFirst {
  private static final Map<String, String> PLAN_EVERYTHING = Map.of(
      "hoodie.clustering.inline.max.commits", "1", HotFileGroups.COMMITS_KEY, "0", HotFileGroups.MINUTES_KEY, "0");
  private static final Map<String, String> WRITER_FIRST = Map.of(
      "hoodie.write.lock.conflict.resolution.strategy", "io.huditsd.lock.IngestionFirstConflictResolutionStrategy");

  private final CopyTables tables = new CopyTables();

  @TempDir
  Path directory;

  @Test
  void aWriterUpdatingAFileGroupOfAPendingClusteringCommitsAndTheClusteringIsRolledBackAndPlannedAnew()
      throws Exception {
    ServicedTable table = tables.create(directory.resolve("orders"), HoodieTableType.COPY_ON_WRITE, CopyTables.V1,
        PLAN_EVERYTHING);
    for (int commit = 0; commit < 3; commit++) {
      tables.upsert(table, CopyTables.V1, commit * 40, 40, 1, 1);
    }
    String planned = schedule(table);

    // The writer updates ids 0-19, which sit in file groups of the pending plan.
    String update = tables.upsert(table, CopyTables.V1, 0, 20, 2, 10, WRITER_FIRST);

    PlanRunner runner = PlanRunner.withDefaultActions(tables.hudiTables());
    assertThatThrownBy(() -> runner.apply(WorkItem.forPlan(table, pending(table, planned), Placement.inProcess(HeapEstimate.NONE))))
        .isInstanceOf(ClusteringAction.YieldedToWriterException.class)
        .hasMessageContaining("clustering " + planned + " yielded to a writer and was rolled back");
    HoodieTableMetaClient metaClient = tables.hudiTables().metaClient(table.basePath());
    assertThat(PendingPlans.list(metaClient)).isEmpty();
    assertThat(metaClient.getActiveTimeline().filterCompletedInstants().getInstants())
        .extracting(HoodieInstant::requestedTime).contains(update);
    assertFirst20UpdatedOf120(tables.latestRows(table));

    // The next plan starts from the writer's commit and completes.
    String replanned = schedule(table);
    runner.apply(WorkItem.forPlan(table, pending(table, replanned), Placement.inProcess(HeapEstimate.NONE)));
    assertThat(tables.latestBaseFiles(table)).hasSize(2);
    assertFirst20UpdatedOf120(tables.latestRows(table));
  }

  /** Why writers need the strategy: Hudi's default fails a writer over any pending plan sharing a file group. */
  @Test
  void withHudisDefaultConflictResolutionTheWriterIsTheOneThatFails() throws Exception {
    ServicedTable table = tables.create(directory.resolve("orders"), HoodieTableType.COPY_ON_WRITE, CopyTables.V1,
        PLAN_EVERYTHING);
    for (int commit = 0; commit < 3; commit++) {
      tables.upsert(table, CopyTables.V1, commit * 40, 40, 1, 1);
    }
    schedule(table);

    assertThatThrownBy(() -> tables.upsert(table, CopyTables.V1, 0, 20, 2, 10))
        .hasRootCauseInstanceOf(java.util.ConcurrentModificationException.class)
        .isInstanceOf(HoodieWriteConflictException.class);
  }

  @Test
  void aPlanLeavesOutTheFileGroupsOfTheLatestWriterCommitsAndSaysHowMany() throws Exception {
    Map<String, String> keys = Map.of("hoodie.clustering.inline.max.commits", "1",
        HotFileGroups.COMMITS_KEY, "1", HotFileGroups.MINUTES_KEY, "0");
    ServicedTable table = tables.create(directory.resolve("orders"), HoodieTableType.COPY_ON_WRITE, CopyTables.V1,
        keys);
    for (int commit = 0; commit < 3; commit++) {
      tables.upsert(table, CopyTables.V1, commit * 40, 40, 1, 1);
    }
    HoodieTableMetaClient metaClient = tables.hudiTables().metaClient(table.basePath());
    HoodieInstant latest = metaClient.getActiveTimeline().getCommitsTimeline().filterCompletedInstants()
        .lastInstant().get();
    Set<String> hot = fileGroups(metaClient.getActiveTimeline().readCommitMetadata(latest));
    assertThat(hot).hasSize(2);

    String planned = schedule(table);

    PendingPlan plan = pending(table, planned);
    assertThat(plan.fileGroupIds()).hasSize(4).doesNotContainAnyElementsOf(hot);
    HoodieClusteringPlan clusteringPlan = ClusteringUtils.getPendingClusteringPlan(
        tables.hudiTables().metaClient(table.basePath()), planned);
    assertThat(HotFileGroups.skippedIn(clusteringPlan)).isEqualTo(2);
  }

  @Test
  void nothingIsPlannedWhileEveryFileGroupIsHot() throws Exception {
    ServicedTable table = tables.create(directory.resolve("orders"), HoodieTableType.COPY_ON_WRITE, CopyTables.V1,
        Map.of("hoodie.clustering.inline.max.commits", "1"));
    for (int commit = 0; commit < 3; commit++) {
      tables.upsert(table, CopyTables.V1, commit * 40, 40, 1, 1);
    }
    try (HoodieJavaWriteClient<HoodieAvroPayload> client = tables.hudiTables().writeClient(table)) {
      // By default the file groups of the last 10 writer commits and of the last 10 minutes are hot.
      assertThat(client.scheduleClustering(Option.empty()).isPresent()).isFalse();
    }
  }

  @Test
  void fileGroupsWrittenWithinTheWindowAreHotWhateverTheCommitCount() throws Exception {
    ServicedTable table = tables.create(directory.resolve("orders"), HoodieTableType.COPY_ON_WRITE, CopyTables.V1,
        Map.of("hoodie.clustering.inline.max.commits", "1", HotFileGroups.COMMITS_KEY, "0",
            HotFileGroups.MINUTES_KEY, "10"));
    for (int commit = 0; commit < 3; commit++) {
      tables.upsert(table, CopyTables.V1, commit * 40, 40, 1, 1);
    }
    HotFileGroups settings = new HotFileGroups(0, java.time.Duration.ofMinutes(10));
    assertThat(settings.find(tables.hudiTables().metaClient(table.basePath()), java.time.Instant.now())).hasSize(6);
    try (HoodieJavaWriteClient<HoodieAvroPayload> client = tables.hudiTables().writeClient(table)) {
      assertThat(client.scheduleClustering(Option.empty()).isPresent()).isFalse();
    }
  }

  private String schedule(ServicedTable table) {
    try (HoodieJavaWriteClient<HoodieAvroPayload> client = tables.hudiTables().writeClient(table)) {
      return client.scheduleClustering(Option.empty()).get();
    }
  }

  private PendingPlan pending(ServicedTable table, String instant) {
    return PendingPlans.list(tables.hudiTables().metaClient(table.basePath())).stream()
        .filter(plan -> plan.service() == ServiceType.CLUSTERING && plan.instant().equals(instant))
        .findFirst().orElseThrow();
  }

  private static Set<String> fileGroups(HoodieCommitMetadata metadata) {
    Set<String> fileGroups = new HashSet<>();
    for (HoodieWriteStat stat : metadata.getWriteStats()) {
      fileGroups.add(stat.getPartitionPath() + "/" + stat.getFileId());
    }
    return fileGroups;
  }

  /** 120 rows, ids 0-19 updated to amount id * 10, the others as inserted (amount = id). */
  private static void assertFirst20UpdatedOf120(List<Map<String, String>> rows) {
    assertThat(rows).hasSize(120);
    for (Map<String, String> row : rows) {
      int id = Integer.parseInt(row.get("id").substring(3));
      assertThat(row.get("amount")).as(row.get("id")).isEqualTo(Long.toString(id < 20 ? id * 10L : id));
    }
  }
}
