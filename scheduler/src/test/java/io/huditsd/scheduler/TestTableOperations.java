package io.huditsd.scheduler;

import io.huditsd.config.EngineKind;
import io.huditsd.config.HeartbeatSettings;
import io.huditsd.config.ServiceType;
import io.huditsd.config.ServicedTable;
import io.huditsd.executors.HudiTables;
import io.huditsd.executors.LocalTables;
import io.huditsd.executors.PendingPlan;
import io.huditsd.executors.PendingPlans;
import io.huditsd.executors.RunRecord;
import io.huditsd.executors.RunStatus;
import io.huditsd.executors.WorkerPool;
import io.huditsd.ha.TableOwnership;
import io.huditsd.scheduler.OperationOutcomes.AlreadyQueued;
import io.huditsd.scheduler.OperationOutcomes.Cancelled;
import io.huditsd.scheduler.OperationOutcomes.EngineRefused;
import io.huditsd.scheduler.OperationOutcomes.HandedOver;
import io.huditsd.scheduler.OperationOutcomes.NoPendingPlan;
import io.huditsd.scheduler.OperationOutcomes.NoPlanForService;
import io.huditsd.scheduler.OperationOutcomes.NoQueuedRun;
import io.huditsd.scheduler.OperationOutcomes.NotOwned;
import io.huditsd.scheduler.OperationOutcomes.NothingToPlan;
import io.huditsd.scheduler.OperationOutcomes.Previewed;
import io.huditsd.scheduler.OperationOutcomes.Queued;
import io.huditsd.scheduler.OperationOutcomes.Scheduled;
import io.huditsd.scheduler.OperationOutcomes.SchedulingRefused;
import io.huditsd.scheduler.OperationOutcomes.ServiceDisabled;
import io.huditsd.scheduler.OperationOutcomes.StillRunning;
import io.huditsd.scheduler.OperationOutcomes.TablePaused;
import io.huditsd.scheduler.OperationOutcomes.TableUnreadable;
import io.huditsd.scheduler.OperationOutcomes.UnknownTable;
import io.huditsd.scheduler.OperationOutcomes.Updated;
import org.apache.hadoop.conf.Configuration;
import org.apache.hudi.client.HoodieJavaWriteClient;
import org.apache.hudi.common.model.HoodieAvroPayload;
import org.apache.hudi.common.model.HoodieTableType;
import org.apache.hudi.common.util.Option;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The service layer on real MOR tables written by Hudi's Java writer: each operation's outcomes, and what it queued
 * or wrote. The pool holds what it takes, so nothing is executed and the queue shows what each operation queued.
 */
class TestTableOperations {
  /** A writer's compaction trigger: a plan as soon as one delta commit has logs. */
  private static final Map<String, String> WRITER_COMPACTION = Map.of("hoodie.compact.inline.max.delta.commits", "1");

  @TempDir
  Path directory;

  private final HudiTables hudiTables = new HudiTables(new Configuration(), new HeartbeatSettings(60_000, 2));
  private final LocalTables localTables = new LocalTables(hudiTables);
  private final HoldingPool holding = new HoldingPool();
  private final WorkerPool pool = holding.pool();
  private final TableRegistry registry = new TableRegistry();

  @AfterEach
  void closePool() throws InterruptedException {
    holding.close();
  }

  private TableOperations operations(TableOwnership ownership) {
    return new TableOperations(registry, hudiTables, pool, new DuePlanner(hudiTables, pool), ownership);
  }

  private TableOperations operations() {
    return operations(TableOwnership.sole("replica-a"));
  }

  /** A MOR table with log files (an insert, then updates of some of its rows), registered with {@code services}. */
  private ServicedTable tableWithLogs(String name, Set<ServiceType> services) throws IOException {
    ServicedTable written = localTables.create(directory.resolve(name), HoodieTableType.MERGE_ON_READ, 9, Map.of());
    localTables.upsert(written, 0, 20, 1);
    localTables.upsert(written, 0, 10, 2);
    ServicedTable table = new ServicedTable(written.id(), written.basePath(), services, written.pollInterval(),
        written.hoodieKeys(), written.indexes());
    registry.add(table);
    return table;
  }

