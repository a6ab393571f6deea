package io.huditsd.executors;

import io.huditsd.config.EngineKind;
import io.huditsd.config.MetadataIndexes;
import io.huditsd.config.ServiceType;
import io.huditsd.config.ServicedTable;
import io.huditsd.executors.WorkerPool.Cancellation;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** The pool with a runner written here: which item runs when, and what a failing runner leads to. */
class TestWorkerPool {
  private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");
  private static final Duration WAIT = Duration.ofSeconds(10);

  private final RecordingListener listener = new RecordingListener();
  private final List<WorkerPool> pools = new ArrayList<>();

  @AfterEach
  void closePools() throws InterruptedException {
    for (WorkerPool pool : pools) {
      pool.shutdown(Duration.ofSeconds(5));
    }
  }

  private WorkerPool pool(int workers, int maxAttempts, Duration retryBackoff,
                          Function<WorkItem, ActionResult> runner) {
    WorkerPool pool = new WorkerPool(workers, maxAttempts, retryBackoff, runner, listener);
    pools.add(pool);
    return pool;
  }

  private static ServicedTable table(String id) {
    return new ServicedTable(id, "file:/data/" + id, Set.of(ServiceType.values()), Duration.ofSeconds(30), Map.of(),
        MetadataIndexes.none());
  }

  private static WorkItem item(String table, ServiceType service, String instant, long backlog,
                               Set<String> fileGroups, int secondsAfterT0) {
    return new WorkItem(table(table), service, Optional.of(instant), backlog, fileGroups,
        T0.plusSeconds(secondsAfterT0), Placement.inProcess(HeapEstimate.NONE));
  }

  private WorkerPool budgetPool(int workers, int sparkSlots, long budget, Function<WorkItem, ActionResult> runner) {
    WorkerPool pool = new WorkerPool(workers, sparkSlots, budget, 1, Duration.ZERO, runner, listener, id -> false);
    pools.add(pool);
    return pool;
  }

  /** A compaction of its own table that holds {@code heapBytes} in process, or none on Spark. */
  private static WorkItem sized(String table, EngineKind engine, long heapBytes, long backlog) {
    return new WorkItem(table(table), ServiceType.COMPACTION, Optional.of("001"), backlog, Set.of(), T0,
        new Placement(engine, new HeapEstimate(heapBytes, "1 operation, " + heapBytes + " B")));
  }

  private static WorkItem compaction(String table, String instant) {
    return item(table, ServiceType.COMPACTION, instant, 0, Set.of(), 0);
  }

  private static ActionResult done(WorkItem item) {
    return new ActionResult(item.service(), item.instant(), 1, 10, 20, Duration.ofMillis(1));
  }

  @Test
  void largestBacklogRunsFirstThenTheOldest() throws Exception {
    Gate blocker = new Gate();
    List<String> order = Collections.synchronizedList(new ArrayList<>());
    WorkerPool pool = pool(1, 1, Duration.ZERO, item -> {
      if (item.table().id().equals("blocker")) {
        blocker.pass();
      }
      order.add(item.table().id());
      return done(item);
    });
    pool.submit(compaction("blocker", "001"));
    blocker.awaitStarted();

    pool.submit(item("small-new", ServiceType.COMPACTION, "001", 10, Set.of(), 3));
    pool.submit(item("large", ServiceType.COMPACTION, "001", 1_000, Set.of(), 2));
    pool.submit(item("small-old", ServiceType.COMPACTION, "001", 10, Set.of(), 1));
    pool.submit(item("none", ServiceType.CLEAN, "001", 0, Set.of(), 0));
    assertThat(pool.snapshot()).extracting(run -> run.item().table().id())
        .containsExactly("blocker", "large", "small-old", "small-new", "none");
    blocker.release();

    assertThat(pool.awaitIdle(WAIT)).isTrue();
    assertThat(order).containsExactly("blocker", "large", "small-old", "small-new", "none");
  }

  @Test
  void atMostOneItemPerTableAndServiceRuns() throws Exception {
    Map<String, Gate> gates = Map.of("t1/001", new Gate(), "t2/001", new Gate());
    ConcurrencyProbe probe = new ConcurrencyProbe();
    WorkerPool pool = pool(2, 1, Duration.ZERO, item -> probe.run(item, () -> {
      Gate gate = gates.get(item.table().id() + "/" + item.instant().orElseThrow());
      if (gate != null) {
        gate.pass();
      }
    }));

    WorkItem first = item("t1", ServiceType.COMPACTION, "001", 0, Set.of("p/f1"), 0);
    WorkItem second = item("t1", ServiceType.COMPACTION, "002", 0, Set.of("p/f2"), 1);
    WorkItem otherTable = item("t2", ServiceType.COMPACTION, "001", 0, Set.of("p/f1"), 2);
    pool.submit(first);
    gates.get("t1/001").awaitStarted();
    pool.submit(second);
    pool.submit(otherTable);
    // The second worker skips t1's second compaction and takes the other table's.
    gates.get("t2/001").awaitStarted();
    assertThat(probe.started()).containsExactlyInAnyOrder(first.key(), otherTable.key());
    gates.get("t2/001").release();
    await().atMost(WAIT).until(() -> listener.statusOf(otherTable.key()) == RunStatus.SUCCEEDED);
    assertThat(probe.started()).doesNotContain(second.key());
    assertThat(listener.statusOf(second.key())).isEqualTo(RunStatus.QUEUED);

    gates.get("t1/001").release();
    assertThat(pool.awaitIdle(WAIT)).isTrue();
    assertThat(probe.started()).containsExactly(first.key(), otherTable.key(), second.key());
    assertThat(probe.violations()).isEmpty();
  }

