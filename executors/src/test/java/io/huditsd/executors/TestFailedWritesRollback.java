package io.huditsd.executors;

import io.huditsd.config.HeartbeatSettings;
import io.huditsd.config.ServiceType;
import io.huditsd.config.ServicedTable;
import io.huditsd.lock.ZookeeperClients;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingServer;
import org.apache.hudi.client.HoodieJavaWriteClient;
import org.apache.hudi.common.model.HoodieAvroPayload;
import org.apache.hudi.common.model.HoodieTableType;
import org.apache.hudi.common.model.TableServiceType;
import org.apache.hudi.common.table.HoodieTableMetaClient;
import org.apache.hudi.common.table.timeline.HoodieInstant;
import org.apache.hudi.common.util.Option;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Failed writer commits on real tables, left by Hudi's Java writer stopping before its commit. Writer commits are
 * judged by the writers' heartbeat window, Hudi's default 120 s (60 s interval, two misses) unless the table's keys
 * say otherwise; a heartbeat is made old by setting its file's modification time, as a writer that died long ago
 * leaves it.
 */
class TestFailedWritesRollback {
  private final LocalTables localTables = new LocalTables();
  private final HudiTables hudiTables = localTables.hudiTables();
  private final FailedWritesRollback rollback = new FailedWritesRollback(hudiTables);

  @TempDir
  Path directory;

  private FailedWrites run(ServicedTable table, boolean rollBack) {
    HoodieTableMetaClient metaClient = hudiTables.metaClient(table.basePath());
    return rollback.run(table, metaClient, hudiTables.writeConfig(table, metaClient), rollBack);
  }

  /** A table keeping one commit, after three upserts of the same keys: a clean plan with files to delete. */
  private ServicedTable tableWithAPendingClean() throws IOException {
    ServicedTable table = localTables.create(directory.resolve("orders"), HoodieTableType.COPY_ON_WRITE, 9,
        Map.of("hoodie.clean.commits.retained", "1"));
    localTables.upsert(table, 0, 20, 1);
    localTables.upsert(table, 0, 20, 2);
    localTables.upsert(table, 0, 20, 3);
    try (HoodieJavaWriteClient<HoodieAvroPayload> client = hudiTables.writeClient(table)) {
      client.scheduleTableService(Option.empty(), TableServiceType.CLEAN)
          .orElseThrow(() -> new AssertionError("no clean plan"));
    }
    return table;
  }

  private List<String> pendingInstants(ServicedTable table) {
    return hudiTables.metaClient(table.basePath()).getActiveTimeline().filterInflightsAndRequested()
        .getInstantsAsStream().map(HoodieInstant::requestedTime).toList();
  }

  private static Path heartbeat(ServicedTable table, String instant) {
    return Path.of(table.basePath().replaceFirst("^file:", "")).resolve(".hoodie/.heartbeat").resolve(instant);
  }

  private static void expire(ServicedTable table, String instant) throws IOException {
    age(table, instant, Duration.ofHours(1));
  }

  private static void age(ServicedTable table, String instant, Duration age) throws IOException {
    Files.setLastModifiedTime(heartbeat(table, instant), FileTime.from(Instant.now().minus(age)));
  }

  /** Data files (base and log) on storage written by {@code instant}. */
  private static List<Path> filesOf(ServicedTable table, String instant) throws IOException {
    Path base = Path.of(table.basePath().replaceFirst("^file:", ""));
    try (Stream<Path> files = Files.walk(base)) {
      return files.filter(Files::isRegularFile)
          .filter(file -> !base.relativize(file).startsWith(".hoodie"))
          .filter(file -> file.getFileName().toString().contains(instant))
          .toList();
    }
  }

