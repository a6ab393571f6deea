package io.huditsd.executors;

import io.huditsd.config.EngineKind;
import io.huditsd.config.EnginePolicy;
import io.huditsd.config.ServiceType;
import io.huditsd.config.ServicedTable;
import org.apache.hudi.client.HoodieJavaWriteClient;
import org.apache.hudi.common.model.HoodieAvroPayload;
import org.apache.hudi.common.model.HoodieTableType;
import org.apache.hudi.common.table.HoodieTableMetaClient;
import org.apache.hudi.common.util.Option;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The placement rules over a real compaction plan: request, policy, size threshold and memory budget. */
class TestExecutionPlacement {
  private static final LocalTables LOCAL_TABLES = new LocalTables();
  private static final HeapEstimator ESTIMATOR = new HeapEstimator();
  private static final long NO_BUDGET = Long.MAX_VALUE;

  @TempDir
  static Path directory;
  private static ServicedTable table;
  private static HoodieTableMetaClient metaClient;
  private static PendingPlan plan;

  @BeforeAll
  static void tableWithScheduledCompaction() throws IOException {
    table = LOCAL_TABLES.create(directory.resolve("orders"), HoodieTableType.MERGE_ON_READ, 9,
        Map.of("hoodie.compact.inline.max.delta.commits", "1"));
    LOCAL_TABLES.upsert(table, 0, 20, 1);
    LOCAL_TABLES.upsert(table, 0, 10, 2);
    try (HoodieJavaWriteClient<HoodieAvroPayload> client = LOCAL_TABLES.hudiTables().writeClient(table)) {
      client.scheduleCompaction(Option.empty()).get();
    }
    metaClient = LOCAL_TABLES.hudiTables().metaClient(table.basePath());
    plan = PendingPlans.list(metaClient).get(0);
    assertThat(plan.inputBytes()).as("log bytes of the plan").isPositive();
  }

  private static ServicedTable withPolicy(String... keysAndValues) {
    Map<String, String> keys = new HashMap<>(table.hoodieKeys());
    for (int i = 0; i < keysAndValues.length; i += 2) {
      keys.put(keysAndValues[i], keysAndValues[i + 1]);
    }
    return table.withHoodieKeys(keys);
  }

  private static EngineKind engine(ExecutionPlacement placement, ServicedTable policy,
                                   Optional<EngineKind> requested) {
    return placement.place(metaClient, policy, plan, requested).engine();
  }

  @Test
  void withoutSparkEveryPlanRunsInTheDaemonAndARequestForSparkIsRefused() {
    ExecutionPlacement placement = new ExecutionPlacement(ESTIMATOR, false, NO_BUDGET);

    assertThat(engine(placement, withPolicy(EnginePolicy.SPARK_MIN_BYTES, "1"), Optional.empty()))
        .isEqualTo(EngineKind.JAVA);
    assertThat(engine(placement, withPolicy(EnginePolicy.ENGINE, "spark"), Optional.empty()))
        .as("a spark policy the start-up checks missed (a table registered later)").isEqualTo(EngineKind.JAVA);
    assertThat(engine(placement, table, Optional.of(EngineKind.JAVA))).isEqualTo(EngineKind.JAVA);
    assertThatThrownBy(() -> engine(placement, table, Optional.of(EngineKind.SPARK)))
        .isInstanceOf(ExecutionPlacement.EngineRefusedException.class)
        .hasMessage("table " + table.id() + ": plan " + plan.instant() + " cannot run on engine spark: tsd.yml has "
            + "no spark section to submit with");
  }

  @Test
  void autoSendsAPlanToSparkFromTheSizeThreshold() {
    ExecutionPlacement placement = new ExecutionPlacement(ESTIMATOR, true, NO_BUDGET);
    String atThreshold = Long.toString(plan.inputBytes());
    String aboveInput = Long.toString(plan.inputBytes() + 1);

    assertThat(engine(placement, withPolicy(EnginePolicy.SPARK_MIN_BYTES, atThreshold), Optional.empty()))
        .isEqualTo(EngineKind.SPARK);
    assertThat(engine(placement, withPolicy(EnginePolicy.SPARK_MIN_BYTES, aboveInput), Optional.empty()))
        .isEqualTo(EngineKind.JAVA);
    assertThat(engine(placement, table, Optional.empty())).as("default threshold 64 MiB").isEqualTo(EngineKind.JAVA);
  }

  @Test
  void autoSendsAPlanOverTheMemoryBudgetToSpark() {
    long estimate = ESTIMATOR.estimate(metaClient, table, plan).bytes();
    assertThat(estimate).as("the estimate of a plan with log files").isPositive();
    ServicedTable smallPlansInProcess = withPolicy(EnginePolicy.SPARK_MIN_BYTES, "1TiB");

    assertThat(engine(new ExecutionPlacement(ESTIMATOR, true, estimate - 1), smallPlansInProcess, Optional.empty()))
        .isEqualTo(EngineKind.SPARK);
    assertThat(engine(new ExecutionPlacement(ESTIMATOR, true, estimate), smallPlansInProcess, Optional.empty()))
        .isEqualTo(EngineKind.JAVA);
    Placement withoutSpark = new ExecutionPlacement(ESTIMATOR, false, estimate - 1)
        .place(metaClient, smallPlansInProcess, plan, Optional.empty());
    assertThat(withoutSpark.engine()).as("over the budget without Spark: the pool refuses it")
        .isEqualTo(EngineKind.JAVA);
    assertThat(withoutSpark.reservedHeapBytes()).isEqualTo(estimate);
  }

