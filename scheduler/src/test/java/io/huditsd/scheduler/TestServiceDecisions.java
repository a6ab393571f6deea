package io.huditsd.scheduler;

import io.huditsd.config.ServiceType;
import io.huditsd.config.ServicedTable;
import io.huditsd.executors.LocalTables;
import io.huditsd.executors.PendingPlans;
import io.huditsd.executors.clustering.HotFileGroups;
import org.apache.hudi.common.model.HoodieTableType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A planning round that schedules nothing says why, per service, in a reason code and a line naming the figures and
 * the keys that change it: the trigger not reached, every candidate under a pending plan, every small file group
 * hot, a pending plan of the service itself.
 */
class TestServiceDecisions {
  @RegisterExtension
  final PlanningFixture planning = new PlanningFixture();
  private final LocalTables localTables = planning.localTables();
  private final DuePlanner planner = planning.planner();

  @TempDir
  Path directory;

  private Map<ServiceType, ServiceDecision> plan(ServicedTable table) {
    return planning.poll(table).decisions();
  }

  @Test
  void compactionBelowItsTriggerSaysHowManyDeltaCommitsOfHowManyAndTheKey() throws IOException {
    ServicedTable table = localTables.create(directory.resolve("orders"), HoodieTableType.MERGE_ON_READ, 9,
        Map.of());
    localTables.upsert(table, 0, 10, 1);
    localTables.upsert(table, 0, 10, 2);

    ServiceDecision compaction = plan(table).get(ServiceType.COMPACTION);

    assertThat(compaction.reason()).isEqualTo(ServiceDecision.Reason.BELOW_TRIGGER);
    assertThat(compaction.message()).contains("2 of 5 delta commits since the last compaction")
        .contains("hoodie.compact.inline.max.delta.commits");
    assertThat(compaction.scheduledNothing()).isTrue();
  }

  @Test
  void compactionDueOnAVersion6TableWaitsForTheWriterCommitInFlightAndNamesIt() throws IOException {
    ServicedTable table = localTables.create(directory.resolve("ledger"), HoodieTableType.MERGE_ON_READ, 6,
        Map.of("hoodie.compact.inline.max.delta.commits", "2"));
    localTables.upsert(table, 0, 10, 1);
    localTables.upsert(table, 0, 10, 2);
    // A writer still writing: on version 6 its log blocks would land in the slice a plan made now compacts.
    String writer = localTables.upsertWithoutCommit(table, 0, 10, 3);

    ServiceDecision compaction = plan(table).get(ServiceType.COMPACTION);

    assertThat(compaction.reason()).as(compaction.message()).isEqualTo(ServiceDecision.Reason.WRITER_IN_FLIGHT);
    assertThat(compaction.message()).contains(writer).contains("table version 6");
    assertThat(PendingPlans.list(localTables.hudiTables().metaClient(table.basePath()))).isEmpty();
  }

  @Test
  void compactionDueOnAVersion8TableIsPlannedBesideAWriterCommitInFlight() throws IOException {
    ServicedTable table = localTables.create(directory.resolve("journal"), HoodieTableType.MERGE_ON_READ, 8,
        Map.of("hoodie.compact.inline.max.delta.commits", "2"));
    localTables.upsert(table, 0, 10, 1);
    localTables.upsert(table, 0, 10, 2);
    // From version 8 the writer's log belongs to the slice the compaction starts: no reason to wait.
    localTables.upsertWithoutCommit(table, 0, 10, 3);

    ServiceDecision compaction = plan(table).get(ServiceType.COMPACTION);

    assertThat(compaction.reason()).as(compaction.message()).isEqualTo(ServiceDecision.Reason.SCHEDULED);
  }

  @Test
  void clusteringDueWhileACompactionPlanHoldsEveryFileGroupSaysEveryCandidateIsUnderAPendingPlan()
      throws IOException {
    ServicedTable table = localTables.create(directory.resolve("payments"), HoodieTableType.MERGE_ON_READ, 9,
        Map.of("hoodie.clustering.inline.max.commits", "1", HotFileGroups.COMMITS_KEY, "0",
            HotFileGroups.MINUTES_KEY, "0"));
    localTables.upsert(table, 0, 10, 1);
    localTables.upsert(table, 0, 10, 2);
    // Every file group has log files, so the compaction plan takes them all.
    assertThat(planner.scheduleNow(table, ServiceType.COMPACTION)).isPresent();
    assertThat(PendingPlans.list(localTables.hudiTables().metaClient(table.basePath()))).hasSize(1);

    Map<ServiceType, ServiceDecision> decisions = plan(table);

    assertThat(decisions.get(ServiceType.CLUSTERING).reason()).as(decisions.get(ServiceType.CLUSTERING).message())
        .isEqualTo(ServiceDecision.Reason.UNDER_PENDING_PLAN);
    assertThat(decisions.get(ServiceType.CLUSTERING).message()).startsWith("every candidate is under a pending plan");
    assertThat(decisions.get(ServiceType.COMPACTION).reason()).isEqualTo(ServiceDecision.Reason.PENDING_PLAN);
  }

  @Test
  void clusteringOfFileGroupsJustWrittenSaysHowManyWereLeftOutAsHotAndWhichKeysChangeIt() throws IOException {
    ServicedTable table = localTables.create(directory.resolve("shipments"), HoodieTableType.COPY_ON_WRITE, 9,
        Map.of("hoodie.clustering.inline.max.commits", "1"));
    localTables.upsert(table, 0, 10, 1);
    localTables.upsert(table, 10, 10, 1);

    ServiceDecision clustering = plan(table).get(ServiceType.CLUSTERING);

    assertThat(clustering.reason()).as(clustering.message()).isEqualTo(ServiceDecision.Reason.HOT_FILE_GROUPS);
    // Every file group of both commits, small and written just now.
    assertThat(clustering.message()).containsPattern("^hot file groups left out: ([1-9]\\d*) of \\1 small ones")
        .contains(HotFileGroups.COMMITS_KEY).contains(HotFileGroups.MINUTES_KEY);
    assertThat(clustering.line(table.id())).startsWith("table=" + table.id()
        + " service=clustering decision=hot-file-groups: hot file groups left out");
  }

  @Test
  void aServiceTheTableDoesNotRunIsDisabledAndACopyOnWriteTableHasNoCompaction() throws IOException {
    ServicedTable table = localTables.create(directory.resolve("refunds"), HoodieTableType.COPY_ON_WRITE, 9,
        Map.of());
    localTables.upsert(table, 0, 10, 1);
    ServicedTable compactionOnly = table.withServices(Set.of(ServiceType.COMPACTION));

    Map<ServiceType, ServiceDecision> decisions = plan(compactionOnly);

    assertThat(decisions).containsOnlyKeys(ServiceType.values());
    assertThat(decisions.get(ServiceType.COMPACTION).reason()).isEqualTo(ServiceDecision.Reason.NOT_APPLICABLE);
    assertThat(decisions.get(ServiceType.CLEAN).reason()).isEqualTo(ServiceDecision.Reason.DISABLED);
    assertThat(decisions.get(ServiceType.ARCHIVE).reason()).isEqualTo(ServiceDecision.Reason.DISABLED);
  }
}