  /** A writer schedules a compaction, as Hudi's writers do with a table service manager or async compaction. */
  private String scheduleCompactionAsAWriter(ServicedTable table) {
    ServicedTable writer = new ServicedTable(table.id(), table.basePath(), Set.of(ServiceType.COMPACTION),
        table.pollInterval(), WRITER_COMPACTION, table.indexes());
    try (HoodieJavaWriteClient<HoodieAvroPayload> client = hudiTables.writeClient(writer)) {
      Option<String> instant = client.scheduleCompaction(Option.empty());
      assertThat(instant.isPresent()).as("the writer scheduled a compaction").isTrue();
      return instant.get();
    }
  }

  private List<PendingPlan> pendingPlans(ServicedTable table) {
    return PendingPlans.list(hudiTables.metaClient(table.basePath()));
  }

  private List<String> queuedInstants() {
    return pool.snapshot().stream().map(run -> run.item().instant().orElse("-")).toList();
  }

  @Test
  void executeQueuesAPendingPlanOnceAndNamesTheRunAlreadyThere() throws IOException {
    ServicedTable table = tableWithLogs("orders", Set.of(ServiceType.values()));
    String instant = scheduleCompactionAsAWriter(table);
    TableOperations operations = operations();

    assertThat(operations.execute(table.id(), instant)).isInstanceOfSatisfying(Queued.class, queued -> {
      assertThat(queued.run().item().service()).isEqualTo(ServiceType.COMPACTION);
      assertThat(queued.run().item().instant()).contains(instant);
    });
    long runId = pool.snapshot().get(0).runId();
    assertThat(operations.execute(table.id(), instant)).isInstanceOfSatisfying(AlreadyQueued.class, already -> {
      assertThat(already.existing()).map(RunRecord::runId).contains(runId);
      assertThat(already.message()).startsWith("Plan " + instant + " of table '" + table.id() + "' is already ")
          .endsWith("(run " + runId + ")");
    });
    assertThat(operations.execute(table.id(), "20990101000000000")).isEqualTo(
        new NoPendingPlan(table.id(), "20990101000000000"));
    assertThat(((NoPendingPlan) operations.execute(table.id(), "20990101000000000")).message())
        .isEqualTo("Table '" + table.id() + "' has no pending plan at instant '20990101000000000'");
    assertThat(operations.execute("nope", instant)).isEqualTo(new UnknownTable("nope"));
    assertThat(queuedInstants()).containsExactly(instant);
  }

  /**
   * Garbage over hoodie.properties: every operation that opens the table answers its refusal naming the file, as
   * the table's poll does; Hudi's own exception reached REST as a 500 without a reason. With Hadoop's checksum file
   * beside it (a local file system) Hudi cannot read it at all; without one (an object store) it takes the table
   * for missing.
   */
  @ParameterizedTest(name = "checksum file kept: {0}")
  @ValueSource(booleans = {true, false})
  void aGarbledHoodiePropertiesIsAnsweredNamingTheFile(boolean checksumKept) throws IOException {
    ServicedTable table = tableWithLogs("orders", Set.of(ServiceType.values()));
    String instant = scheduleCompactionAsAWriter(table);
    Path properties = directory.resolve("orders").resolve(".hoodie").resolve("hoodie.properties");
    Files.writeString(properties, "garbage over the table config\n");
    if (!checksumKept) {
      Files.delete(properties.resolveSibling(".hoodie.properties.crc"));
    }
    TableOperations operations = operations();
    String file = table.basePath() + "/.hoodie/hoodie.properties";
    String problem = "Table '" + table.id() + "': " + table.basePath() + ": table config " + file
        + (checksumKept ? " cannot be read: HoodieIOException: Could not load Hoodie properties from " + file
        : " cannot be read: TableNotFoundException: Hoodie table not found in path Table does not exist")
        + " (the table is not serviced until the file is restored)";

    assertThat(operations.dryRun(table.id(), ServiceType.CLEAN)).isInstanceOfSatisfying(TableUnreadable.class,
        refused -> assertThat(refused.message()).isEqualTo(problem));
    assertThat(operations.schedule(table.id(), ServiceType.CLEAN)).isInstanceOfSatisfying(TableUnreadable.class,
        refused -> assertThat(refused.message()).isEqualTo(problem));
    assertThat(operations.execute(table.id(), instant)).isInstanceOfSatisfying(TableUnreadable.class,
        refused -> assertThat(refused.message()).isEqualTo(problem));
    assertThat(operations.handOver(table.id(), ServiceType.COMPACTION, List.of(instant)))
        .isInstanceOfSatisfying(TableUnreadable.class, refused -> assertThat(refused.message()).isEqualTo(problem));
    assertThat(pool.snapshot()).isEmpty();
  }

