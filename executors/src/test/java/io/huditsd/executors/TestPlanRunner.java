package io.huditsd.executors;

import io.huditsd.config.ServiceType;
import io.huditsd.config.ServicedTable;
import org.apache.hudi.client.HoodieJavaWriteClient;
import org.apache.hudi.client.heartbeat.HoodieHeartbeatClient;
import org.apache.hudi.common.model.HoodieAvroPayload;
import org.apache.hudi.common.model.HoodieTableType;
import org.apache.hudi.common.table.HoodieTableMetaClient;
import org.apache.hudi.common.table.timeline.HoodieInstant;
import org.apache.hudi.common.util.Option;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The runner with the real actions against a real MOR table. */
class TestPlanRunner {
  private final LocalTables localTables = new LocalTables();
  private final PlanRunner runner = PlanRunner.withDefaultActions(localTables.hudiTables());

  @TempDir
  Path directory;

  private ServicedTable tableWithScheduledCompaction() throws IOException {
    ServicedTable table = localTables.create(directory.resolve("orders"), HoodieTableType.MERGE_ON_READ, 9,
        Map.of("hoodie.compact.inline.max.delta.commits", "1"));
    localTables.upsert(table, 0, 20, 1);
    localTables.upsert(table, 0, 10, 2);
    try (HoodieJavaWriteClient<HoodieAvroPayload> client = localTables.hudiTables().writeClient(table)) {
      client.scheduleCompaction(Option.empty()).get();
    }
    return table;
  }

  private PendingPlan onlyPlan(ServicedTable table) {
    HoodieTableMetaClient metaClient = localTables.hudiTables().metaClient(table.basePath());
    return PendingPlans.list(metaClient).get(0);
  }

  @Test
  void executesACompactionAndThenSkipsItAsNoLongerPending() throws IOException {
    ServicedTable table = tableWithScheduledCompaction();
    PendingPlan plan = onlyPlan(table);
    WorkItem item = WorkItem.forPlan(table, plan, Placement.inProcess(HeapEstimate.NONE));

    ActionResult result = runner.apply(item);

    assertThat(result.service()).isEqualTo(ServiceType.COMPACTION);
    assertThat(result.instant()).contains(plan.instant());
    assertThat(result.fileGroups()).isEqualTo(plan.fileGroupIds().size());
    // Hudi reports the log block bytes it read; the plan counts whole log files (headers and schema included).
    assertThat(result.bytesIn()).isPositive().isLessThanOrEqualTo(plan.inputBytes());
    assertThat(result.bytesOut()).isPositive();
    HoodieTableMetaClient metaClient = localTables.hudiTables().metaClient(table.basePath());
    assertThat(PendingPlans.list(metaClient)).isEmpty();
    assertThat(metaClient.getActiveTimeline().getCommitTimeline().filterCompletedInstants().getInstants())
        .extracting(HoodieInstant::requestedTime).contains(plan.instant());

    assertThatThrownBy(() -> runner.apply(item))
        .isInstanceOf(PlanSkippedException.class)
        .hasMessage("plan " + plan.instant() + " is no longer pending (completed or rolled back elsewhere)");
  }

  @Test
  void skipsAnInflightPlanWhoseHeartbeatIsAlive() throws IOException {
    ServicedTable table = tableWithScheduledCompaction();
    HoodieTableMetaClient metaClient = localTables.hudiTables().metaClient(table.basePath());
    HoodieInstant requested = metaClient.getActiveTimeline().filterPendingCompactionTimeline().lastInstant().get();
    metaClient.getActiveTimeline().transitionCompactionRequestedToInflight(requested);
    // Another process executing the plan keeps its heartbeat file fresh.
    try (HoodieHeartbeatClient heartbeat = new HoodieHeartbeatClient(metaClient.getStorage(),
        table.basePath(), 60_000L, 2)) {
      heartbeat.start(requested.requestedTime());

      assertThatThrownBy(() -> runner.apply(WorkItem.forPlan(table, onlyPlan(table), Placement.inProcess(HeapEstimate.NONE))))
          .isInstanceOf(PlanSkippedException.class)
          .hasMessage("plan " + requested.requestedTime()
              + " is being executed by a live process (heartbeat within 180000 ms)");
      heartbeat.stop(requested.requestedTime());
    }
  }

  /**
   * Two processes that both found the plan still requested (overlapping {@code once} runs) both start it; Hudi lets
   * the first one that starts its heartbeat under the table lock execute it. The other run is skipped, not failed:
   * the plan is being executed.
   */
  @Test
  void skipsARequestedPlanThatAnotherProcessStartedFirst() throws IOException {
    ServicedTable table = tableWithScheduledCompaction();
    PendingPlan plan = onlyPlan(table);
    assertThat(plan.inflight()).as("the plan is still requested, so the liveness check lets it through").isFalse();
    HoodieTableMetaClient metaClient = localTables.hudiTables().metaClient(table.basePath());
    try (HoodieHeartbeatClient heartbeat = new HoodieHeartbeatClient(metaClient.getStorage(),
        table.basePath(), 60_000L, 2)) {
      heartbeat.start(plan.instant());

      assertThatThrownBy(() -> runner.apply(WorkItem.forPlan(table, plan, Placement.inProcess(HeapEstimate.NONE))))
          .isInstanceOf(PlanSkippedException.class)
          .hasMessage("plan " + plan.instant() + " is being executed by another process (Hudi found its heartbeat "
              + "when this run started)");
      heartbeat.stop(plan.instant());
    }
  }

