package io.huditsd.scheduler;

import java.time.Duration;
import java.util.List;
import java.util.Objects;

/** Told about every poll; must not block. */
@FunctionalInterface
public interface PollObserver {
  void polled(String tableId, TablePoller.Result result, Duration duration);

  /** A poll of {@code tableId} scheduled these plans; called before {@link #polled} of the same poll. */
  default void scheduled(String tableId, List<String> instants) {
  }

  PollObserver NONE = (tableId, result, duration) -> {
  };

  /** Tells each of {@code observers}, in order. */
  static PollObserver all(List<PollObserver> observers) {
    List<PollObserver> copy = List.copyOf(observers);
    return new PollObserver() {
      @Override
      public void polled(String tableId, TablePoller.Result result, Duration duration) {
        copy.forEach(observer -> observer.polled(tableId, result, duration));
      }

      @Override
      public void scheduled(String tableId, List<String> instants) {
        Objects.requireNonNull(instants, "instants is null");
        copy.forEach(observer -> observer.scheduled(tableId, instants));
      }
    };
  }
}
