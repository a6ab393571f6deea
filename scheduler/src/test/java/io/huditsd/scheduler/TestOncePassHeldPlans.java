package io.huditsd.scheduler;

import io.huditsd.config.HeartbeatSettings;
import io.huditsd.config.ServiceType;
import io.huditsd.config.ServicedTable;
import io.huditsd.executors.HudiTables;
import io.huditsd.executors.LocalTables;
import io.huditsd.executors.PlanLiveness;
import io.huditsd.executors.PlanRunner;
import io.huditsd.executors.RunRecord;
import io.huditsd.executors.RunStatus;
import io.huditsd.executors.WorkerPool;
import org.apache.hudi.client.HoodieJavaWriteClient;
import org.apache.hudi.common.model.HoodieAvroPayload;
import org.apache.hudi.common.model.HoodieTableType;
import org.apache.hudi.common.table.HoodieTableMetaClient;
import org.apache.hudi.common.table.timeline.HoodieInstant;
import org.apache.hudi.common.util.Option;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A {@code once} after a crash: the plan the killed run left inflight is held by its heartbeat, which nobody renews.
 * The pass waits for it to expire and then finishes the plan; a plan whose heartbeat a live process keeps renewing is
 * left to it and reported as left, not as serviced, after two looks rather than a run every round.
 */
class TestOncePassHeldPlans {
  /** A heartbeat expires a second after its last renewal here (Hudi's shortest interval, no miss tolerated). */
  private final HudiTables hudiTables = new HudiTables(HudiTables.defaultHadoopConfiguration(),
      new HeartbeatSettings(1000, 0));
  private final LocalTables localTables = new LocalTables(hudiTables);
  private final List<RunRecord> finished = Collections.synchronizedList(new ArrayList<>());
  private final ScheduledExecutorService renewer = Executors.newSingleThreadScheduledExecutor();
  private WorkerPool pool;

  @TempDir
  Path directory;

  @AfterEach
  void stop() throws InterruptedException {
    renewer.shutdownNow();
    if (pool != null) {
      pool.shutdown(Duration.ofSeconds(10));
    }
  }

  /** A MOR table whose compaction a killed process left inflight, with the heartbeat it last wrote. */
  private ServicedTable tableWithAbandonedCompaction(String name) throws Exception {
    ServicedTable table = localTables.create(directory.resolve(name), HoodieTableType.MERGE_ON_READ, 9,
        Map.of("hoodie.compact.inline.max.delta.commits", "1")).withServices(Set.of(ServiceType.COMPACTION));
    localTables.upsert(table, 0, 20, 1);
    localTables.upsert(table, 0, 10, 2);
    String instant;
    try (HoodieJavaWriteClient<HoodieAvroPayload> client = hudiTables.writeClient(table)) {
      instant = client.scheduleCompaction(Option.empty()).get();
    }
    HoodieTableMetaClient metaClient = hudiTables.metaClient(table.basePath());
    HoodieInstant requested = metaClient.getActiveTimeline().filterPendingCompactionTimeline().lastInstant().get();
    metaClient.getActiveTimeline().transitionCompactionRequestedToInflight(requested);
    Path heartbeat = heartbeatFile(table, instant);
    Files.createDirectories(heartbeat.getParent());
    Files.write(heartbeat, new byte[0]);
    return table;
  }

  private Path heartbeatFile(ServicedTable table, String instant) {
    return directory.resolve(Path.of(table.basePath().replaceFirst("^file:", "")).getFileName())
        .resolve(".hoodie/.heartbeat").resolve(instant);
  }

  private String pendingCompaction(ServicedTable table) {
    return hudiTables.metaClient(table.basePath()).getActiveTimeline().filterPendingCompactionTimeline()
        .lastInstant().get().requestedTime();
  }

  private OncePass.Result pass(ServicedTable table) throws InterruptedException {
    pool = new WorkerPool(1, 1, Duration.ZERO, PlanRunner.withDefaultActions(hudiTables), run -> {
      if (run.status().isFinal()) {
        finished.add(run);
      }
    });
    TablePoller poller = new TablePoller(hudiTables, HudiTables.defaultHadoopConfiguration(),
        new DuePlanner(hudiTables, pool), Duration.ofMinutes(3), TablePoller.Backlog.SKIPPED, PollObserver.NONE,
        tableId -> true, Clock.systemUTC());
    PlanLiveness liveness = new PlanLiveness(hudiTables.heartbeat());
    return new OncePass(poller, pool, Clock.systemUTC(), item -> liveness.liveHeartbeat(
        hudiTables.metaClient(item.table().basePath()), item.instant().orElseThrow()))
        .run(List.of(table), Duration.ofMinutes(5), finished);
  }

  @Test
  void aPlanAbandonedByAKilledRunIsFinishedOnceItsHeartbeatExpires() throws Exception {
    ServicedTable table = tableWithAbandonedCompaction("orders");
    String instant = pendingCompaction(table);

    OncePass.Result result = pass(table);

    assertThat(result.problems()).isEmpty();
    assertThat(result.left()).isEmpty();
    assertThat(finished).filteredOn(run -> run.item().instant().orElse("").equals(instant))
        .extracting(RunRecord::status).containsExactly(RunStatus.SKIPPED, RunStatus.SUCCEEDED);
    HoodieTableMetaClient metaClient = hudiTables.metaClient(table.basePath());
    assertThat(metaClient.getActiveTimeline().filterPendingCompactionTimeline().getInstants()).isEmpty();
    assertThat(metaClient.getActiveTimeline().getCommitTimeline().filterCompletedInstants().getInstants())
        .extracting(HoodieInstant::requestedTime).contains(instant);
  }

  @Test
  void aPlanWhoseHeartbeatIsRenewedIsLeftToItsProcessAndReportedAsLeft() throws Exception {
    ServicedTable table = tableWithAbandonedCompaction("events");
    String instant = pendingCompaction(table);
    Path heartbeat = heartbeatFile(table, instant);
    renewer.scheduleAtFixedRate(() -> {
      try {
        Files.setLastModifiedTime(heartbeat, FileTime.from(Instant.now()));
      } catch (java.io.IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
    }, 0, 200, TimeUnit.MILLISECONDS);

    OncePass.Result result = pass(table);

    assertThat(result.problems()).isEmpty();
    assertThat(result.left()).singleElement().satisfies(left -> {
      assertThat(left.item().instant()).contains(instant);
      assertThat(left.reason()).startsWith("held by a live process");
    });
    assertThat(finished).as("looked at twice: skipped, then seen renewed after waiting")
        .extracting(RunRecord::status).containsExactly(RunStatus.SKIPPED, RunStatus.SKIPPED);
    assertThat(pendingCompaction(table)).isEqualTo(instant);
  }
}