  @Test
  void itemsSharingAFileGroupNeverRunTogether() throws Exception {
    Gate compactionGate = new Gate();
    Gate cleanGate = new Gate();
    ConcurrencyProbe probe = new ConcurrencyProbe();
    WorkerPool pool = pool(3, 1, Duration.ZERO, item -> probe.run(item, () -> {
      if (item.service() == ServiceType.COMPACTION) {
        compactionGate.pass();
      } else if (item.service() == ServiceType.CLEAN) {
        cleanGate.pass();
      }
    }));

    WorkItem compaction = item("t1", ServiceType.COMPACTION, "001", 0, Set.of("p/f1", "p/f2"), 0);
    WorkItem clustering = item("t1", ServiceType.CLUSTERING, "002", 0, Set.of("p/f2", "p/f3"), 1);
    WorkItem clean = item("t1", ServiceType.CLEAN, "003", 0, Set.of(), 2);
    pool.submit(compaction);
    compactionGate.awaitStarted();
    pool.submit(clustering);
    pool.submit(clean);
    // Clean touches no file group, so it runs beside the compaction on the same table; clustering shares p/f2.
    cleanGate.awaitStarted();
    assertThat(probe.started()).containsExactlyInAnyOrder(compaction.key(), clean.key());
    cleanGate.release();
    await().atMost(WAIT).until(() -> listener.statusOf(clean.key()) == RunStatus.SUCCEEDED);
    assertThat(listener.statusOf(clustering.key())).isEqualTo(RunStatus.QUEUED);

    compactionGate.release();
    assertThat(pool.awaitIdle(WAIT)).isTrue();
    assertThat(listener.statusOf(clustering.key())).isEqualTo(RunStatus.SUCCEEDED);
    assertThat(probe.violations()).isEmpty();
  }

  @Test
  void itemsOfDifferentTablesRunInParallel() throws Exception {
    CountDownLatch bothRunning = new CountDownLatch(2);
    WorkerPool pool = pool(2, 1, Duration.ZERO, item -> {
      bothRunning.countDown();
      try {
        // Only completes when the other table's item runs at the same time.
        if (!bothRunning.await(10, TimeUnit.SECONDS)) {
          throw new IllegalStateException("the other table's item did not run in parallel");
        }
      } catch (InterruptedException e) {
        throw new IllegalStateException(e);
      }
      return done(item);
    });

    pool.submit(compaction("t1", "001"));
    pool.submit(compaction("t2", "001"));

    assertThat(pool.awaitIdle(WAIT)).isTrue();
    assertThat(listener.finalStatuses()).containsOnly(RunStatus.SUCCEEDED).hasSize(2);
  }

  @Test
  void theSameWorkIsQueuedOnceWhileQueuedOrRunning() throws Exception {
    Gate gate = new Gate();
    WorkerPool pool = pool(1, 1, Duration.ZERO, item -> {
      gate.pass();
      return done(item);
    });
    WorkItem work = compaction("t1", "001");

    Optional<RunRecord> queued = pool.submit(work);
    assertThat(queued).isPresent();
    gate.awaitStarted();
    assertThat(pool.isQueuedOrRunning(work.key())).isTrue();
    assertThat(pool.submit(compaction("t1", "001"))).isEmpty();
    gate.release();
    assertThat(pool.awaitIdle(WAIT)).isTrue();

    // Finished work may be queued again (the same plan found pending on a later poll).
    assertThat(pool.isQueuedOrRunning(work.key())).isFalse();
    Optional<RunRecord> again = pool.submit(work);
    assertThat(again).isPresent();
    assertThat(again.get().runId()).isNotEqualTo(queued.get().runId());
    assertThat(pool.awaitIdle(WAIT)).isTrue();
  }

