package io.huditsd.scheduler;

import io.huditsd.config.IndexOptions;
import io.huditsd.config.MetadataIndexes;
import io.huditsd.config.ServiceType;
import io.huditsd.config.ServicedTable;
import io.huditsd.executors.ActionResult;
import io.huditsd.executors.CorruptInstantException;
import io.huditsd.executors.HeapEstimate;
import io.huditsd.executors.HudiTables;
import io.huditsd.executors.LocalTables;
import io.huditsd.executors.PendingPlan;
import io.huditsd.executors.PendingPlans;
import io.huditsd.executors.Placement;
import io.huditsd.executors.PlanRunner;
import io.huditsd.executors.WorkItem;
import io.huditsd.executors.WorkerPool;
import org.apache.hudi.client.HoodieJavaWriteClient;
import org.apache.hudi.client.transaction.lock.InProcessLockProvider;
import org.apache.hudi.common.model.HoodieAvroPayload;
import org.apache.hudi.common.model.HoodieTableType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * Instant files that Hudi cannot read, on real tables: each kind the daemon reads is truncated to 0 bytes and then
 * overwritten with garbage; the poll fails naming the file until the original bytes are back.
 */
class TestCorruptInstants {
  /** Broken JSON, and not an Avro container either. */
  private static final byte[] GARBAGE = "{\"partitionToWriteStats\": {\"eu\": [".getBytes(StandardCharsets.UTF_8);
  /** The lock, named: these tests write to tables that the daemon's polls and runs in this JVM also use. */
  /** The tests cluster files they just wrote, which the ingestion-first filter would leave out as hot. */
  private static final Map<String, String> NO_HOT_FILTER = Map.of("hoodie.clustering.plan.strategy.hot.commits", "0",
      "hoodie.clustering.plan.strategy.hot.minutes", "0");
  private static final Map<String, String> LOCK = Map.of(
      "hoodie.write.lock.provider", InProcessLockProvider.class.getName());

  private final LocalTables localTables = new LocalTables();
  private final HudiTables hudiTables = localTables.hudiTables();
  private final HoldingPool holdingPool = new HoldingPool();
  private final WorkerPool pool = holdingPool.pool();
  private final DuePlanner planner = new DuePlanner(hudiTables, pool);
  private final TablePoller poller = new TablePoller(hudiTables, HudiTables.defaultHadoopConfiguration(), planner,
      Duration.ofMinutes(3), TablePoller.Backlog.READ, PollObserver.NONE, tableId -> true, Clock.systemUTC());
  private final PlanRunner runner = PlanRunner.withDefaultActions(hudiTables);

  @TempDir
  Path directory;

  @AfterEach
  void releaseRuns() throws InterruptedException {
    holdingPool.close();
  }

  @ParameterizedTest(name = "table version {0}")
  @ValueSource(ints = {6, 8, 9})
  void completedDeltaCommit(int version) throws IOException {
    ServicedTable table = table("orders", HoodieTableType.MERGE_ON_READ, version, Map.of());
    String instant = localTables.upsert(table, 0, 10, 1);

    assertEachCorruptionFailsThePoll(table, completed(table, instant, "deltacommit"), "completed deltacommit");
  }

  @ParameterizedTest(name = "table version {0}")
  @ValueSource(ints = {6, 8, 9})
  void completedCommit(int version) throws IOException {
    ServicedTable table = table("orders", HoodieTableType.COPY_ON_WRITE, version, Map.of());
    String instant = localTables.upsert(table, 0, 10, 1);

    assertEachCorruptionFailsThePoll(table, completed(table, instant, "commit"), "completed commit");
  }

  @ParameterizedTest(name = "table version {0}")
  @ValueSource(ints = {6, 9})
  void compactionPlan(int version) throws IOException {
    ServicedTable table = table("orders", HoodieTableType.MERGE_ON_READ, version, Map.of());
    localTables.upsert(table, 0, 10, 1);
    localTables.upsert(table, 0, 5, 2);
    String instant = planner.scheduleNow(table, ServiceType.COMPACTION).orElseThrow();

    assertEachCorruptionFailsThePoll(table, timelineFile(table, instant + ".compaction.requested"),
        "compaction plan");
  }

