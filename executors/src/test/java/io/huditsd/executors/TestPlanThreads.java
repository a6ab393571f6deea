package io.huditsd.executors;

import org.apache.hadoop.conf.Configuration;
import org.apache.hudi.client.common.HoodieJavaEngineContext;
import org.apache.hudi.exception.HoodieLockException;
import org.apache.hudi.storage.hadoop.HadoopStorageConfiguration;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Where Hudi's parallel work of a plan runs, and how many parts of it at once. */
class TestPlanThreads {
  private static final List<Integer> PARTS = IntStream.range(0, 12).boxed().toList();

  /**
   * Hudi's Java engine context maps a plan's parts in a parallel stream: on the plan's pool, never more at once than
   * its parallelism. Each part waits until a second one is running too (the pool must run two together), then
   * counts how many are running. On the common pool (the daemon widens it to 8 or more threads) all of them run at
   * once.
   */
  @Test
  void hudiParallelWorkRunsOnThePlansThreadsAtMostParallelismAtOnce() {
    PlanThreads threads = new PlanThreads(2);
    Set<String> threadNames = ConcurrentHashMap.newKeySet();
    AtomicInteger running = new AtomicInteger();
    AtomicInteger mostAtOnce = new AtomicInteger();
    CountDownLatch two = new CountDownLatch(2);
    HoodieJavaEngineContext context = new HoodieJavaEngineContext(new HadoopStorageConfiguration(new Configuration()));

    List<Integer> done = threads.run("table-a", () -> context.map(PARTS, part -> {
      threadNames.add(Thread.currentThread().getName());
      mostAtOnce.accumulateAndGet(running.incrementAndGet(), Math::max);
      two.countDown();
      try {
        assertThat(two.await(30, TimeUnit.SECONDS)).as("a second part ran beside the first").isTrue();
        // Give any further worker the chance to start a part while this one still runs.
        Thread.sleep(20);
      } catch (InterruptedException e) {
        throw new IllegalStateException(e);
      } finally {
        running.decrementAndGet();
      }
      return part;
    }, PARTS.size()));

    assertThat(done).containsExactlyInAnyOrderElementsOf(PARTS);
    assertThat(mostAtOnce.get()).isEqualTo(2);
    assertThat(threadNames).isNotEmpty().allSatisfy(name -> assertThat(name).startsWith("tsd-plan-").contains("table-a"));
  }

  @Test
  void whatTheWorkThrowsIsRethrownAsItWas() {
    PlanThreads threads = new PlanThreads(1);
    HoodieLockException thrown = new HoodieLockException("held by another writer");

    assertThatThrownBy(() -> threads.run("t", () -> {
      throw thrown;
    })).isSameAs(thrown);
    assertThatThrownBy(() -> threads.run("t", () -> {
      throw new IOException("disk gone");
    })).isInstanceOf(IllegalStateException.class).hasCauseInstanceOf(IOException.class);
  }

  @Test
  void anInterruptedCallerWaitsForThePlanAndKeepsTheInterrupt() {
    PlanThreads threads = new PlanThreads(1);
    Thread caller = Thread.currentThread();
    CountDownLatch interrupted = new CountDownLatch(1);

    String result = threads.run("t", () -> {
      caller.interrupt();
      interrupted.countDown();
      return "finished";
    });

    assertThat(result).isEqualTo("finished");
    assertThat(Thread.interrupted()).isTrue();
  }

  @Test
  void parallelismBelowOneIsRefused() {
    assertThatThrownBy(() -> new PlanThreads(0)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("parallelism");
  }
}
