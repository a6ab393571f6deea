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
import io.huditsd.executors.ServiceAction;
import io.huditsd.executors.WorkItem;
import org.apache.hudi.client.heartbeat.HoodieHeartbeatClient;
import org.apache.hudi.common.model.HoodieTableType;
import org.apache.hudi.common.table.HoodieTableMetaClient;
import org.apache.hudi.common.table.timeline.HoodieInstant;
import org.apache.hudi.config.HoodieWriteConfig;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Each service's own rules (heartbeat, force-now keys), asserted on real tables through the planner and the runner. */
class TestTableServices {
  private final LocalTables localTables = new LocalTables();
  private final HoldingPool holdingPool = new HoldingPool();
  private final DuePlanner planner = new DuePlanner(localTables.hudiTables(), holdingPool.pool());
  private final TableServices services = planner.services();

  @TempDir
  Path directory;

  @AfterEach
  void releasePool() throws InterruptedException {
    holdingPool.close();
  }

  @Test
  void everyServiceTypeHasOneServiceRunByTheRunnersActionOfThatType() {
    Map<ServiceType, ServiceAction> runnerActions = new EnumMap<>(ServiceType.class);
    for (ServiceAction action : PlanRunner.defaultActions()) {
      runnerActions.put(action.service(), action);
    }
    assertThat(runnerActions).containsOnlyKeys(ServiceType.values());
    for (ServiceType type : ServiceType.values()) {
      TableService service = services.of(type);
      assertThat(service.type()).isEqualTo(type);
      assertThat(service.action().service()).isEqualTo(type);
      assertThat(service.action()).isExactlyInstanceOf(runnerActions.get(type).getClass());
      assertThat(services.planned(type)).as("%s writes plans", type).isEqualTo(type == ServiceType.ARCHIVE
          ? Optional.empty() : Optional.of(service));
    }
  }

  @Test
  void runsOfCompactionClusteringAndIndexKeepAHeartbeatCleanAndArchiveDoNot() {
    Map<ServiceType, Boolean> keepsHeartbeat = new EnumMap<>(ServiceType.class);
    for (TableService service : services.all()) {
      keepsHeartbeat.put(service.type(), service.keepsHeartbeat());
    }
    assertThat(keepsHeartbeat).isEqualTo(Map.of(ServiceType.COMPACTION, true, ServiceType.CLUSTERING, true,
        ServiceType.INDEX, true, ServiceType.CLEAN, false, ServiceType.ARCHIVE, false));
  }

  @Test
  void theForceNowKeysMakeCompactionAndClusteringDueWhereTheirTriggersSayNotYet() throws IOException {
    ServicedTable mor = localTables.create(directory.resolve("mor"), HoodieTableType.MERGE_ON_READ, 9, Map.of());
    localTables.upsert(mor, 0, 10, 1);
    localTables.upsert(mor, 0, 10, 2);
    ServicedTable cow = localTables.create(directory.resolve("cow"), HoodieTableType.COPY_ON_WRITE, 9, Map.of());
    localTables.upsert(cow, 0, 10, 1);
    localTables.upsert(cow, 10, 10, 1);

    // Hudi's defaults: 5 delta commits for compaction, 4 commits for clustering.
    for (PlannedService service : new PlannedService[] {services.planned(ServiceType.COMPACTION).orElseThrow(),
        services.planned(ServiceType.CLUSTERING).orElseThrow()}) {
      ServicedTable table = service.type() == ServiceType.COMPACTION ? mor : cow;
      HoodieTableMetaClient metaClient = localTables.hudiTables().metaClient(table.basePath());
      long now = System.currentTimeMillis();
      assertThat(service.due(table, metaClient, config(table, metaClient, Map.of()), now))
          .as(service.type() + " by default").isEmpty();
      assertThat(service.due(table, metaClient, config(table, metaClient, service.forceNowKeys()), now))
          .as(service.type() + " forced").isPresent();
    }
  }

  @Test
  void anIndexIsPlannedWheneverOneIsMissingSoNoKeysForceIt() {
    assertThat(services.planned(ServiceType.INDEX).orElseThrow().forceNowKeys()).isEmpty();
  }

  @Test
  void archivalHasNoPlanToScheduleOnRequest() throws IOException {
    ServicedTable table = localTables.create(directory.resolve("events"), HoodieTableType.COPY_ON_WRITE, 9, Map.of());

    assertThatThrownBy(() -> planner.scheduleNow(table, ServiceType.ARCHIVE))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("archive has no plan to schedule");
  }