  @Test
  void clusteringPlanAndItsCompletedReplaceCommit() throws IOException {
    ServicedTable table = table("orders", HoodieTableType.COPY_ON_WRITE, 9, NO_HOT_FILTER);
    localTables.upsert(table, 0, 10, 1);
    localTables.upsert(table, 10, 10, 2);
    String instant = planner.scheduleNow(table, ServiceType.CLUSTERING).orElseThrow();

    assertEachCorruptionFailsThePoll(table, timelineFile(table, instant + ".clustering.requested"),
        "clustering plan");

    run(table, ServiceType.CLUSTERING, instant);
    assertEachCorruptionFailsThePoll(table, completed(table, instant, "replacecommit"), "completed replacecommit");
  }

  /**
   * Table version 6 keeps a clustering plan in a {@code .replacecommit.requested} file, which Hudi also writes empty
   * for a pending {@code insert_overwrite}: only unreadable content is corrupt there.
   */
  @Test
  void clusteringPlanAndItsCompletedReplaceCommitOfTableVersion6() throws IOException {
    ServicedTable table = table("orders", HoodieTableType.COPY_ON_WRITE, 6, NO_HOT_FILTER);
    localTables.upsert(table, 0, 10, 1);
    localTables.upsert(table, 10, 10, 2);
    String instant = planner.scheduleNow(table, ServiceType.CLUSTERING).orElseThrow();
    Path plan = timelineFile(table, instant + ".replacecommit.requested");

    assertGarbageFailsThePoll(table, plan, "replacecommit plan");
    TableState state = new TableState(quiet(table));
    byte[] original = Files.readAllBytes(plan);
    overwrite(plan, new byte[0]);
    assertThat(poller.poll(state, true)).isEqualTo(TablePoller.Result.PLANNED);
    overwrite(plan, original);

    run(table, ServiceType.CLUSTERING, instant);
    assertEachCorruptionFailsThePoll(table, completed(table, instant, "replacecommit"), "completed replacecommit");
  }

  @ParameterizedTest(name = "table version {0}")
  @ValueSource(ints = {6, 9})
  void cleanPlanAndItsCompletedClean(int version) throws IOException {
    ServicedTable table = table("orders", HoodieTableType.COPY_ON_WRITE, version, Map.of(
        "hoodie.cleaner.commits.retained", "1"));
    for (int batch = 1; batch <= 3; batch++) {
      localTables.upsert(table, 0, 10, batch);
    }
    String instant = planner.scheduleNow(table, ServiceType.CLEAN).orElseThrow();

    assertEachCorruptionFailsThePoll(table, timelineFile(table, instant + ".clean.requested"), "clean plan");

    run(table, ServiceType.CLEAN, instant);
    assertEachCorruptionFailsThePoll(table, completed(table, instant, "clean"), "completed clean");
  }

  @ParameterizedTest(name = "table version {0}")
  @ValueSource(ints = {6, 9})
  void completedRollbackAndThePlanOfAPendingOne(int version) throws IOException {
    ServicedTable table = table("orders", HoodieTableType.COPY_ON_WRITE, version, Map.of());
    localTables.upsert(table, 0, 10, 1);
    String rolledBack = localTables.upsert(table, 0, 10, 2);
    try (HoodieJavaWriteClient<HoodieAvroPayload> client = hudiTables.writeClient(table)) {
      assertThat(client.rollback(rolledBack)).isTrue();
    }
    Path completed = onlyFile(table, name -> name.endsWith(".rollback"));

    assertEachCorruptionFailsThePoll(table, completed, "completed rollback");

    // A rollback whose process died before completing it: Hudi's write clients read its plan to finish it.
    Files.delete(completed);
    Path plan = onlyFile(table, name -> name.endsWith(".rollback.requested"));
    assertEachCorruptionFailsThePoll(table, plan, "rollback plan");
  }

  @Test
  void indexingPlanAndItsCompletedIndexing() throws IOException {
    Path path = directory.resolve("orders");
    ServicedTable created = localTables.create(path, HoodieTableType.COPY_ON_WRITE, 9, LOCK);
    try (LiveWriter writer = new LiveWriter(created.basePath(), "orders", Map.of())) {
      writer.upsert(0, 0, 0, 20);
    }
    ServicedTable table = new ServicedTable(created.id(), created.basePath(), created.services(),
        created.pollInterval(), created.hoodieKeys(),
        MetadataIndexes.of(Map.of("column_stats", new IndexOptions(List.of("amount")))));
    String instant = planner.scheduleNow(table, ServiceType.INDEX).orElseThrow();

    assertEachCorruptionFailsThePoll(table, timelineFile(table, instant + ".indexing.requested"), "indexing plan");

    run(table, ServiceType.INDEX, instant);
    assertEachCorruptionFailsThePoll(table, completed(table, instant, "indexing"), "completed indexing");
  }

