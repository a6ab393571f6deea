package io.huditsd.api;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** The stop a signal begins: its steps in order, then the exit, whenever each step was added. */
class TestOrderlyStop {
  private final List<String> events = Collections.synchronizedList(new ArrayList<>());
  private final CompletableFuture<Integer> exit = new CompletableFuture<>();
  private final OrderlyStop stop = new OrderlyStop(status -> {
    events.add("exit " + status);
    exit.complete(status);
  });

  @Test
  void aSignalRunsTheStepsInTheOrderTheyWereAddedThenExitsWithTheSignalsStatus() throws Exception {
    stop.add("writer", () -> events.add("writer"));
    stop.add("failing", () -> {
      throw new IllegalStateException("broken");
    });
    stop.add("daemon", () -> events.add("daemon"));
    assertThat(stop.isStopping()).isFalse();

    stop.signalled("SIGTERM", 143);

    assertThat(exit.get(10, TimeUnit.SECONDS)).isEqualTo(143);
    assertThat(stop.isStopping()).isTrue();
    assertThat(events).as("a failing step does not keep the later ones from running")
        .containsExactly("writer", "daemon", "exit 143");
  }

  @Test
  void aStepAddedWhileTheStopRunsRunsBeforeTheExit() throws Exception {
    CountDownLatch inFirstStep = new CountDownLatch(1);
    CountDownLatch added = new CountDownLatch(1);
    stop.add("first", () -> {
      inFirstStep.countDown();
      added.await(10, TimeUnit.SECONDS);
      events.add("first");
    });

    stop.signalled("SIGTERM", 143);
    assertThat(inFirstStep.await(10, TimeUnit.SECONDS)).isTrue();
    // As a daemon created during the start-up adds its stop.
    stop.add("daemon", () -> events.add("daemon"));
    added.countDown();

    assertThat(exit.get(10, TimeUnit.SECONDS)).isEqualTo(143);
    assertThat(events).containsExactly("first", "daemon", "exit 143");
  }

  @Test
  void aStepAddedAfterTheStopEndedRunsAtOnceOnTheCallersThread() throws Exception {
    stop.signalled("SIGINT", 130);
    assertThat(exit.get(10, TimeUnit.SECONDS)).isEqualTo(130);

    stop.add("daemon", () -> events.add("daemon on " + Thread.currentThread().getName()));

    assertThat(events).containsExactly("exit 130", "daemon on " + Thread.currentThread().getName());
  }

  @Test
  void aSecondSignalChangesNothing() throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    stop.add("slow", () -> {
      release.await(10, TimeUnit.SECONDS);
      events.add("slow");
    });

    stop.signalled("SIGTERM", 143);
    stop.signalled("SIGINT", 130);
    release.countDown();

    assertThat(exit.get(10, TimeUnit.SECONDS)).isEqualTo(143);
    Thread.sleep(100);
    assertThat(events).containsExactly("slow", "exit 143");
  }
}