  /**
   * Compaction runs keep a heartbeat: an inflight compaction whose heartbeat is alive belongs to a live process, so
   * the planner asks to be called again when that heartbeat expires (the runner skips it meanwhile, see
   * TestPlanRunner).
   */
  @Test
  void anInflightCompactionWithALiveHeartbeatIsPlannedAgainWhenTheHeartbeatExpires() throws IOException {
    ServicedTable table = localTables.create(directory.resolve("orders"), HoodieTableType.MERGE_ON_READ, 9, Map.of());
    localTables.upsert(table, 0, 20, 1);
    localTables.upsert(table, 0, 10, 2);
    // Two delta commits: compaction is due only because scheduling on request forces it.
    String instant = planner.scheduleNow(table, ServiceType.COMPACTION).orElseThrow();
    HoodieTableMetaClient metaClient = localTables.hudiTables().metaClient(table.basePath());
    HoodieInstant requested = metaClient.getActiveTimeline().filterPendingCompactionTimeline().lastInstant().get();
    metaClient.getActiveTimeline().transitionCompactionRequestedToInflight(requested);

    try (HoodieHeartbeatClient heartbeat = heartbeatOf(metaClient, table)) {
      heartbeat.start(instant);
      Instant started = Instant.now();

      DuePlanner.Outcome outcome = planner.planAndEnqueue(table, HoodieTableMetaClient.reload(metaClient));

      assertThat(outcome.recheckAt()).isPresent();
      assertThat(outcome.recheckAt().get())
          .isAfter(started)
          .isBeforeOrEqualTo(Instant.now().plusMillis(localTables.hudiTables().heartbeat().expiryMillis()));
      heartbeat.stop(instant);
    }
  }

  /**
   * Clean runs keep no heartbeat: a heartbeat file beside an inflight clean says nothing about a live process, so the
   * planner asks for no recheck and the runner executes the clean.
   */
  @Test
  void anInflightCleanIsExecutedWhateverItsHeartbeatSays() throws IOException {
    ServicedTable table = localTables.create(directory.resolve("events"), HoodieTableType.COPY_ON_WRITE, 9,
        Map.of("hoodie.clean.commits.retained", "1"));
    localTables.upsert(table, 0, 10, 1);
    localTables.upsert(table, 0, 10, 2);
    localTables.upsert(table, 0, 10, 3);
    String instant = planner.scheduleNow(table, ServiceType.CLEAN).orElseThrow();
    HoodieTableMetaClient metaClient = localTables.hudiTables().metaClient(table.basePath());
    HoodieInstant requested = metaClient.getActiveTimeline().getCleanerTimeline().filterInflightsAndRequested()
        .lastInstant().get();
    metaClient.getActiveTimeline().transitionCleanRequestedToInflight(requested);

    try (HoodieHeartbeatClient heartbeat = heartbeatOf(metaClient, table)) {
      heartbeat.start(instant);

      DuePlanner.Outcome outcome = planner.planAndEnqueue(table, HoodieTableMetaClient.reload(metaClient));
      assertThat(outcome.recheckAt()).isEmpty();

      PendingPlan clean = PendingPlans.list(HoodieTableMetaClient.reload(metaClient)).stream()
          .filter(plan -> plan.service() == ServiceType.CLEAN).findFirst().orElseThrow();
      assertThat(clean.inflight()).isTrue();
      ActionResult result = PlanRunner.withDefaultActions(localTables.hudiTables())
          .apply(WorkItem.forPlan(table, clean, Placement.inProcess(HeapEstimate.NONE)));
      assertThat(result.instant()).contains(instant);
      assertThat(result.fileGroups()).as("files deleted").isPositive();
      heartbeat.stop(instant);
    }
  }

  private static HoodieHeartbeatClient heartbeatOf(HoodieTableMetaClient metaClient, ServicedTable table) {
    return new HoodieHeartbeatClient(metaClient.getStorage(), table.basePath(), 60_000L, 2);
  }

  private HoodieWriteConfig config(ServicedTable table, HoodieTableMetaClient metaClient, Map<String, String> keys) {
    Map<String, String> all = new HashMap<>(table.hoodieKeys());
    all.putAll(keys);
    return localTables.hudiTables().writeConfig(table.withHoodieKeys(all), metaClient);
  }
}