  @Test
  void filesThatHudiLeavesEmptyAreNotCorrupt() throws IOException {
    ServicedTable table = table("orders", HoodieTableType.MERGE_ON_READ, 9, Map.of());
    localTables.upsert(table, 0, 10, 1);
    String started;
    try (HoodieJavaWriteClient<HoodieAvroPayload> client = hudiTables.writeClient(table)) {
      started = client.startCommit();
    }
    Path requested = timelineFile(table, started + ".deltacommit.requested");
    assertThat(Files.size(requested)).isZero();

    TableState state = new TableState(quiet(table));
    assertThat(poller.poll(state, true)).isEqualTo(TablePoller.Result.PLANNED);
    assertThat(state.snapshot().lastError()).isEmpty();
  }

  @Test
  void eachFileIsReadOnceAndOnlyNewFilesOnLaterPolls() throws IOException {
    ServicedTable table = table("orders", HoodieTableType.MERGE_ON_READ, 9, Map.of());
    localTables.upsert(table, 0, 10, 1);
    localTables.upsert(table, 0, 5, 2);
    TableState state = new TableState(quiet(table));
    long before = hudiTables.instantFiles().filesRead();
    poller.poll(state, true);
    assertThat(hudiTables.instantFiles().filesRead() - before).isEqualTo(2);

    poller.poll(state, true);
    assertThat(hudiTables.instantFiles().filesRead() - before).isEqualTo(2);

    localTables.upsert(table, 0, 5, 3);
    assertThat(poller.poll(state, false)).isEqualTo(TablePoller.Result.PLANNED);
    assertThat(hudiTables.instantFiles().filesRead() - before).isEqualTo(3);
  }

  /** A first poll of a long timeline reads its files side by side: each once, and every corrupt one named in order. */
  @Test
  void aLongTimelineIsReadOnceAndEveryCorruptFileInItIsNamed() throws IOException {
    ServicedTable table = table("orders", HoodieTableType.MERGE_ON_READ, 9, Map.of());
    List<String> instants = new java.util.ArrayList<>();
    for (int commit = 1; commit <= 20; commit++) {
      instants.add(localTables.upsert(table, 0, 5, commit));
    }
    Path empty = completed(table, instants.get(3), "deltacommit");
    Path garbled = completed(table, instants.get(12), "deltacommit");
    overwrite(empty, new byte[0]);
    overwrite(garbled, GARBAGE);
    TableState state = new TableState(quiet(table));
    long before = hudiTables.instantFiles().filesRead();

    assertThat(poller.poll(state, true)).isEqualTo(TablePoller.Result.FAILED);

    assertThat(hudiTables.instantFiles().filesRead() - before).isEqualTo(20);
    assertThat(state.snapshot().lastError().orElseThrow())
        .startsWith(named(table, empty, "completed deltacommit") + " is empty (0 bytes)")
        .contains("; corrupt instant file " + uri(garbled) + ": completed deltacommit cannot be read as ");
    assertThat(poller.poll(state, true)).isEqualTo(TablePoller.Result.FAILED);
    assertThat(hudiTables.instantFiles().filesRead() - before).as("files read again").isEqualTo(20);
  }

