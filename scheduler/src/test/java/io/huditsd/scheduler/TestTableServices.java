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
import io.huditsd.executors.PlanSkippedException;
import io.huditsd.executors.ServiceAction;
import io.huditsd.executors.WorkItem;
import org.apache.hudi.client.HoodieJavaWriteClient;
import org.apache.hudi.client.heartbeat.HoodieHeartbeatClient;
import org.apache.hudi.common.model.HoodieAvroPayload;
import org.apache.hudi.common.model.HoodieTableType;
import org.apache.hudi.common.model.TableServiceType;
import org.apache.hudi.common.table.HoodieTableMetaClient;
import org.apache.hudi.common.table.timeline.HoodieInstant;
import org.apache.hudi.common.util.Option;
import org.apache.hudi.config.HoodieWriteConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Each service's own rules (heartbeat, force-now keys), asserted on real tables through the planner and the runner. */
class TestTableServices {
  @RegisterExtension
  final PlanningFixture planning = new PlanningFixture();
  private final LocalTables localTables = planning.localTables();
  private final DuePlanner planner = planning.planner();
  private final TableServices services = planner.services();

  @TempDir
  Path directory;

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
  void runsOfEveryServiceWithPlansKeepAHeartbeatArchiveDoesNot() {
    Map<ServiceType, Boolean> keepsHeartbeat = new EnumMap<>(ServiceType.class);
    for (TableService service : services.all()) {
      keepsHeartbeat.put(service.type(), service.keepsHeartbeat());
    }
    assertThat(keepsHeartbeat).isEqualTo(Map.of(ServiceType.COMPACTION, true, ServiceType.CLUSTERING, true,
        ServiceType.INDEX, true, ServiceType.CLEAN, true, ServiceType.ARCHIVE, false));
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
          .as(service.type() + " by default").isInstanceOf(PlannedService.Due.No.class);
      assertThat(service.due(table, metaClient, config(table, metaClient, service.forceNowKeys()), now))
          .as(service.type() + " forced").isInstanceOf(PlannedService.Due.Yes.class);
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
   * Clean runs keep a heartbeat of each clean they execute: an inflight clean whose heartbeat is alive belongs to a
   * live process, so the planner asks to be called again when it expires and the runner leaves the clean alone; once
   * the heartbeat is gone the runner executes it.
   */
  @Test
  void anInflightCleanWithALiveHeartbeatIsLeftToItsProcessUntilTheHeartbeatStops() throws IOException {
    ServicedTable table = cleanableTable("events");
    String instant = planner.scheduleNow(table, ServiceType.CLEAN).orElseThrow();
    HoodieTableMetaClient metaClient = localTables.hudiTables().metaClient(table.basePath());
    HoodieInstant requested = metaClient.getActiveTimeline().getCleanerTimeline().filterInflightsAndRequested()
        .lastInstant().get();
    metaClient.getActiveTimeline().transitionCleanRequestedToInflight(requested);
    PlanRunner runner = PlanRunner.withDefaultActions(localTables.hudiTables());

    try (HoodieHeartbeatClient heartbeat = heartbeatOf(metaClient, table)) {
      heartbeat.start(instant);

      DuePlanner.Outcome outcome = planner.planAndEnqueue(table, HoodieTableMetaClient.reload(metaClient));
      assertThat(outcome.recheckAt()).isPresent();
      WorkItem item = cleanItem(table, HoodieTableMetaClient.reload(metaClient));
      assertThatThrownBy(() -> runner.apply(item)).isInstanceOf(PlanSkippedException.class)
          .hasMessageContaining(instant).hasMessageContaining("live process");
      assertThat(pendingCleans(metaClient)).containsExactly(instant);

      heartbeat.stop(instant);
      ActionResult result = runner.apply(item);
      assertThat(result.instant()).contains(instant);
      assertThat(result.fileGroups()).as("files deleted").isPositive();
      assertThat(pendingCleans(metaClient)).isEmpty();
    }
  }

  /**
   * Hudi's cleaner executes every pending clean, whichever a run was queued for. Two overlapping runs, each queued
   * for a clean of its own, must not both execute them: while one holds a clean's heartbeat (here the test does, as
   * that run would, with the clean already completed and the run still going), the other's run is skipped and
   * writes nothing; then one run executes both, and leaves no heartbeat behind.
   */
  @Test
  void aCleanRunClaimsEveryPendingCleanAndIsSkippedWhileAnotherRunHoldsAClean() throws IOException {
    ServicedTable table = cleanableTable("orders");
    String first = planner.scheduleNow(table, ServiceType.CLEAN).orElseThrow();
    // A second plan while the first is pending, as a second process planning at the same time writes it.
    String second;
    try (HoodieJavaWriteClient<HoodieAvroPayload> client = localTables.hudiTables().writeClient(table,
        services.planned(ServiceType.CLEAN).orElseThrow().forceNowKeys())) {
      second = client.scheduleTableService(Option.empty(), TableServiceType.CLEAN).get();
    }
    HoodieTableMetaClient metaClient = localTables.hudiTables().metaClient(table.basePath());
    assertThat(pendingCleans(metaClient)).containsExactly(first, second);
    PlanRunner runner = PlanRunner.withDefaultActions(localTables.hudiTables());
    WorkItem secondItem = WorkItem.forPlan(table, PendingPlans.find(metaClient, second).orElseThrow(),
        Placement.inProcess(HeapEstimate.NONE));

    try (HoodieHeartbeatClient heartbeat = heartbeatOf(metaClient, table)) {
      heartbeat.start(first);
      assertThatThrownBy(() -> runner.apply(secondItem)).isInstanceOf(PlanSkippedException.class)
          .hasMessageContaining("clean " + first + " is being executed by another process");
      assertThat(pendingCleans(metaClient)).as("nothing executed by the skipped run").containsExactly(first, second);
      assertThat(metaClient.reloadActiveTimeline().getCleanerTimeline().filterInflights().getInstants())
          .as("no clean started by the skipped run").isEmpty();
      heartbeat.stop(first);
    }

    ActionResult result = runner.apply(secondItem);
    assertThat(result.instant()).as("the last clean the cleaner executed").contains(second);
    assertThat(pendingCleans(metaClient)).isEmpty();
    assertThat(metaClient.reloadActiveTimeline().getCleanerTimeline().filterCompletedInstants().getInstantsAsStream()
        .map(HoodieInstant::requestedTime)).containsExactly(first, second);
    Path heartbeats = Path.of(table.basePath().replaceFirst("^file:", "")).resolve(".hoodie/.heartbeat");
    assertThat(heartbeats.resolve(first)).doesNotExist();
    assertThat(heartbeats.resolve(second)).doesNotExist();
  }

  /** A copy-on-write table keeping one commit, written three times: a clean has files to delete. */
  private ServicedTable cleanableTable(String name) throws IOException {
    ServicedTable table = localTables.create(directory.resolve(name), HoodieTableType.COPY_ON_WRITE, 9,
        Map.of("hoodie.clean.commits.retained", "1"));
    localTables.upsert(table, 0, 10, 1);
    localTables.upsert(table, 0, 10, 2);
    localTables.upsert(table, 0, 10, 3);
    return table;
  }

  private static WorkItem cleanItem(ServicedTable table, HoodieTableMetaClient metaClient) {
    PendingPlan clean = PendingPlans.list(metaClient).stream()
        .filter(plan -> plan.service() == ServiceType.CLEAN).findFirst().orElseThrow();
    return WorkItem.forPlan(table, clean, Placement.inProcess(HeapEstimate.NONE));
  }

  private static List<String> pendingCleans(HoodieTableMetaClient metaClient) {
    return metaClient.reloadActiveTimeline().getCleanerTimeline().filterInflightsAndRequested().getInstantsAsStream()
        .map(HoodieInstant::requestedTime).toList();
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
