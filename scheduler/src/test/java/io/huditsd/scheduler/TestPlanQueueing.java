package io.huditsd.scheduler;

import io.huditsd.config.ServiceType;
import io.huditsd.config.ServicedTable;
import io.huditsd.executors.ActionResult;
import io.huditsd.executors.HeapEstimate;
import io.huditsd.executors.LocalTables;
import io.huditsd.executors.PendingPlan;
import io.huditsd.executors.PendingPlans;
import io.huditsd.executors.Placement;
import io.huditsd.executors.PlanRunner;
import io.huditsd.executors.RunStatus;
import io.huditsd.executors.WorkItem;
import org.apache.hudi.common.model.HoodieTableType;
import org.apache.hudi.common.table.HoodieTableMetaClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A poll that writes several plans queues each as soon as it is written: a compaction is queued before the clean
 * planned after it in the same poll exists, so a tiny compaction does not wait for the clean to be planned.
 */
class TestPlanQueueing {
  private final LocalTables localTables = new LocalTables();
  /** When each service's plan was queued, in wall-clock milliseconds (comparable with file modification times). */
  private final Map<ServiceType, Long> queuedAt = new ConcurrentHashMap<>();
  private final HoldingPool holdingPool = new HoldingPool(record -> {
    if (record.status() == RunStatus.QUEUED) {
      queuedAt.putIfAbsent(record.item().service(), System.currentTimeMillis());
    }
  });
  private final DuePlanner planner = new DuePlanner(localTables.hudiTables(), holdingPool.pool());

  @TempDir
  Path directory;

  @AfterEach
  void releasePool() throws InterruptedException {
    holdingPool.close();
  }

  @Test
  void aCompactionIsQueuedBeforeTheCleanPlannedAfterItInTheSamePollIsWritten() throws IOException {
    ServicedTable table = localTables.create(directory.resolve("orders"), HoodieTableType.MERGE_ON_READ, 9,
        Map.of("hoodie.compact.inline.max.delta.commits", "2", "hoodie.clean.commits.retained", "1"));
    localTables.upsert(table, 0, 10, 1);
    localTables.upsert(table, 0, 5, 2);
    localTables.upsert(table, 0, 5, 3);
    // A first compaction, run here, leaves every file group two file slices: something for a clean to delete.
    String first = planner.scheduleNow(table, ServiceType.COMPACTION).orElseThrow();
    PendingPlan compaction = PendingPlans.list(localTables.hudiTables().metaClient(table.basePath())).stream()
        .filter(plan -> plan.instant().equals(first)).findFirst().orElseThrow();
    ActionResult compacted = PlanRunner.withDefaultActions(localTables.hudiTables())
        .apply(WorkItem.forPlan(table, compaction, Placement.inProcess(HeapEstimate.NONE)));
    assertThat(compacted.fileGroups()).isPositive();
    localTables.upsert(table, 0, 5, 4);
    localTables.upsert(table, 0, 5, 5);
    queuedAt.clear();

    DuePlanner.Outcome outcome = planner.planAndEnqueue(table,
        HoodieTableMetaClient.reload(localTables.hudiTables().metaClient(table.basePath())));

    assertThat(outcome.scheduledInstants()).hasSize(2);
    assertThat(queuedAt).containsOnlyKeys(ServiceType.COMPACTION, ServiceType.CLEAN);
    // Hudi takes a clean's instant time and then sleeps its clock-skew allowance (200 ms) before it writes the plan,
    // so the clean plan's file is written well after a compaction queued before the clean was begun.
    Path cleanPlan = timelineFile(table, ".clean.requested");
    assertThat(queuedAt.get(ServiceType.COMPACTION))
        .as("compaction queued (ms) against the clean plan written (ms)")
        .isLessThan(Files.getLastModifiedTime(cleanPlan).toMillis());
  }

  private static Path timelineFile(ServicedTable table, String suffix) throws IOException {
    Path timeline = Path.of(java.net.URI.create(table.basePath())).resolve(".hoodie/timeline");
    try (Stream<Path> files = Files.list(timeline)) {
      List<Path> matching = files.filter(file -> file.getFileName().toString().endsWith(suffix)).toList();
      assertThat(matching).as("%s files in %s", suffix, timeline).hasSize(1);
      return matching.get(0);
    }
  }
}