  @ParameterizedTest
  @EnumSource(HoodieTableType.class)
  void aWriteWhoseHeartbeatExpiredIsRolledBackAndItsFilesDeleted(HoodieTableType type) throws IOException {
    ServicedTable table = localTables.create(directory.resolve("orders"), type, 9, Map.of());
    localTables.upsert(table, 0, 20, 1);
    String failed = localTables.upsertWithoutCommit(table, 0, 20, 2);
    assertThat(filesOf(table, failed)).as("files of the failed write").isNotEmpty();
    expire(table, failed);

    FailedWrites result = run(table, true);

    assertThat(result.rolledBack()).containsExactly(failed);
    assertThat(result.pending()).isEmpty();
    assertThat(result.rollbackError()).isEmpty();
    assertThat(pendingInstants(table)).as("pending instants").isEmpty();
    assertThat(filesOf(table, failed)).as("files of the failed write").isEmpty();
    assertThat(Files.exists(heartbeat(table, failed))).as("heartbeat of the failed write").isFalse();
    assertThat(hudiTables.metaClient(table.basePath()).getActiveTimeline().getRollbackTimeline()
        .filterCompletedInstants().countInstants()).as("completed rollbacks").isEqualTo(1);
  }

  @Test
  void aWriteWhoseHeartbeatIsAliveIsLeftAlone() throws IOException {
    ServicedTable table = localTables.create(directory.resolve("orders"), HoodieTableType.COPY_ON_WRITE, 9, Map.of());
    localTables.upsert(table, 0, 20, 1);
    String live = localTables.upsertWithoutCommit(table, 0, 20, 2);
    Instant lastHeartbeat = Files.getLastModifiedTime(heartbeat(table, live)).toInstant();

    FailedWrites result = run(table, true);

    assertThat(result.rolledBack()).isEmpty();
    assertThat(result.pending()).isEmpty();
    assertThat(pendingInstants(table)).containsExactly(live);
    assertThat(filesOf(table, live)).isNotEmpty();
    // The poll must look again once that heartbeat could have expired: Hudi's window is 60 s * 2 misses.
    assertThat(result.recheckAt()).hasValueSatisfying(expiry -> assertThat(expiry)
        .isAfter(lastHeartbeat.plus(Duration.ofSeconds(119))).isBefore(lastHeartbeat.plus(Duration.ofSeconds(121))));
  }

  /**
   * The daemon's plans renew every second here, far more often than the writers: a live writer whose heartbeat is
   * 30 s old is inside its own (Hudi default) 120 s window and must survive the rollback of a dead one. Judged by
   * the daemon's 1 s window, Hudi would roll back both and delete the live writer's files under it.
   */
  @Test
  void liveWritesAreJudgedByTheWritersHeartbeatNotTheDaemonsShorterOne() throws IOException {
    HudiTables fastPlans = new HudiTables(HudiTables.defaultHadoopConfiguration(), new HeartbeatSettings(1_000, 0));
    LocalTables fast = new LocalTables(fastPlans);
    FailedWritesRollback fastRollback = new FailedWritesRollback(fastPlans);
    ServicedTable table = fast.create(directory.resolve("orders"), HoodieTableType.COPY_ON_WRITE, 9, Map.of());
    fast.upsert(table, 0, 20, 1);
    String dead = fast.upsertWithoutCommit(table, 0, 10, 2);
    String live = fast.upsertWithoutCommit(table, 10, 10, 3);
    expire(table, dead);
    age(table, live, Duration.ofSeconds(30));

    HoodieTableMetaClient metaClient = fastPlans.metaClient(table.basePath());
    FailedWrites result = fastRollback.run(table, metaClient, fastPlans.writeConfig(table, metaClient), true);

    assertThat(result.rolledBack()).containsExactly(dead);
    assertThat(result.pending()).isEmpty();
    assertThat(pendingInstants(table)).containsExactly(live);
    assertThat(filesOf(table, live)).as("files of the live write").isNotEmpty();

    // Writers that say they renew every second with ten misses tolerated are dead after 10 s.
    ServicedTable declared = table.withHoodieKeysOverridden(Map.of(
        "hoodie.client.heartbeat.interval_in_ms", "1000", "hoodie.client.heartbeat.tolerable.misses", "10"));
    metaClient = fastPlans.metaClient(table.basePath());
    assertThat(fastRollback.run(declared, metaClient, fastPlans.writeConfig(declared, metaClient), true).rolledBack())
        .containsExactly(live);
    assertThat(pendingInstants(table)).isEmpty();
  }