  /** A dry run reads the instant files as a real schedule does: it answered 200 "nothing to plan" over an empty one. */
  @Test
  void aDryRunOverAnEmptyCompletedInstantIsRefusedAsARealScheduleIs() throws IOException {
    ServicedTable table = tableWithLogs("orders", Set.of(ServiceType.values()));
    Path timeline = directory.resolve("orders").resolve(".hoodie").resolve("timeline");
    Path completed;
    try (var files = Files.list(timeline)) {
      completed = files.filter(path -> path.getFileName().toString().endsWith(".deltacommit")).sorted()
          .findFirst().orElseThrow();
    }
    Files.write(completed, new byte[0]);
    Files.deleteIfExists(completed.resolveSibling("." + completed.getFileName() + ".crc"));
    TableOperations operations = operations();
    String problem = table.basePath() + ": corrupt instant file file:" + completed
        + ": completed deltacommit is empty (0 bytes); Hudi always writes its HoodieCommitMetadata"
        + " (the table is not serviced until the file is restored or the instant removed)";

    for (ServiceType service : List.of(ServiceType.COMPACTION, ServiceType.CLEAN, ServiceType.INDEX)) {
      assertThat(operations.dryRun(table.id(), service)).as(service.configName())
          .isEqualTo(new TableUnreadable(table.id(), problem));
    }
    assertThat(operations.schedule(table.id(), ServiceType.COMPACTION))
        .isEqualTo(new TableUnreadable(table.id(), problem));
    assertThat(pendingPlans(table)).isEmpty();
  }

  /**
   * The table runs clean only: a compaction plan its writer scheduled is the writer's. Before the service layer,
   * REST's execute and the table service manager endpoint queued such plans (only the poll left them alone).
   */
  @Test
  void aServiceDisabledOnTheTableGetsNoPlanQueuedAndNoneWritten() throws IOException {
    ServicedTable table = tableWithLogs("events", Set.of(ServiceType.CLEAN));
    TableOperations operations = operations();
    // A dry run writes and queues nothing: it answers for disabled services too.
    assertThat(operations.dryRun(table.id(), ServiceType.COMPACTION)).isInstanceOf(Previewed.class);
    String instant = scheduleCompactionAsAWriter(table);
    ServiceDisabled disabled = new ServiceDisabled(table.id(), ServiceType.COMPACTION);

    assertThat(operations.execute(table.id(), instant)).isEqualTo(disabled);
    assertThat(operations.handOver(table.id(), ServiceType.COMPACTION, List.of(instant))).isEqualTo(disabled);
    assertThat(operations.schedule(table.id(), ServiceType.COMPACTION)).isEqualTo(disabled);
    assertThat(disabled.message()).isEqualTo("Service compaction is not enabled on table '" + table.id() + "'");

    assertThat(pool.snapshot()).isEmpty();
    assertThat(pendingPlans(table)).extracting(PendingPlan::instant).containsExactly(instant);
  }