  @Test
  void aFailingItemIsRetriedWithGrowingBackoffThenFails() throws Exception {
    List<Long> attemptsAt = Collections.synchronizedList(new ArrayList<>());
    WorkerPool pool = pool(1, 3, Duration.ofMillis(100), item -> {
      attemptsAt.add(System.nanoTime());
      throw new IllegalStateException("boom", new IOException("disk full"));
    });
    WorkItem work = compaction("t1", "001");

    long runId = pool.submit(work).orElseThrow().runId();
    await().atMost(WAIT).until(() -> listener.statusOf(work.key()) == RunStatus.FAILED);

    assertThat(attemptsAt).hasSize(3);
    assertThat(attemptsAt.get(1) - attemptsAt.get(0)).isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(100));
    assertThat(attemptsAt.get(2) - attemptsAt.get(1)).isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(200));
    assertThat(listener.history(runId)).extracting(RunRecord::status, RunRecord::attempt).containsExactly(
        org.assertj.core.groups.Tuple.tuple(RunStatus.QUEUED, 1),
        org.assertj.core.groups.Tuple.tuple(RunStatus.RUNNING, 1),
        org.assertj.core.groups.Tuple.tuple(RunStatus.RETRY_WAIT, 1),
        org.assertj.core.groups.Tuple.tuple(RunStatus.RUNNING, 2),
        org.assertj.core.groups.Tuple.tuple(RunStatus.RETRY_WAIT, 2),
        org.assertj.core.groups.Tuple.tuple(RunStatus.RUNNING, 3),
        org.assertj.core.groups.Tuple.tuple(RunStatus.FAILED, 3));
    RunRecord failed = listener.last(runId);
    assertThat(failed.error()).contains("IllegalStateException: boom <- IOException: disk full");
    assertThat(failed.finishedAt()).isPresent();
    assertThat(pool.isQueuedOrRunning(work.key())).isFalse();
  }

  @Test
  void aRetrySucceedsOnceTheCauseIsGone() throws Exception {
    AtomicInteger calls = new AtomicInteger();
    WorkerPool pool = pool(1, 3, Duration.ofMillis(10), item -> {
      if (calls.incrementAndGet() == 1) {
        throw new IllegalStateException("lock held by a writer");
      }
      return done(item);
    });

    long runId = pool.submit(compaction("t1", "001")).orElseThrow().runId();
    await().atMost(WAIT).until(() -> listener.last(runId).status().isFinal());

    RunRecord last = listener.last(runId);
    assertThat(last.status()).isEqualTo(RunStatus.SUCCEEDED);
    assertThat(last.attempt()).isEqualTo(2);
    assertThat(last.result()).contains(new ActionResult(ServiceType.COMPACTION, Optional.of("001"), 1, 10, 20,
        Duration.ofMillis(1)));
  }

  @Test
  void aWaitingRetryDoesNotHoldUpOtherWork() throws Exception {
    List<String> order = Collections.synchronizedList(new ArrayList<>());
    WorkerPool pool = pool(1, 2, Duration.ofMinutes(10), item -> {
      order.add(item.table().id());
      if (item.table().id().equals("failing")) {
        throw new IllegalStateException("boom");
      }
      return done(item);
    });

    WorkItem failing = item("failing", ServiceType.COMPACTION, "001", 1_000, Set.of(), 0);
    pool.submit(failing);
    await().atMost(WAIT).until(() -> listener.statusOf(failing.key()) == RunStatus.RETRY_WAIT);
    pool.submit(compaction("healthy", "001"));

    await().atMost(WAIT).until(() -> listener.statusOf(compaction("healthy", "001").key()) == RunStatus.SUCCEEDED);
    assertThat(order).containsExactly("failing", "healthy");
    assertThat(pool.queuedCount()).isEqualTo(1);
  }

  @Test
  void aSkippedPlanIsNeitherRetriedNorFailed() throws Exception {
    AtomicInteger calls = new AtomicInteger();
    WorkerPool pool = pool(1, 3, Duration.ZERO, item -> {
      calls.incrementAndGet();
      throw new PlanSkippedException("plan 001 is no longer pending (completed or rolled back elsewhere)");
    });

    long runId = pool.submit(compaction("t1", "001")).orElseThrow().runId();
    await().atMost(WAIT).until(() -> listener.last(runId).status().isFinal());

    RunRecord last = listener.last(runId);
    assertThat(last.status()).isEqualTo(RunStatus.SKIPPED);
    assertThat(last.attempt()).isEqualTo(1);
    assertThat(last.error()).contains("plan 001 is no longer pending (completed or rolled back elsewhere)");
    assertThat(calls).hasValue(1);
  }

  @Test
  void aRunStoppedOnRequestEndsCancelledAndIsNotRetried() throws Exception {
    AtomicInteger calls = new AtomicInteger();
    WorkerPool pool = pool(1, 3, Duration.ZERO, item -> {
      calls.incrementAndGet();
      throw new RunCancelledException("cancelled: Spark application app-1 was killed");
    });

    long runId = pool.submit(compaction("t1", "001")).orElseThrow().runId();
    await().atMost(WAIT).until(() -> listener.last(runId).status().isFinal());

    RunRecord last = listener.last(runId);
    assertThat(last.status()).isEqualTo(RunStatus.CANCELLED);
    assertThat(last.error()).contains("cancelled: Spark application app-1 was killed");
    assertThat(calls).hasValue(1);
    assertThat(pool.isQueuedOrRunning(compaction("t1", "001").key())).isFalse();
  }

  @Test
  void aThrowingRunnerDoesNotKillItsWorker() throws Exception {
    // One worker: if a failure killed it, nothing after the failures would run.
    WorkerPool pool = pool(1, 1, Duration.ZERO, item -> switch (item.table().id()) {
      case "runtime" -> throw new IllegalArgumentException("bad plan");
      case "error" -> throw new NoClassDefFoundError("org/apache/hudi/Missing");
      case "checked" -> throw sneaky(new IOException("sneaky checked exception"));
      default -> done(item);
    });

    pool.submit(item("runtime", ServiceType.COMPACTION, "001", 0, Set.of(), 0));
    pool.submit(item("error", ServiceType.COMPACTION, "001", 0, Set.of(), 1));
    pool.submit(item("checked", ServiceType.COMPACTION, "001", 0, Set.of(), 2));
    pool.submit(item("fine", ServiceType.COMPACTION, "001", 0, Set.of(), 3));

    assertThat(pool.awaitIdle(WAIT)).isTrue();
    assertThat(listener.statusOf(compaction("runtime", "001").key())).isEqualTo(RunStatus.FAILED);
    assertThat(listener.statusOf(compaction("error", "001").key())).isEqualTo(RunStatus.FAILED);
    assertThat(listener.statusOf(compaction("checked", "001").key())).isEqualTo(RunStatus.FAILED);
    assertThat(listener.statusOf(compaction("fine", "001").key())).isEqualTo(RunStatus.SUCCEEDED);
    assertThat(listener.last(listener.runIdOf(compaction("error", "001").key())).error())
        .contains("NoClassDefFoundError: org/apache/hudi/Missing");
  }

  @Test
  void aQueuedRunCanBeCancelledButARunningOneCannot() throws Exception {
    Gate gate = new Gate();
    List<String> ran = Collections.synchronizedList(new ArrayList<>());
    WorkerPool pool = pool(1, 1, Duration.ZERO, item -> {
      ran.add(item.table().id());
      if (item.table().id().equals("running")) {
        gate.pass();
      }
      return done(item);
    });
    long running = pool.submit(compaction("running", "001")).orElseThrow().runId();
    gate.awaitStarted();
    WorkItem queuedItem = compaction("queued", "001");
    long queued = pool.submit(queuedItem).orElseThrow().runId();

    Cancellation cancelled = pool.cancel(queued);

    assertThat(cancelled).isInstanceOfSatisfying(Cancellation.Cancelled.class, removed -> {
      assertThat(removed.run().status()).isEqualTo(RunStatus.CANCELLED);
      assertThat(removed.run().finishedAt()).isPresent();
    });
    assertThat(listener.last(queued).status()).isEqualTo(RunStatus.CANCELLED);
    assertThat(pool.isQueuedOrRunning(queuedItem.key())).isFalse();
    assertThat(pool.cancel(running)).isInstanceOfSatisfying(Cancellation.Running.class,
        left -> assertThat(left.run().runId()).isEqualTo(running));
    assertThat(pool.cancel(12345)).isEqualTo(new Cancellation.NotQueued(12345));
    assertThat(pool.cancel(queued)).as("cancelled already").isEqualTo(new Cancellation.NotQueued(queued));
    gate.release();
    assertThat(pool.awaitIdle(WAIT)).isTrue();
    assertThat(ran).containsExactly("running");
  }

  /**
   * A caller saw the run queued, then a worker took it: the removal answers "running", as it is, and not "no such
   * run" (what checking for a running run and then removing a queued one in two steps answered).
   */
  @Test
  void aRunThatStartedAfterTheCallerLookedIsAnsweredAsRunning() throws Exception {
    Gate blocker = new Gate();
    Gate second = new Gate();
    WorkerPool pool = pool(1, 1, Duration.ZERO, item -> {
      (item.table().id().equals("blocker") ? blocker : second).pass();
      return done(item);
    });
    pool.submit(compaction("blocker", "001"));
    blocker.awaitStarted();
    long runId = pool.submit(compaction("second", "001")).orElseThrow().runId();
    assertThat(pool.snapshot()).filteredOn(run -> run.runId() == runId).extracting(RunRecord::status)
        .containsExactly(RunStatus.QUEUED);

    blocker.release();
    second.awaitStarted();

    assertThat(pool.cancel(runId)).isInstanceOfSatisfying(Cancellation.Running.class,
        running -> assertThat(running.run().status()).isEqualTo(RunStatus.RUNNING));
    second.release();
    assertThat(pool.awaitIdle(WAIT)).isTrue();
    assertThat(listener.last(runId).status()).isEqualTo(RunStatus.SUCCEEDED);
  }

  /**
   * A removal racing a worker that takes the same run: either it removed the run (which then never runs) or the
   * run had started (and finishes); never "no such run", as the run is held running until the removal answered.
   * Repeated, as the thread scheduler decides the race.
   */
  @Test
  void aRemovalRacingTheStartOfTheRunIsEitherCancelledOrRunning() throws Exception {
    for (int round = 0; round < 50; round++) {
      Gate blocker = new Gate();
      // Holds the raced run once it started, so that it is still running when the removal answers.
      Gate raced = new Gate();
      String table = "race-" + round;
      List<String> ran = Collections.synchronizedList(new ArrayList<>());
      // Run ids are per pool: one listener per round.
      RecordingListener runs = new RecordingListener();
      WorkerPool pool = new WorkerPool(1, 1, Duration.ZERO, item -> {
        if (item.table().id().equals("blocker")) {
          blocker.pass();
        }
        ran.add(item.table().id());
        if (item.table().id().equals(table)) {
          raced.pass();
        }
        return done(item);
      }, runs);
      try {
        pool.submit(compaction("blocker", "r" + round));
        blocker.awaitStarted();
        long runId = pool.submit(compaction(table, "001")).orElseThrow().runId();
        CountDownLatch go = new CountDownLatch(1);
        AtomicReference<Cancellation> answer = new AtomicReference<>();
        Thread canceller = new Thread(() -> {
          try {
            go.await();
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return;
          }
          answer.set(pool.cancel(runId));
        });
        canceller.start();
        go.countDown();
        blocker.release();
        canceller.join(WAIT.toMillis());
        raced.release();
        assertThat(pool.awaitIdle(WAIT)).isTrue();

        assertThat(answer.get()).isNotNull().isNotInstanceOf(Cancellation.NotQueued.class);
        if (answer.get() instanceof Cancellation.Cancelled) {
          assertThat(ran).doesNotContain(table);
          assertThat(runs.last(runId).status()).isEqualTo(RunStatus.CANCELLED);
        } else {
          assertThat(ran).contains(table);
          assertThat(runs.last(runId).status()).isEqualTo(RunStatus.SUCCEEDED);
        }
      } finally {
        pool.shutdown(WAIT);
      }
    }
  }

  @Test
  void awaitIdleWaitsForQueuedAndRunningWork() throws Exception {
    Gate gate = new Gate();
    WorkerPool pool = pool(1, 1, Duration.ZERO, item -> {
      gate.pass();
      return done(item);
    });
    assertThat(pool.awaitIdle(Duration.ZERO)).isTrue();

    pool.submit(compaction("t1", "001"));
    gate.awaitStarted();
    assertThat(pool.runningCount()).isEqualTo(1);
    assertThat(pool.awaitIdle(Duration.ofMillis(50))).isFalse();

    gate.release();
    assertThat(pool.awaitIdle(WAIT)).isTrue();
    assertThat(pool.runningCount()).isZero();
    assertThat(pool.queuedCount()).isZero();
  }

  @Test
  void aClosedPoolTakesNoWork() throws Exception {
    WorkerPool pool = pool(1, 1, Duration.ZERO, TestWorkerPool::done);
    pool.shutdown(Duration.ofSeconds(5));

    assertThat(pool.submit(compaction("t1", "001"))).isEmpty();
  }

  @Test
  void aPlanWhoseEstimateAloneIsOverTheBudgetFailsAtOnceAndNeverStarts() throws Exception {
    List<String> started = Collections.synchronizedList(new ArrayList<>());
    WorkerPool pool = budgetPool(2, 0, 100L << 20, item -> {
      started.add(item.table().id());
      return done(item);
    });
    WorkItem large = new WorkItem(table("orders"), ServiceType.CLUSTERING, Optional.of("20261201101010000"), 0,
        Set.of("p/f1"), T0, Placement.inProcess(new HeapEstimate(900L << 20,
            "2 groups, largest 256.0 MiB x 3.5 decode factor")));

    RunRecord refused = pool.submit(large).orElseThrow();

    assertThat(refused.status()).isEqualTo(RunStatus.FAILED);
    assertThat(refused.startedAt()).isEmpty();
    assertThat(refused.error()).contains("Not starting clustering plan 20261201101010000 of table orders in the"
        + " daemon: its heap estimate 900.0 MiB (2 groups, largest 256.0 MiB x 3.5 decode factor) is more than"
        + " workers.memoryBudget 100.0 MiB; a spark section in tsd.yml would run it on Spark (or raise -Xmx and"
        + " workers.memoryBudget)");
    assertThat(listener.history(refused.runId())).extracting(RunRecord::status)
        .containsExactly(RunStatus.QUEUED, RunStatus.FAILED);
    assertThat(pool.isQueuedOrRunning(large.key())).isFalse();
    // The pool goes on with what fits.
    pool.submit(sized("fits", EngineKind.JAVA, 100L << 20, 0));
    assertThat(pool.awaitIdle(WAIT)).isTrue();
    assertThat(started).containsExactly("fits");
  }

  @Test
  void twoPlansThatFitAloneButNotTogetherRunOneAfterTheOther() throws Exception {
    Gate firstGate = new Gate();
    Gate smallGate = new Gate();
    AtomicReference<String> secondSawFirst = new AtomicReference<>();
    Set<String> finishedBodies = ConcurrentHashMap.newKeySet();
    WorkerPool pool = budgetPool(3, 0, 100, item -> {
      switch (item.table().id()) {
        case "first" -> firstGate.pass();
        case "small" -> smallGate.pass();
        case "second" -> secondSawFirst.set(finishedBodies.contains("first") ? "after" : "beside");
        default -> throw new IllegalStateException(item.table().id());
      }
      finishedBodies.add(item.table().id());
      return done(item);
    });
    WorkItem first = sized("first", EngineKind.JAVA, 60, 0);
    WorkItem second = sized("second", EngineKind.JAVA, 60, 0);
    // Ordered before the second and fits beside the first: it shows that the pool looked and chose.
    WorkItem small = sized("small", EngineKind.JAVA, 40, 1_000);
    pool.submit(first);
    firstGate.awaitStarted();
    pool.submit(second);
    pool.submit(small);
    smallGate.awaitStarted();
    assertThat(pool.reservedHeapBytes()).isEqualTo(100);
    smallGate.release();
    await().atMost(WAIT).until(() -> listener.statusOf(small.key()) == RunStatus.SUCCEEDED);

    assertThat(listener.statusOf(second.key())).isEqualTo(RunStatus.QUEUED);
    assertThat(pool.reservedHeapBytes()).isEqualTo(60);
    firstGate.release();
    assertThat(pool.awaitIdle(WAIT)).isTrue();
    assertThat(secondSawFirst).hasValue("after");
    assertThat(listener.statusOf(second.key())).isEqualTo(RunStatus.SUCCEEDED);
    assertThat(pool.reservedHeapBytes()).isZero();
  }

  @Test
  void aPlanWaitingForBudgetIsNotOvertakenBySmallerOnes() throws Exception {
    Map<String, Gate> gates = Map.of("running", new Gate(), "large", new Gate());
    List<String> order = Collections.synchronizedList(new ArrayList<>());
    WorkerPool pool = budgetPool(3, 0, 100, item -> {
      order.add(item.table().id());
      Gate gate = gates.get(item.table().id());
      if (gate != null) {
        gate.pass();
      }
      return done(item);
    });
    pool.submit(sized("running", EngineKind.JAVA, 50, 0));
    gates.get("running").awaitStarted();
    WorkItem large = sized("large", EngineKind.JAVA, 80, 1_000);
    WorkItem small = sized("small", EngineKind.JAVA, 30, 10);
    pool.submit(large);
    pool.submit(small);
    // Another change makes the workers look again: the small one would fit beside the running one, but not beside
    // the large one that waits ahead of it.
    pool.wake();
    assertThat(pool.snapshot()).extracting(run -> run.item().table().id(), RunRecord::status).containsExactly(
        org.assertj.core.groups.Tuple.tuple("running", RunStatus.RUNNING),
        org.assertj.core.groups.Tuple.tuple("large", RunStatus.QUEUED),
        org.assertj.core.groups.Tuple.tuple("small", RunStatus.QUEUED));

    gates.get("running").release();
    gates.get("large").awaitStarted();
    assertThat(listener.statusOf(small.key())).isEqualTo(RunStatus.QUEUED);
    gates.get("large").release();
    assertThat(pool.awaitIdle(WAIT)).isTrue();
    assertThat(order).containsExactly("running", "large", "small");
  }

  @Test
  void sparkRunsTakeTheirOwnSlotsAndNoBudget() throws Exception {
    Map<String, Gate> gates = new ConcurrentHashMap<>(Map.of("java-1", new Gate(), "spark-1", new Gate()));
    SlotProbe probe = new SlotProbe();
    WorkerPool pool = budgetPool(1, 1, 100, item -> probe.run(item, () -> {
      Gate gate = gates.get(item.table().id());
      if (gate != null) {
        gate.pass();
      }
    }));
    assertThat(pool.workerCount()).isEqualTo(2);
    pool.submit(sized("java-1", EngineKind.JAVA, 90, 0));
    gates.get("java-1").awaitStarted();
    // Over the budget, but it runs on Spark: it holds none of the daemon's heap, and no in-process slot.
    pool.submit(sized("spark-1", EngineKind.SPARK, 500, 0));
    gates.get("spark-1").awaitStarted();
    assertThat(pool.runningCount()).isEqualTo(2);
    assertThat(pool.reservedHeapBytes()).isEqualTo(90);

    WorkItem java2 = sized("java-2", EngineKind.JAVA, 10, 0);
    WorkItem spark2 = sized("spark-2", EngineKind.SPARK, 10, 0);
    pool.submit(java2);
    pool.submit(spark2);
    pool.wake();
    assertThat(listener.statusOf(java2.key())).isEqualTo(RunStatus.QUEUED);
    assertThat(listener.statusOf(spark2.key())).isEqualTo(RunStatus.QUEUED);

    gates.get("spark-1").release();
    await().atMost(WAIT).until(() -> listener.statusOf(spark2.key()) == RunStatus.SUCCEEDED);
    assertThat(listener.statusOf(java2.key())).as("the in-process slot is still taken").isEqualTo(RunStatus.QUEUED);
    gates.get("java-1").release();
    assertThat(pool.awaitIdle(WAIT)).isTrue();
    assertThat(listener.finalStatuses()).containsOnly(RunStatus.SUCCEEDED).hasSize(4);
    assertThat(probe.maxInProcess()).isEqualTo(1);
    assertThat(probe.maxOnSpark()).isEqualTo(1);
  }

  @Test
  void withoutSparkSlotsASparkItemTakesAWorkerAndTheRunnerDecides() throws Exception {
    WorkerPool pool = pool(1, 1, Duration.ZERO, item -> {
      throw new IllegalStateException("no engine spark is configured");
    });
    WorkItem item = sized("t1", EngineKind.SPARK, 10, 0);
    pool.submit(item);
    assertThat(pool.awaitIdle(WAIT)).isTrue();
    assertThat(listener.last(listener.runIdOf(item.key())).error()).contains(
        "IllegalStateException: no engine spark is configured");
    assertThat(pool.memoryBudgetBytes()).isEqualTo(Long.MAX_VALUE);
  }

  @Test
  void onceAStopBeginsNothingNewStartsWhileTheRunningItemGoesOn() throws Exception {
    Gate blocker = new Gate();
    List<String> ran = Collections.synchronizedList(new ArrayList<>());
    WorkerPool pool = pool(2, 1, Duration.ZERO, item -> {
      ran.add(item.table().id());
      if (item.table().id().equals("running")) {
        blocker.pass();
      }
      return done(item);
    });
    pool.submit(compaction("running", "001"));
    blocker.awaitStarted();
    // Same table and service as the running one: it waits, although a worker is free.
    long queued = pool.submit(item("running", ServiceType.COMPACTION, "002", 0, Set.of(), 0)).orElseThrow().runId();

    pool.stopTakingWork();
    assertThat(pool.isStopping()).isTrue();
    assertThat(pool.submit(compaction("new", "001"))).as("a submission after the stop began").isEmpty();
    blocker.release();
    await().atMost(WAIT).until(() -> pool.runningCount() == 0);
    List<RunRecord> abandoned = pool.shutdown(Duration.ZERO);

    assertThat(ran).as("items that ran").containsExactly("running");
    assertThat(listener.last(listener.runIdOf(compaction("running", "001").key())).status())
        .isEqualTo(RunStatus.SUCCEEDED);
    assertThat(abandoned).singleElement().satisfies(run -> {
      assertThat(run.runId()).isEqualTo(queued);
      assertThat(run.status()).isEqualTo(RunStatus.CANCELLED);
      assertThat(run.error()).hasValue("Not started: the daemon stopped; the plan stays pending for the next "
          + "process");
    });
    assertThat(listener.last(queued)).isEqualTo(abandoned.get(0));
  }

  @Test
  void aPlanRunningAtTheStopFinishesWithinTheGracePeriod() throws Exception {
    Gate gate = new Gate();
    WorkerPool pool = pool(1, 1, Duration.ZERO, item -> {
      gate.pass();
      return done(item);
    });
    long runId = pool.submit(compaction("t1", "001")).orElseThrow().runId();
    gate.awaitStarted();
    Thread finisher = new Thread(() -> {
      try {
        Thread.sleep(300);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      gate.release();
    });
    finisher.start();

    long start = System.nanoTime();
    List<RunRecord> abandoned = pool.shutdown(WAIT);

    assertThat(Duration.ofNanos(System.nanoTime() - start)).as("the stop waited for the run, not the whole grace")
        .isLessThan(WAIT.dividedBy(2));
    assertThat(abandoned).isEmpty();
    assertThat(listener.last(runId).status()).isEqualTo(RunStatus.SUCCEEDED);
  }

  @Test
  void aPlanStillRunningAfterTheGracePeriodIsAbandonedAndNeverRetried() throws Exception {
    Gate gate = new Gate();
    AtomicInteger attempts = new AtomicInteger();
    WorkerPool pool = pool(1, 3, Duration.ZERO, item -> {
      attempts.incrementAndGet();
      gate.pass();
      // What a commit meets once the stop closed the locks.
      throw new IllegalStateException("Lock provider already closed");
    });
    long runId = pool.submit(compaction("t1", "001")).orElseThrow().runId();
    gate.awaitStarted();

    List<RunRecord> abandoned = pool.shutdown(Duration.ofMillis(200));

    assertThat(abandoned).singleElement().satisfies(run -> {
      assertThat(run.runId()).isEqualTo(runId);
      assertThat(run.status()).isEqualTo(RunStatus.CANCELLED);
      assertThat(run.error()).hasValue("Abandoned: still running when the daemon's stop grace period "
          + "(workers.shutdownGracePeriod, 0s) ended; the plan stays pending for the next process");
    });
    assertThat(pool.shutdown(Duration.ZERO)).as("a second shutdown abandons nothing more").isEmpty();
    gate.release();
    await().atMost(WAIT).until(() -> pool.runningCount() == 0);
    assertThat(attempts).as("attempts: the abandoned run is not retried").hasValue(1);
    assertThat(listener.history(runId)).extracting(RunRecord::status)
        .as("the run's changes: none after it was abandoned")
        .containsExactly(RunStatus.QUEUED, RunStatus.RUNNING, RunStatus.CANCELLED);
  }

  @SuppressWarnings("unchecked")
  private static <E extends Throwable> RuntimeException sneaky(Throwable error) throws E {
    throw (E) error;
  }

  /** Lets a test hold a runner inside an item and know when it got there. */
  private static final class Gate {
    private final CountDownLatch started = new CountDownLatch(1);
    private final CountDownLatch released = new CountDownLatch(1);

    void pass() {
      started.countDown();
      try {
        if (!released.await(30, TimeUnit.SECONDS)) {
          throw new IllegalStateException("gate was never released");
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException(e);
      }
    }

    void awaitStarted() throws InterruptedException {
      assertThat(started.await(10, TimeUnit.SECONDS)).as("runner reached the gate").isTrue();
    }

    void release() {
      released.countDown();
    }
  }

  /** Records which items started and any moment two items ran that the pool must keep apart. */
  private static final class ConcurrencyProbe {
    private final List<String> started = Collections.synchronizedList(new ArrayList<>());
    private final Map<String, WorkItem> running = new ConcurrentHashMap<>();
    private final List<String> violations = Collections.synchronizedList(new ArrayList<>());

    ActionResult run(WorkItem item, Runnable body) {
      synchronized (this) {
        for (WorkItem other : running.values()) {
          boolean sameService = other.exclusivityKey().equals(item.exclusivityKey());
          boolean sharedFileGroup = other.table().id().equals(item.table().id())
              && other.fileGroupIds().stream().anyMatch(item.fileGroupIds()::contains);
          if (sameService || sharedFileGroup) {
            violations.add(item.key() + " ran beside " + other.key());
          }
        }
        running.put(item.key(), item);
        started.add(item.key());
      }
      try {
        body.run();
        return done(item);
      } finally {
        running.remove(item.key());
      }
    }

    List<String> started() {
      return List.copyOf(started);
    }

    List<String> violations() {
      return List.copyOf(violations);
    }
  }

  /** The most items that ran at once, in process and on Spark. */
  private static final class SlotProbe {
    private final AtomicInteger inProcess = new AtomicInteger();
    private final AtomicInteger onSpark = new AtomicInteger();
    private final AtomicInteger maxInProcess = new AtomicInteger();
    private final AtomicInteger maxOnSpark = new AtomicInteger();

    ActionResult run(WorkItem item, Runnable body) {
      boolean spark = item.placement().engine() == EngineKind.SPARK;
      AtomicInteger now = spark ? onSpark : inProcess;
      (spark ? maxOnSpark : maxInProcess).accumulateAndGet(now.incrementAndGet(), Math::max);
      try {
        body.run();
        return done(item);
      } finally {
        now.decrementAndGet();
      }
    }

    int maxInProcess() {
      return maxInProcess.get();
    }

    int maxOnSpark() {
      return maxOnSpark.get();
    }
  }

  /** Every status change, per run. */
  private static final class RecordingListener implements RunListener {
    private final Map<Long, List<RunRecord>> byRun = new HashMap<>();
    private final Map<String, Long> latestRunByKey = new HashMap<>();

    @Override
    public synchronized void onChange(RunRecord record) {
      byRun.computeIfAbsent(record.runId(), id -> new ArrayList<>()).add(record);
      latestRunByKey.put(record.item().key(), record.runId());
    }

    synchronized List<RunRecord> history(long runId) {
      return List.copyOf(byRun.getOrDefault(runId, List.of()));
    }

    synchronized RunRecord last(long runId) {
      List<RunRecord> records = byRun.get(runId);
      return records == null ? null : records.get(records.size() - 1);
    }

    synchronized long runIdOf(String key) {
      return latestRunByKey.get(key);
    }

    synchronized RunStatus statusOf(String key) {
      Long runId = latestRunByKey.get(key);
      return runId == null ? null : last(runId).status();
    }

    synchronized List<RunStatus> finalStatuses() {
      return byRun.values().stream().map(records -> records.get(records.size() - 1).status()).toList();
    }
  }
}