  /**
   * Hudi's cleaner rolls back failed writes itself before it executes a clean, with LAZY by the calling client's
   * heartbeat window. A clean run is such a client: it must judge writers by their window too, or a writer whose
   * heartbeat is 30 s old (alive by Hudi's default 120 s) is rolled back by the daemon's 1 s one mid-write.
   */
  @Test
  void aCleanRunJudgesLiveWritesByTheWritersHeartbeatNotTheDaemonsShorterOne() throws IOException {
    ServicedTable table = tableWithAPendingClean();
    String live = localTables.upsertWithoutCommit(table, 20, 10, 4);
    age(table, live, Duration.ofSeconds(30));
    PendingPlan clean = PendingPlans.list(hudiTables.metaClient(table.basePath())).stream()
        .filter(plan -> plan.service() == ServiceType.CLEAN).findFirst().orElseThrow();
    HudiTables fastPlans = new HudiTables(HudiTables.defaultHadoopConfiguration(), new HeartbeatSettings(1_000, 0));

    ActionResult result = PlanRunner.withDefaultActions(fastPlans)
        .apply(WorkItem.forPlan(table, clean, Placement.inProcess(HeapEstimate.NONE)));

    assertThat(result.instant()).as("the clean executed").contains(clean.instant());
    assertThat(pendingInstants(table)).as("pending instants after the clean").containsExactly(live);
    assertThat(filesOf(table, live)).as("files of the live write").isNotEmpty();
  }

  /**
   * A rollback that fails (here its table lock cannot be taken: the writers' ZooKeeper is down) is tried again
   * without a change on the timeline: the writer that died may have been the table's only one, and every clean
   * waits behind its write. Once ZooKeeper is back, the next try rolls the write back.
   */
  @Test
  void aRollbackThatFailedIsTriedAgainAfterOneWritersHeartbeatWindow() throws Exception {
    ServicedTable table = localTables.create(directory.resolve("orders"), HoodieTableType.COPY_ON_WRITE, 9, Map.of());
    localTables.upsert(table, 0, 20, 1);
    String failed = localTables.upsertWithoutCommit(table, 0, 20, 2);
    expire(table, failed);
    int port = InstanceSpec.getRandomPort();
    ServicedTable zookeeperLocked = table.withHoodieKeysOverridden(Map.ofEntries(
        Map.entry("hoodie.client.heartbeat.interval_in_ms", "1000"),
        Map.entry("hoodie.client.heartbeat.tolerable.misses", "10"),
        Map.entry("hoodie.write.lock.provider", "org.apache.hudi.client.transaction.lock.ZookeeperBasedLockProvider"),
        Map.entry("hoodie.write.lock.zookeeper.url", "127.0.0.1:" + port),
        Map.entry("hoodie.write.lock.zookeeper.base_path", "/locks"),
        Map.entry("hoodie.write.lock.zookeeper.connection_timeout_ms", "1000"),
        Map.entry("hoodie.write.lock.zookeeper.session_timeout_ms", "10000"),
        Map.entry("hoodie.write.lock.num_retries", "0"),
        Map.entry("hoodie.write.lock.wait_time_ms", "1000"),
        Map.entry("hoodie.write.lock.client.num_retries", "0"),
        Map.entry("hoodie.write.lock.client.wait_time_ms_between_retry", "100")));
    try (TestingServer zookeeper = new TestingServer(port, false)) {
      Instant before = Instant.now();
      FailedWrites result = run(zookeeperLocked, true);

      assertThat(result.rolledBack()).isEmpty();
      assertThat(result.pending()).containsExactly(failed);
      assertThat(result.rollbackError()).isPresent();
      assertThat(pendingInstants(table)).containsExactly(failed);
      // The writers' window here is 1 s * 10 misses.
      assertThat(result.recheckAt()).hasValueSatisfying(retry -> assertThat(retry)
          .isAfterOrEqualTo(before.plusSeconds(10)).isBefore(Instant.now().plusSeconds(10).plusMillis(1)));

      zookeeper.start();
      // A fresh session: the first one gave up its retries, and its reconnection is not what this test is about.
      ZookeeperClients.closeAll();
      FailedWrites retried = run(zookeeperLocked, true);

      assertThat(retried.rolledBack()).containsExactly(failed);
      assertThat(retried.pending()).isEmpty();
      assertThat(retried.rollbackError()).isEmpty();
      assertThat(retried.recheckAt()).isEmpty();
      assertThat(pendingInstants(table)).isEmpty();
    } finally {
      ZookeeperClients.closeAll();
    }
  }