  @Test
  void scheduleWritesAndQueuesAPlanAndRefusesASecondWhileTheFirstIsPending() throws IOException {
    ServicedTable table = tableWithLogs("orders", Set.of(ServiceType.values()));
    TableOperations operations = operations();

    Scheduled scheduled = (Scheduled) operations.schedule(table.id(), ServiceType.COMPACTION);

    assertThat(pendingPlans(table)).extracting(PendingPlan::instant).containsExactly(scheduled.instant());
    assertThat(queuedInstants()).containsExactly(scheduled.instant());
    assertThat(operations.schedule(table.id(), ServiceType.COMPACTION)).isEqualTo(new SchedulingRefused(table.id(),
        ServiceType.COMPACTION, "table " + table.id() + " already has a pending compaction plan; it is executed "
        + "first"));
    assertThat(operations.schedule(table.id(), ServiceType.ARCHIVE)).isEqualTo(
        new NoPlanForService(ServiceType.ARCHIVE));
    assertThat(operations.dryRun(table.id(), ServiceType.ARCHIVE)).isEqualTo(
        new NoPlanForService(ServiceType.ARCHIVE));
    // No index is wanted on the table.
    assertThat(operations.schedule(table.id(), ServiceType.INDEX)).isEqualTo(
        new NothingToPlan(table.id(), ServiceType.INDEX));
    assertThat(operations.dryRun(table.id(), ServiceType.INDEX)).isEqualTo(
        new NothingToPlan(table.id(), ServiceType.INDEX));
    assertThat(operations.schedule("nope", ServiceType.COMPACTION)).isEqualTo(new UnknownTable("nope"));
    assertThat(operations.dryRun("nope", ServiceType.COMPACTION)).isEqualTo(new UnknownTable("nope"));
    assertThat(pendingPlans(table)).hasSize(1);
  }

  @Test
  void aPausedTableRefusesRequestsButKeepsWhatAWriterHandsOver() throws IOException {
    ServicedTable table = tableWithLogs("orders", Set.of(ServiceType.values()));
    String instant = scheduleCompactionAsAWriter(table);
    TableOperations operations = operations();

    assertThat(operations.pause(table.id())).isInstanceOfSatisfying(Updated.class,
        updated -> assertThat(updated.state().isPaused()).isTrue());
    assertThat(operations.execute(table.id(), instant)).isEqualTo(new TablePaused(table.id()));
    assertThat(operations.schedule(table.id(), ServiceType.CLEAN)).isEqualTo(new TablePaused(table.id()));
    assertThat(queuedInstants()).isEmpty();
    // The writer asks once; its plan waits in the queue for the resume.
    assertThat(operations.handOver(table.id(), ServiceType.COMPACTION, List.of(instant, "20990101000000000")))
        .isEqualTo(new HandedOver(table.id(), List.of(instant), List.of("20990101000000000"), true));
    assertThat(queuedInstants()).containsExactly(instant);
    // Only compaction plans are taken from a compaction request.
    assertThat(operations.handOver(table.id(), ServiceType.CLEAN, List.of(instant)))
        .isEqualTo(new HandedOver(table.id(), List.of(), List.of(instant), true));

    assertThat(operations.resume(table.id())).isInstanceOfSatisfying(Updated.class,
        updated -> assertThat(updated.state().isPaused()).isFalse());
    assertThat(operations.pause("nope")).isEqualTo(new UnknownTable("nope"));
    assertThat(operations.resume("nope")).isEqualTo(new UnknownTable("nope"));
  }

