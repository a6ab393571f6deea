package io.huditsd.scheduler;

import io.huditsd.config.ServiceType;
import io.huditsd.config.ServicedTable;
import io.huditsd.executors.HudiTables;
import io.huditsd.executors.LocalTables;
import io.huditsd.executors.PendingPlan;
import io.huditsd.executors.PendingPlans;
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
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Two pending compaction plans over the same file groups, as two processes write them when their lock does not
 * exclude each other (an explicit InProcessLockProvider): only the earlier plan may ever run.
 */
class TestOverlappingPlans {
  private final LocalTables localTables = new LocalTables();
  private final HudiTables hudiTables = localTables.hudiTables();
  private final HoldingPool holdingPool = new HoldingPool();
  private final DuePlanner planner = new DuePlanner(hudiTables, holdingPool.pool());

  @TempDir
  Path directory;

  @AfterEach
  void releaseRuns() throws InterruptedException {
    holdingPool.close();
  }

  @Test
  void aPlanOverTheFileGroupsOfAnEarlierPendingPlanIsNeverEnqueued() throws IOException {
    ServicedTable table = tableWithTwoOverlappingPlans();
    List<String> plans = pendingCompactions(table);

    planner.planAndEnqueue(table, hudiTables.metaClient(table.basePath()));

    assertThat(holdingPool.pool().snapshot()).extracting(run -> run.item().instant().orElseThrow())
        .as("enqueued of the plans %s", plans)
        .containsExactly(plans.get(0));
  }

  @Test
  void aLaterRequestedPlanIsWithdrawnAndAnInflightOneLeftToItsExecutor() throws IOException {
    ServicedTable table = tableWithTwoOverlappingPlans();
    List<String> plans = pendingCompactions(table);
    HoodieTableMetaClient metaClient = hudiTables.metaClient(table.basePath());
    assertThat(OverlappingPlans.later(PendingPlans.list(metaClient)))
        .containsExactly(Map.entry(plans.get(1), List.of(plans.get(0))));

    assertThat(OverlappingPlans.withdraw(hudiTables.writeConfig(table, metaClient), metaClient, plans.get(1)))
        .isTrue();
    assertThat(pendingCompactions(table)).containsExactly(plans.get(0));

    Path timeline = Path.of(metaClient.getTimelinePath().toUri());
    Files.createFile(timeline.resolve(plans.get(0) + ".compaction.inflight"));
    assertThat(OverlappingPlans.withdraw(hudiTables.writeConfig(table, metaClient), metaClient, plans.get(0)))
        .as("withdraw an inflight plan").isFalse();
    assertThat(pendingCompactions(table)).containsExactly(plans.get(0));
  }

  @Test
  void plansOverDisjointFileGroupsDoNotOverlap() {
    PendingPlan first = new PendingPlan(ServiceType.COMPACTION, "20261201000000000", false, Set.of("eu/a"), 0);
    PendingPlan second = new PendingPlan(ServiceType.CLUSTERING, "20261201000000001", false, Set.of("eu/b"), 0);
    PendingPlan third = new PendingPlan(ServiceType.CLUSTERING, "20261201000000002", false, Set.of("eu/b", "eu/a"), 0);
    PendingPlan clean = new PendingPlan(ServiceType.CLEAN, "20261201000000003", false, Set.of(), 0);

    assertThat(OverlappingPlans.later(List.of(third, clean, second, first)))
        .containsExactly(Map.entry("20261201000000002", List.of("20261201000000000", "20261201000000001")));
    assertThat(OverlappingPlans.later(List.of(first, second, clean))).isEmpty();
  }

  /**
   * A MOR table with a compaction plan, and a copy of that plan at a later instant: what a second process writes
   * when it plans the same file groups without seeing the first plan.
   */
  private ServicedTable tableWithTwoOverlappingPlans() throws IOException {
    ServicedTable table = localTables.create(directory.resolve("orders"), HoodieTableType.MERGE_ON_READ, 9,
        Map.of("hoodie.compact.inline.max.delta.commits", "1"));
    localTables.upsert(table, 0, 20, 1);
    localTables.upsert(table, 0, 20, 2);
    // Enqueued here, and held running by the pool until the test ends.
    String first = planner.scheduleNow(table, ServiceType.COMPACTION).orElseThrow();
    Path timeline = Path.of(hudiTables.metaClient(table.basePath()).getTimelinePath().toUri());
    String second = Long.toString(Long.parseLong(first) + 1);
    Files.copy(timeline.resolve(first + ".compaction.requested"), timeline.resolve(second + ".compaction.requested"));
    return table;
  }

  private List<String> pendingCompactions(ServicedTable table) {
    return PendingPlans.list(hudiTables.metaClient(table.basePath())).stream()
        .filter(plan -> plan.service() == ServiceType.COMPACTION)
        .map(PendingPlan::instant)
        .sorted()
        .toList();
  }
}