  @Test
  void aQueuedPlanDoesNotRunWhileACompletedInstantIsCorrupt() throws IOException {
    ServicedTable table = table("orders", HoodieTableType.MERGE_ON_READ, 9, Map.of());
    String first = localTables.upsert(table, 0, 10, 1);
    localTables.upsert(table, 0, 5, 2);
    String compaction = planner.scheduleNow(table, ServiceType.COMPACTION).orElseThrow();
    // Enqueued by the poll that scheduled it, before the file went bad.
    WorkItem item = workItem(table, ServiceType.COMPACTION, compaction);
    Path file = completed(table, first, "deltacommit");
    byte[] original = Files.readAllBytes(file);

    overwrite(file, new byte[0]);

    assertThatThrownBy(() -> runner.apply(item))
        .isInstanceOf(CorruptInstantException.class)
        .hasMessage(table.basePath() + ": corrupt instant file " + uri(file)
            + ": completed deltacommit is empty (0 bytes); Hudi always writes its HoodieCommitMetadata"
            + " (the table is not serviced until the file is restored or the instant removed)");
    assertThat(PendingPlans.list(hudiTables.metaClient(table.basePath())))
        .extracting(PendingPlan::instant).containsExactly(compaction);
    // Nor is a plan written on request (REST schedule) over that timeline.
    assertThatThrownBy(() -> planner.scheduleNow(table, ServiceType.CLEAN))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageStartingWith(table.basePath() + ": corrupt instant file " + uri(file));

    overwrite(file, original);
    ActionResult result = runner.apply(item);
    assertThat(result.service()).isEqualTo(ServiceType.COMPACTION);
    assertThat(PendingPlans.list(hudiTables.metaClient(table.basePath()))).isEmpty();
  }

  @Test
  void anotherTableInThePollingServiceGoesOn() throws Exception {
    Duration interval = Duration.ofMillis(200);
    TablePoller fastBackoff = new TablePoller(hudiTables, HudiTables.defaultHadoopConfiguration(), planner,
        Duration.ofSeconds(1), TablePoller.Backlog.READ, PollObserver.NONE, tableId -> true, Clock.systemUTC());
    TableRegistry registry = new TableRegistry();
    ServicedTable healthy = withInterval(quiet(table("healthy", HoodieTableType.MERGE_ON_READ, 9, Map.of())),
        interval);
    ServicedTable corrupt = withInterval(quiet(table("corrupt", HoodieTableType.MERGE_ON_READ, 9, Map.of())),
        interval);
    localTables.upsert(healthy, 0, 10, 1);
    String instant = localTables.upsert(corrupt, 0, 10, 1);
    Path file = completed(corrupt, instant, "deltacommit");
    byte[] original = Files.readAllBytes(file);
    overwrite(file, GARBAGE);

    try (PollingService polling = new PollingService(fastBackoff, registry, 2)) {
      registry.addListener(polling);
      polling.start();
      registry.add(healthy);
      registry.add(corrupt);
      TableState healthyState = registry.get(healthy.id()).orElseThrow();
      TableState corruptState = registry.get(corrupt.id()).orElseThrow();

      await().atMost(Duration.ofSeconds(30)).until(() -> corruptState.snapshot().consecutiveFailures() >= 2);
      assertThat(corruptState.snapshot().lastError().orElseThrow())
          .startsWith(corrupt.basePath() + ": corrupt instant file " + uri(file)
              + ": completed deltacommit cannot be read as HoodieCommitMetadata");
      await().atMost(Duration.ofSeconds(30)).until(() -> healthyState.snapshot().lastPoll().isPresent());
      Instant firstChange = healthyState.snapshot().lastChange().orElseThrow();
      localTables.upsert(healthy, 0, 5, 2);
      await().atMost(Duration.ofSeconds(30))
          .until(() -> healthyState.snapshot().lastChange().orElseThrow().isAfter(firstChange));
      assertThat(healthyState.snapshot().consecutiveFailures()).isZero();

      overwrite(file, original);
      await().atMost(Duration.ofSeconds(30)).until(() -> corruptState.snapshot().consecutiveFailures() == 0);
      assertThat(corruptState.snapshot().lastError()).isEmpty();
    }
  }

  /**
   * Polls {@code table} (with no services, so the polls themselves write nothing), then for an empty file and for
   * garbage: the poll fails naming the file and {@code kind}, the failures count up, and the poll succeeds again
   * once the file's bytes are restored.
   */
  private void assertEachCorruptionFailsThePoll(ServicedTable table, Path file, String kind) throws IOException {
    TableState state = new TableState(quiet(table));
    assertThat(poller.poll(state, true)).isEqualTo(TablePoller.Result.PLANNED);
    byte[] original = Files.readAllBytes(file);

    overwrite(file, new byte[0]);
    assertThat(poller.poll(state, true)).isEqualTo(TablePoller.Result.FAILED);
    assertThat(state.snapshot().lastError().orElseThrow())
        .startsWith(named(table, file, kind) + " is empty (0 bytes)");
    assertThat(poller.poll(state, true)).isEqualTo(TablePoller.Result.FAILED);
    assertThat(state.snapshot().consecutiveFailures()).isEqualTo(2);

    overwrite(file, original);
    assertThat(poller.poll(state, true)).isEqualTo(TablePoller.Result.PLANNED);
    assertThat(state.snapshot().consecutiveFailures()).isZero();
    assertThat(state.snapshot().lastError()).isEmpty();

    assertGarbageFailsThePoll(table, file, kind);
  }

