package io.huditsd.scheduler;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/** One table's polls: due times that keep the phase, never two at once, one more for any asked during a poll. */
class TestTablePollSchedule {
  private static final Instant T0 = Instant.parse("2030-01-01T00:00:00Z");
  private static final Duration INTERVAL = Duration.ofSeconds(30);
  private static final long WAIT_SECONDS = 10;

  private final ExecutorService executor = Executors.newFixedThreadPool(4);

  @AfterEach
  void stop() throws InterruptedException {
    executor.shutdownNow();
    assertThat(executor.awaitTermination(WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
  }

  @Test
  void theNextDueTimeKeepsThePhaseAndSkipsWhatWasMissed() {
    long interval = INTERVAL.toMillis();
    assertThat(TablePollSchedule.dueAfter(T0, T0.plusMillis(5), interval)).isEqualTo(T0.plus(INTERVAL));
    // Fired on time to the millisecond: the next one is a whole interval on, never the same instant again.
    assertThat(TablePollSchedule.dueAfter(T0, T0.plus(INTERVAL), interval)).isEqualTo(T0.plus(INTERVAL.multipliedBy(2)));
    // Two and a half intervals late (a long pause): one poll now, the next at the table's phase, no burst of three.
    assertThat(TablePollSchedule.dueAfter(T0, T0.plus(INTERVAL.multipliedBy(5).dividedBy(2)), interval))
        .isEqualTo(T0.plus(INTERVAL.multipliedBy(3)));
  }

  @Test
  void advanceMovesTheDueTimeUntilCancelled() {
    TablePollSchedule schedule = new TablePollSchedule("t", INTERVAL, T0, () -> { }, executor);
    assertThat(schedule.nextPoll()).contains(T0);

    assertThat(schedule.advance(T0.plusMillis(3))).contains(T0.plus(INTERVAL));
    assertThat(schedule.nextPoll()).contains(T0.plus(INTERVAL));

    schedule.cancel();
    assertThat(schedule.advance(T0.plus(INTERVAL))).isEmpty();
    assertThat(schedule.nextPoll()).isEmpty();
  }

  @Test
  void pollsAskedForDuringAPollRunOnceAfterItAndNeverAlongside() throws Exception {
    CountDownLatch firstStarted = new CountDownLatch(1);
    CountDownLatch releaseFirst = new CountDownLatch(1);
    AtomicInteger polls = new AtomicInteger();
    AtomicInteger running = new AtomicInteger();
    AtomicInteger mostAtOnce = new AtomicInteger();
    TablePollSchedule schedule = new TablePollSchedule("t", INTERVAL, T0, () -> {
      mostAtOnce.accumulateAndGet(running.incrementAndGet(), Math::max);
      try {
        if (polls.incrementAndGet() == 1) {
          firstStarted.countDown();
          awaitReleased(releaseFirst);
        }
      } finally {
        running.decrementAndGet();
      }
    }, executor);

    executor.execute(schedule::pollNow);
    assertThat(firstStarted.await(WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
    // Three more asked for while the first runs (a timer, a REST trigger, a commit callback), one of them from
    // another thread; each has returned before the first poll is let go.
    schedule.pollNow();
    executor.submit(schedule::pollNow).get(WAIT_SECONDS, TimeUnit.SECONDS);
    schedule.pollNow();
    assertThat(polls).hasValue(1);
    releaseFirst.countDown();

    await().atMost(Duration.ofSeconds(WAIT_SECONDS)).until(() -> polls.get() == 2 && running.get() == 0);
    // Nothing is left queued behind it: one more asked for now is one more poll, not two.
    schedule.pollNow();
    await().atMost(Duration.ofSeconds(WAIT_SECONDS)).until(() -> polls.get() == 3 && running.get() == 0);
    await().during(Duration.ofMillis(300)).atMost(Duration.ofSeconds(WAIT_SECONDS)).until(() -> polls.get() == 3);
    assertThat(mostAtOnce).hasValue(1);
  }

  @Test
  void aCancelledScheduleFinishesItsPollAndStartsNoOther() throws Exception {
    CountDownLatch started = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    AtomicInteger polls = new AtomicInteger();
    TablePollSchedule schedule = new TablePollSchedule("t", INTERVAL, T0, () -> {
      polls.incrementAndGet();
      started.countDown();
      awaitReleased(release);
    }, executor);
    executor.execute(schedule::pollNow);
    assertThat(started.await(WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
    schedule.pollNow();

    schedule.cancel();
    release.countDown();
    schedule.pollNow();
    executor.shutdown();
    assertThat(executor.awaitTermination(WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();

    assertThat(polls).hasValue(1);
  }

  @Test
  void aPollThatThrowsLeavesTheTablePollable() {
    AtomicInteger polls = new AtomicInteger();
    TablePollSchedule schedule = new TablePollSchedule("t", INTERVAL, T0, () -> {
      if (polls.incrementAndGet() == 1) {
        throw new IllegalStateException("boom");
      }
    }, executor);

    assertThatThrownBy(schedule::pollNow).hasMessage("boom");
    schedule.pollNow();

    assertThat(polls).hasValue(2);
  }

  @Test
  void aNonPositiveIntervalIsRefusedNamingTheTable() {
    assertThatThrownBy(() -> new TablePollSchedule("orders", Duration.ZERO, T0, () -> { }, executor))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("orders");
  }

  private static void awaitReleased(CountDownLatch latch) {
    try {
      assertThat(latch.await(WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
