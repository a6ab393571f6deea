package io.huditsd.scheduler;

import java.time.Duration;

/** Told about every poll; must not block. */
@FunctionalInterface
public interface PollObserver {
  void polled(String tableId, TablePoller.Result result, Duration duration);

  PollObserver NONE = (tableId, result, duration) -> {
  };
}