  /**
   * The budget end to end: a plan placed over the budget with Spark configured is run by the pool on the Spark
   * engine (a stand-in that records what it got; the real submission is SparkEngineIT's), never on the Java one, and
   * holds none of the budget while it runs.
   */
  @Test
  void aPlanOverTheBudgetWithSparkRunsOnSparkThroughThePool() throws InterruptedException {
    long estimate = ESTIMATOR.estimate(metaClient, table, plan).bytes();
    ServicedTable smallPlansInProcess = withPolicy(EnginePolicy.SPARK_MIN_BYTES, "1TiB");
    Placement placement = new ExecutionPlacement(ESTIMATOR, true, estimate - 1)
        .place(metaClient, smallPlansInProcess, plan, Optional.empty());
    List<WorkItem> onSpark = new CopyOnWriteArrayList<>();
    List<Long> reservedWhileRunning = new CopyOnWriteArrayList<>();
    AtomicReference<WorkerPool> poolRef = new AtomicReference<>();
    PlanEngine java = item -> {
      throw new AssertionError("a plan over the budget must not run in the daemon");
    };
    PlanEngine spark = item -> {
      onSpark.add(item);
      reservedWhileRunning.add(poolRef.get().reservedHeapBytes());
      return new ActionResult(item.service(), item.instant(), 1, 0, 0, Duration.ZERO);
    };
    PlanRunner runner = new PlanRunner(LOCAL_TABLES.hudiTables(), PlanRunner.defaultActions(),
        Map.of(EngineKind.JAVA, java, EngineKind.SPARK, spark));
    List<RunRecord> finished = new CopyOnWriteArrayList<>();
    try (WorkerPool pool = new WorkerPool(1, 1, estimate - 1, 1, Duration.ZERO, runner,
        record -> {
          if (record.status().isFinal()) {
            finished.add(record);
          }
        }, tableId -> false)) {
      poolRef.set(pool);
      assertThat(pool.submit(WorkItem.forPlan(smallPlansInProcess, plan, placement))).isPresent();
      assertThat(pool.awaitIdle(Duration.ofMinutes(1))).isTrue();
    }

    assertThat(placement.engine()).isEqualTo(EngineKind.SPARK);
    assertThat(onSpark).hasSize(1);
    assertThat(onSpark.get(0).instant()).contains(plan.instant());
    assertThat(reservedWhileRunning).containsExactly(0L);
    assertThat(finished).singleElement().satisfies(run -> assertThat(run.status()).isEqualTo(RunStatus.SUCCEEDED));
  }

  @Test
  void aServicePolicyWinsOverTheSizeAndARequestWinsOverThePolicy() {
    ExecutionPlacement placement = new ExecutionPlacement(ESTIMATOR, true, NO_BUDGET);
    ServicedTable javaCompaction = withPolicy(EnginePolicy.ENGINE, "spark", EnginePolicy.ENGINE_COMPACTION, "java",
        EnginePolicy.SPARK_MIN_BYTES, "1");
    ServicedTable sparkCompaction = withPolicy(EnginePolicy.ENGINE_COMPACTION, "spark");

    assertThat(engine(placement, javaCompaction, Optional.empty())).isEqualTo(EngineKind.JAVA);
    assertThat(engine(placement, sparkCompaction, Optional.empty())).isEqualTo(EngineKind.SPARK);
    assertThat(engine(placement, javaCompaction, Optional.of(EngineKind.SPARK))).isEqualTo(EngineKind.SPARK);
    assertThat(engine(placement, sparkCompaction, Optional.of(EngineKind.JAVA))).isEqualTo(EngineKind.JAVA);
    Placement onSpark = placement.place(metaClient, sparkCompaction, plan, Optional.empty());
    assertThat(onSpark.reservedHeapBytes()).as("a Spark run holds none of the daemon's budget").isZero();
    assertThat(onSpark.estimate().bytes()).as("but shows its estimate").isPositive();
  }

  @Test
  void cleanArchiveAndIndexNeverGoToSpark() {
    ExecutionPlacement placement = new ExecutionPlacement(ESTIMATOR, true, NO_BUDGET);
    PendingPlan clean = new PendingPlan(ServiceType.CLEAN, "20261201000000000", false, Set.of(), 0);

    assertThatThrownBy(() -> placement.place(metaClient, withPolicy(EnginePolicy.ENGINE, "spark"), clean,
        Optional.of(EngineKind.SPARK)))
        .isInstanceOf(ExecutionPlacement.EngineRefusedException.class)
        .hasMessage("table " + table.id() + ": plan 20261201000000000 is a clean plan, which always runs in the "
            + "daemon; engine spark applies to compaction and clustering");
    assertThat(ExecutionPlacement.runsAnywhere(ServiceType.INDEX)).isFalse();
    assertThat(ExecutionPlacement.runsAnywhere(ServiceType.ARCHIVE)).isFalse();
    assertThat(ExecutionPlacement.runsAnywhere(ServiceType.CLUSTERING)).isTrue();
  }
}