  /**
   * A writer outside Hudi's multi-writer mode keeps no heartbeat; Hudi's LAZY rollback would count its pending
   * instant as expired and delete its files mid-write. It is reported instead, and since Hudi's rollback cannot leave
   * one instant alone, a failed write of another writer waits too.
   */
  @Test
  void aWriteWithNoHeartbeatFileIsNeverRolledBackAndHoldsBackTheRollback() throws IOException {
    ServicedTable table = localTables.create(directory.resolve("orders"), HoodieTableType.COPY_ON_WRITE, 9, Map.of());
    localTables.upsert(table, 0, 20, 1);
    String singleWriter = localTables.upsertWithoutCommitAsSingleWriter(table, 0, 10, 2);
    assertThat(Files.exists(heartbeat(table, singleWriter))).as("heartbeat of the single writer's write").isFalse();
    String failed = localTables.upsertWithoutCommit(table, 10, 10, 3);
    expire(table, failed);

    FailedWrites result = run(table, true);

    assertThat(result.withoutHeartbeat()).containsExactly(singleWriter);
    assertThat(result.singleWriterProblem()).hasValueSatisfying(problem -> assertThat(problem)
        .contains(singleWriter, "hoodie.write.concurrency.mode=OPTIMISTIC_CONCURRENCY_CONTROL",
            "hoodie.cleaner.policy.failed.writes=LAZY"));
    assertThat(result.rolledBack()).isEmpty();
    assertThat(result.pending()).containsExactly(failed);
    assertThat(pendingInstants(table)).containsExactlyInAnyOrder(singleWriter, failed);
    assertThat(filesOf(table, singleWriter)).as("files of the single writer's write").isNotEmpty();
  }

  /** Hudi's cleaner rolls back failed writes before it cleans, so a clean waits while such a write is pending. */
  @Test
  void aCleanRunIsSkippedWhileAWriteWithNoHeartbeatFileIsPending() throws IOException {
    ServicedTable table = tableWithAPendingClean();
    String singleWriter = localTables.upsertWithoutCommitAsSingleWriter(table, 20, 10, 4);
    PendingPlan clean = PendingPlans.list(hudiTables.metaClient(table.basePath())).stream()
        .filter(plan -> plan.service() == ServiceType.CLEAN).findFirst().orElseThrow();

    assertThatThrownBy(() -> PlanRunner.withDefaultActions(hudiTables)
        .apply(WorkItem.forPlan(table, clean, Placement.inProcess(HeapEstimate.NONE))))
        .isInstanceOf(PlanSkippedException.class)
        .hasMessageContaining(singleWriter).hasMessageContaining("without a heartbeat");
    assertThat(pendingInstants(table)).contains(singleWriter, clean.instant());
    assertThat(filesOf(table, singleWriter)).as("files of the single writer's write").isNotEmpty();
  }

  @Test
  void withoutRollingBackTheFailedWriteIsReportedAndLeftInPlace() throws IOException {
    ServicedTable table = localTables.create(directory.resolve("orders"), HoodieTableType.COPY_ON_WRITE, 9, Map.of());
    localTables.upsert(table, 0, 20, 1);
    String failed = localTables.upsertWithoutCommit(table, 0, 20, 2);
    expire(table, failed);

    FailedWrites result = run(table, false);

    assertThat(result.rolledBack()).isEmpty();
    assertThat(result.pending()).containsExactly(failed);
    assertThat(result.oldestPending()).isPresent();
    assertThat(pendingInstants(table)).containsExactly(failed);
  }

  @Test
  void aPendingCompactionPlanIsNoFailedWrite() throws IOException {
    ServicedTable table = localTables.create(directory.resolve("orders"), HoodieTableType.MERGE_ON_READ, 9,
        Map.of("hoodie.compact.inline.max.delta.commits", "1"));
    localTables.upsert(table, 0, 20, 1);
    localTables.upsert(table, 0, 10, 2);
    String compaction;
    try (HoodieJavaWriteClient<HoodieAvroPayload> client = hudiTables.writeClient(table)) {
      compaction = client.scheduleCompaction(Option.empty()).get();
    }

    FailedWrites result = run(table, true);

    assertThat(result).isEqualTo(FailedWrites.NONE);
    assertThat(pendingInstants(table)).containsExactly(compaction);
  }
}