  /** As {@link #assertEachCorruptionFailsThePoll}, for garbage only. */
  private void assertGarbageFailsThePoll(ServicedTable table, Path file, String kind) throws IOException {
    TableState state = new TableState(quiet(table));
    assertThat(poller.poll(state, true)).isEqualTo(TablePoller.Result.PLANNED);
    byte[] original = Files.readAllBytes(file);

    overwrite(file, GARBAGE);
    assertThat(poller.poll(state, true)).isEqualTo(TablePoller.Result.FAILED);
    assertThat(state.snapshot().lastError().orElseThrow())
        .startsWith(named(table, file, kind) + " cannot be read as ")
        .contains("(" + GARBAGE.length + " bytes)");
    assertThat(state.snapshot().consecutiveFailures()).isEqualTo(1);

    overwrite(file, original);
    assertThat(poller.poll(state, true)).isEqualTo(TablePoller.Result.PLANNED);
    assertThat(state.snapshot().consecutiveFailures()).isZero();
    assertThat(state.snapshot().lastError()).isEmpty();
  }

  private static String named(ServicedTable table, Path file, String kind) {
    return table.basePath() + ": corrupt instant file " + uri(file) + ": " + kind;
  }

  private ServicedTable table(String name, HoodieTableType type, int version, Map<String, String> keys)
      throws IOException {
    Map<String, String> withLock = new HashMap<>(keys);
    withLock.putAll(LOCK);
    return localTables.create(directory.resolve(name), type, version, withLock);
  }

  /** The same table with no services: its polls read the timeline but schedule and enqueue nothing. */
  private static ServicedTable quiet(ServicedTable table) {
    return new ServicedTable(table.id(), table.basePath(), Set.of(), table.pollInterval(), table.hoodieKeys(),
        table.indexes());
  }

  private static ServicedTable withInterval(ServicedTable table, Duration interval) {
    return new ServicedTable(table.id(), table.basePath(), table.services(), interval, table.hoodieKeys(),
        table.indexes());
  }

  private WorkItem workItem(ServicedTable table, ServiceType service, String instant) {
    PendingPlan plan = PendingPlans.list(hudiTables.metaClient(table.basePath())).stream()
        .filter(pending -> pending.service() == service && pending.instant().equals(instant))
        .findFirst().orElseThrow();
    return WorkItem.forPlan(table, plan, Placement.inProcess(HeapEstimate.NONE));
  }

  private void run(ServicedTable table, ServiceType service, String instant) {
    runner.apply(workItem(table, service, instant));
  }

  /** Rewrites a timeline file as a broken writer or disk would leave it: Hadoop's checksum file goes too. */
  private static void overwrite(Path file, byte[] bytes) throws IOException {
    Files.write(file, bytes);
    Files.deleteIfExists(file.resolveSibling("." + file.getFileName() + ".crc"));
  }

  private static String uri(Path file) {
    return "file:" + file;
  }

  private Path timelineFolder(ServicedTable table) {
    Path hoodie = Path.of(table.basePath().substring("file:".length())).resolve(".hoodie");
    return Files.isDirectory(hoodie.resolve("timeline")) ? hoodie.resolve("timeline") : hoodie;
  }

  private Path timelineFile(ServicedTable table, String name) {
    Path file = timelineFolder(table).resolve(name);
    assertThat(file).exists();
    return file;
  }

  /**
   * The completed instant's file: {@code <requested>_<completed>.<action>} on table version 8+,
   * {@code <requested>.<action>} on 6.
   */
  private Path completed(ServicedTable table, String instant, String action) {
    return onlyFile(table, name -> name.startsWith(instant) && name.endsWith("." + action));
  }

  private Path onlyFile(ServicedTable table, Predicate<String> name) {
    try (Stream<Path> files = Files.list(timelineFolder(table))) {
      List<Path> matching = files.filter(file -> name.test(file.getFileName().toString())).toList();
      assertThat(matching).hasSize(1);
      return matching.get(0);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