  @Test
  void onlyTheOwnerSchedulesAndExecutesButAnyReplicaPreviews() throws IOException {
    ServicedTable table = tableWithLogs("orders", Set.of(ServiceType.values()));
    String instant = scheduleCompactionAsAWriter(table);
    TableOperations operations = operations(new OtherReplicaOwns("replica-a", "replica-b"));
    NotOwned notOwned = new NotOwned(table.id(), Optional.of("replica-b"), "replica-a");

    assertThat(operations.execute(table.id(), instant)).isEqualTo(notOwned);
    assertThat(operations.schedule(table.id(), ServiceType.CLEAN)).isEqualTo(notOwned);
    assertThat(operations.handOver(table.id(), ServiceType.COMPACTION, List.of(instant))).isEqualTo(notOwned);
    assertThat(notOwned.message()).isEqualTo("Table '" + table.id() + "' is owned by replica 'replica-b', not by "
        + "replica 'replica-a'; ask its owner");
    assertThat(queuedInstants()).isEmpty();
    // The writer's plan is pending, so a preview plans the file groups it left out: none here.
    assertThat(operations.dryRun(table.id(), ServiceType.COMPACTION)).isEqualTo(
        new NothingToPlan(table.id(), ServiceType.COMPACTION));
  }

  @Test
  void executeOnAnEngineTheDaemonCannotUseIsRefusedNamingWhy() throws IOException {
    ServicedTable table = tableWithLogs("orders", Set.of(ServiceType.values()));
    String instant = scheduleCompactionAsAWriter(table);
    TableOperations operations = operations();

    assertThat(operations.execute(table.id(), instant, Optional.of(EngineKind.SPARK))).isEqualTo(
        new EngineRefused(table.id(), instant, "table " + table.id() + ": plan " + instant + " cannot run on "
            + "engine spark: tsd.yml has no spark section to submit with"));
    assertThat(queuedInstants()).isEmpty();
    assertThat(operations.execute(table.id(), instant, Optional.of(EngineKind.JAVA)))
        .isInstanceOfSatisfying(Queued.class, queued ->
            assertThat(queued.run().item().placement().engine()).isEqualTo(EngineKind.JAVA));
  }

  @Test
  void cancelRemovesAQueuedRunAndAnswersRunningForOneThatStarted() throws IOException {
    ServicedTable orders = tableWithLogs("orders", Set.of(ServiceType.values()));
    ServicedTable events = tableWithLogs("events", Set.of(ServiceType.values()));
    TableOperations operations = operations();
    RunRecord first = ((Queued) operations.execute(orders.id(), scheduleCompactionAsAWriter(orders))).run();
    // The pool's one worker takes the first run and holds it; the second waits behind it.
    await().atMost(Duration.ofSeconds(30)).until(() -> pool.runningCount() == 1);
    RunRecord second = ((Queued) operations.execute(events.id(), scheduleCompactionAsAWriter(events))).run();

    assertThat(operations.cancel(second.runId())).isInstanceOfSatisfying(Cancelled.class,
        cancelled -> assertThat(cancelled.run().status()).isEqualTo(RunStatus.CANCELLED));
    assertThat(operations.cancel(first.runId())).isInstanceOfSatisfying(StillRunning.class,
        running -> assertThat(running.message()).isEqualTo("Run " + first.runId() + " is running in the daemon "
            + "and cannot be removed"));
    assertThat(operations.cancel(second.runId())).isEqualTo(new NoQueuedRun(second.runId()));
    assertThat(pool.snapshot()).extracting(RunRecord::runId).containsExactly(first.runId());
  }

  /** Another replica owns every table. */
  private record OtherReplicaOwns(String replicaId, String owner) implements TableOwnership {
    @Override
    public boolean owns(String tableId) {
      return false;
    }

    @Override
    public Optional<String> owner(String tableId) {
      return Optional.of(owner);
    }

    @Override
    public void track(String tableId) {
    }

    @Override
    public void untrack(String tableId) {
    }

    @Override
    public void requestPoll(String tableId) {
    }

    @Override
    public long changes() {
      return 0;
    }

    @Override
    public void addListener(Listener listener) {
    }

    @Override
    public void start(Predicate<String> busy) {
    }

    @Override
    public void close() {
    }
  }
}
