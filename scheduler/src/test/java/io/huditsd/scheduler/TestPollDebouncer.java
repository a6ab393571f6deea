package io.huditsd.scheduler;

import io.huditsd.scheduler.PollDebouncer.Decision;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The debounce policy, with a timer the test fires by hand: no sleeps, every window's end chosen by the test. */
class TestPollDebouncer {
  private static final Duration WINDOW = Duration.ofSeconds(2);

  /** Windows waiting to close, in the order they opened. */
  private final Deque<Runnable> windows = new ArrayDeque<>();
  private final List<Duration> delays = new ArrayList<>();
  private final List<String> polls = new ArrayList<>();
  private final PollDebouncer debouncer = new PollDebouncer(WINDOW, polls::add, (task, delay) -> {
    delays.add(delay);
    windows.add(task);
  });

  @Test
  void theFirstRequestPollsAtOnceAndABurstInItsWindowGivesOneMorePollAtItsEnd() {
    assertThat(debouncer.request("t")).isEqualTo(Decision.NOW);
    assertThat(polls).containsExactly("t");
    for (int i = 0; i < 100; i++) {
      assertThat(debouncer.request("t")).isEqualTo(Decision.COALESCED);
    }
    assertThat(polls).containsExactly("t");
    closeWindow();
    // The burst's last request is answered by a poll after it, and that poll opens the next window.
    assertThat(polls).containsExactly("t", "t");
    assertThat(debouncer.request("t")).isEqualTo(Decision.COALESCED);
    closeWindow();
    assertThat(polls).containsExactly("t", "t", "t");
    closeWindow();
    // A window without requests closes without a poll; the next request polls at once again.
    assertThat(polls).hasSize(3);
    assertThat(windows).isEmpty();
    assertThat(debouncer.openWindows()).isZero();
    assertThat(debouncer.request("t")).isEqualTo(Decision.NOW);
    assertThat(polls).hasSize(4);
    assertThat(delays).containsOnly(WINDOW);
  }

  @Test
  void tablesHaveWindowsOfTheirOwn() {
    assertThat(debouncer.request("a")).isEqualTo(Decision.NOW);
    assertThat(debouncer.request("b")).isEqualTo(Decision.NOW);
    assertThat(debouncer.request("a")).isEqualTo(Decision.COALESCED);
    assertThat(debouncer.openWindows()).isEqualTo(2);
    closeWindow();
    closeWindow();
    assertThat(polls).containsExactly("a", "b", "a");
  }

  @Test
  void aFloodGivesOnePollPerWindowPlusTheFirst() {
    int windowsOfFlood = 5;
    debouncer.request("t");
    for (int window = 0; window < windowsOfFlood; window++) {
      for (int i = 0; i < 20; i++) {
        debouncer.request("t");
      }
      closeWindow();
    }
    closeWindow();
    assertThat(polls).hasSize(windowsOfFlood + 1);
    assertThat(windows).isEmpty();
  }

  @Test
  void noWindowPollsOnEveryRequest() {
    PollDebouncer immediate = new PollDebouncer(Duration.ZERO, polls::add, (task, delay) -> {
      throw new AssertionError("no timer without a window");
    });
    assertThat(immediate.request("t")).isEqualTo(Decision.NOW);
    assertThat(immediate.request("t")).isEqualTo(Decision.NOW);
    assertThat(polls).hasSize(2);
  }

  @Test
  void aFailingPollOrAStoppedTimerLeavesNoWindowOpen() {
    PollDebouncer failing = new PollDebouncer(WINDOW, tableId -> {
      throw new IllegalStateException("table removed");
    }, (task, delay) -> {
      throw new IllegalStateException("timer shut down");
    });
    assertThat(failing.request("t")).isEqualTo(Decision.NOW);
    assertThat(failing.openWindows()).isZero();
    assertThat(failing.request("t")).isEqualTo(Decision.NOW);
    assertThatThrownBy(() -> new PollDebouncer(Duration.ofSeconds(-1), polls::add, (task, delay) -> {
    })).hasMessageContaining("window must not be negative");
  }

  private void closeWindow() {
    windows.removeFirst().run();
  }
}