  /**
   * Another process completed the plan after this run found it pending (overlapping once runs): Hudi refuses it
   * under the table lock, and the run is a skip, not a failure.
   */
  @Test
  void aCompactionCompletedElsewhereAfterItWasFoundPendingIsSkipped() throws IOException {
    ServicedTable table = tableWithScheduledCompaction();
    PendingPlan plan = onlyPlan(table);
    runner.apply(WorkItem.forPlan(table, plan, Placement.inProcess(HeapEstimate.NONE)));

    try (HoodieJavaWriteClient<HoodieAvroPayload> client = localTables.hudiTables().writeClient(table)) {
      assertThatThrownBy(() -> new CompactionAction().execute(client, Optional.of(plan.instant())))
          .isInstanceOf(PlanSkippedException.class)
          .hasMessage("plan " + plan.instant() + " is no longer pending (completed elsewhere; Hudi checked under the"
              + " table lock)");
    }
  }

  /**
   * The same race for clustering, which Hudi does not guard: without the daemon's own heartbeat check under the
   * table lock both processes would rewrite the plan's file groups.
   */
  @Test
  void skipsARequestedClusteringThatAnotherProcessStartedFirst() throws IOException {
    ServicedTable table = localTables.create(directory.resolve("events"), HoodieTableType.COPY_ON_WRITE, 9,
        Map.of("hoodie.clustering.inline.max.commits", "1",
            "hoodie.clustering.plan.strategy.hot.commits", "0", "hoodie.clustering.plan.strategy.hot.minutes", "0"));
    localTables.upsert(table, 0, 10, 1);
    localTables.upsert(table, 10, 10, 1);
    String instant;
    try (HoodieJavaWriteClient<HoodieAvroPayload> client = localTables.hudiTables().writeClient(table)) {
      instant = client.scheduleClustering(Option.empty()).get();
    }
    PendingPlan plan = onlyPlan(table);
    assertThat(plan.inflight()).as("the plan is still requested, so the liveness check lets it through").isFalse();
    HoodieTableMetaClient metaClient = localTables.hudiTables().metaClient(table.basePath());
    try (HoodieHeartbeatClient heartbeat = new HoodieHeartbeatClient(metaClient.getStorage(),
        table.basePath(), 60_000L, 2)) {
      heartbeat.start(instant);

      assertThatThrownBy(() -> runner.apply(WorkItem.forPlan(table, plan, Placement.inProcess(HeapEstimate.NONE))))
          .isInstanceOf(PlanSkippedException.class)
          .hasMessage("plan " + instant + " is being executed by another process (its heartbeat is alive; checked "
              + "under the table lock)");
      heartbeat.stop(instant);
    }
    assertThat(onlyPlan(table).inflight()).as("the skipped run did not start the plan").isFalse();

    ActionResult result = runner.apply(WorkItem.forPlan(table, onlyPlan(table), Placement.inProcess(HeapEstimate.NONE)));
    assertThat(result.fileGroups()).as("the plan runs once the other heartbeat is gone").isPositive();
  }

  /**
   * The engine is behind an interface: whatever engine executes, the runner's checks come first, and a plan that is
   * no longer pending never reaches it.
   */
  @Test
  void anotherEngineGetsOnlyThePlansTheChecksLetThrough() throws IOException {
    ServicedTable table = tableWithScheduledCompaction();
    WorkItem item = WorkItem.forPlan(table, onlyPlan(table), Placement.inProcess(HeapEstimate.NONE));
    List<WorkItem> executed = new ArrayList<>();
    PlanRunner otherEngine = new PlanRunner(localTables.hudiTables(), PlanRunner.defaultActions(), run -> {
      executed.add(run);
      return new ActionResult(run.service(), run.instant(), 0, 0, 0, Duration.ZERO);
    });

    otherEngine.apply(item);
    assertThat(executed).containsExactly(item);
    assertThat(onlyPlan(table).inflight()).as("the other engine did not execute it").isFalse();

    runner.apply(item);
    assertThatThrownBy(() -> otherEngine.apply(item)).isInstanceOf(PlanSkippedException.class);
    assertThat(executed).containsExactly(item);
  }

  @Test
  void archiveRunsWithoutAPlan() throws IOException {
    ServicedTable table = localTables.create(directory.resolve("events"), HoodieTableType.COPY_ON_WRITE, 9, Map.of());
    localTables.upsert(table, 0, 5, 1);

    ActionResult result = runner.apply(WorkItem.forArchive(table));

    assertThat(result.service()).isEqualTo(ServiceType.ARCHIVE);
    assertThat(result.instant()).isEqualTo(Optional.empty());
  }
}
