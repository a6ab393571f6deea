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
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A poll queues each plan as soon as it is written, and a clean and archival due beside a compaction that this
 * daemon runs wait for the next poll ({@link CleanDeferral}), one poll at most: their lock holds do not delay the
 * compaction's commit, and a table whose compactions always run is still cleaned and archived.
 */
class TestPlanQueueing {
  /** When each service's plan was queued, in wall-clock milliseconds. */
  private final Map<ServiceType, Long> queuedAt = new ConcurrentHashMap<>();
  @RegisterExtension
  final PlanningFixture planning = new PlanningFixture(record -> {
    if (record.status() == RunStatus.QUEUED) {
      queuedAt.putIfAbsent(record.item().service(), System.currentTimeMillis());
    }
  });
  private final LocalTables localTables = planning.localTables();
  private final DuePlanner planner = planning.planner();

  @TempDir
  Path directory;

  @Test
  void aCleanAndArchivalDueBesideARunningCompactionAreQueuedByTheNextPollWhateverStillRuns() throws IOException {
    // Archival is due too: the timeline holds more than keep.max completed instants by the first poll.
    ServicedTable table = localTables.create(directory.resolve("orders"), HoodieTableType.MERGE_ON_READ, 9,
        Map.of("hoodie.compact.inline.max.delta.commits", "2", "hoodie.clean.commits.retained", "1",
            "hoodie.keep.min.commits", "2", "hoodie.keep.max.commits", "3"));
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

    Instant beforeFirstPoll = Instant.now();
    DuePlanner.Outcome firstPoll = planning.poll(table);

    // The pool holds the compaction running: the clean and archival, due too, are left to the next poll.
    assertThat(firstPoll.scheduledInstants()).hasSize(1);
    assertThat(queuedAt).containsOnlyKeys(ServiceType.COMPACTION);
    assertThat(timelineFiles(table, ".clean.requested")).isEmpty();
    // ... and the table is planned again at the next poll even if nothing changes on its timeline meanwhile.
    assertThat(firstPoll.recheckAt()).hasValueSatisfying(at -> assertThat(at)
        .isBetween(beforeFirstPoll, Instant.now()));

    DuePlanner.Outcome secondPoll = planning.poll(table);

    // The compaction still runs; the clean and archival waited one poll and no longer.
    assertThat(secondPoll.scheduledInstants()).hasSize(1);
    assertThat(queuedAt).containsOnlyKeys(ServiceType.COMPACTION, ServiceType.CLEAN, ServiceType.ARCHIVE);
    assertThat(timelineFiles(table, ".clean.requested")).hasSize(1);
    assertThat(secondPoll.recheckAt()).isEmpty();
  }

  private static List<Path> timelineFiles(ServicedTable table, String suffix) throws IOException {
    Path timeline = Path.of(java.net.URI.create(table.basePath())).resolve(".hoodie/timeline");
    try (Stream<Path> files = Files.list(timeline)) {
      return files.filter(file -> file.getFileName().toString().endsWith(suffix)).toList();
    }
  }
}
