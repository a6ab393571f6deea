package io.huditsd.api.console;

import io.huditsd.scheduler.PollObserver;
import io.huditsd.scheduler.TablePoller;
import io.huditsd.scheduler.TableRegistry;
import io.huditsd.scheduler.TableState;
import io.huditsd.scheduler.view.TableBacklog;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

import static java.util.Objects.requireNonNull;

/**
 * A bounded in-memory time series of each table's backlog, one sample per changed poll (a poll whose backlog figures
 * were computed anew), so that the console can chart the last hours without a metrics store. The only owner of the
 * samples: each table's samples live in one {@link Samples}, appended to and copied under its own lock; a removed
 * table's samples go with it. Memory is bounded by {@code capacity} samples per table.
 */
public final class BacklogSeries implements PollObserver, TableRegistry.Listener {
  /** Samples kept per table by default: 12 hours of a 1-minute poll. */
  public static final int DEFAULT_CAPACITY = 720;

  /**
   * One sample.
   *
   * @param at when the backlog figures were computed
   * @param pendingPlans pending plans of every service
   */
  public record Sample(Instant at, long logFileUnscheduledBytes, long logFileScheduledBytes, int pendingPlans) {
    static Sample of(TableBacklog backlog) {
      return new Sample(backlog.computedAt(), backlog.logFileUnscheduledBytes(), backlog.logFileScheduledBytes(),
          backlog.pendingPlans().values().stream().mapToInt(Integer::intValue).sum());
    }
  }

  private final TableRegistry registry;
  private final int capacity;
  private final Map<String, Samples> byTable = new ConcurrentHashMap<>();

  public BacklogSeries(TableRegistry registry, int capacity) {
    this.registry = requireNonNull(registry, "registry is null");
    if (capacity < 1) {
      throw new IllegalArgumentException("capacity must be at least 1, was " + capacity);
    }
    this.capacity = capacity;
  }

  @Override
  public void polled(String tableId, TablePoller.Result result, Duration duration) {
    if (result == TablePoller.Result.NOT_OWNED || result == TablePoller.Result.IN_BACKOFF) {
      return;
    }
    registry.get(tableId).flatMap(state -> state.snapshot().backlog())
        .ifPresent(backlog -> record(tableId, backlog));
  }

  /** Appends the figures unless they are the ones last recorded (an unchanged poll keeps the last figures). */
  void record(String tableId, TableBacklog backlog) {
    byTable.computeIfAbsent(tableId, id -> new Samples(capacity)).add(Sample.of(backlog));
  }

  /** The table's samples, oldest first; empty for a table never polled with a change, or unknown. */
  public List<Sample> of(String tableId) {
    return Optional.ofNullable(byTable.get(tableId)).map(Samples::copy).orElse(List.of());
  }

  public int capacity() {
    return capacity;
  }

  @Override
  public void added(TableState state) {
  }

  @Override
  public void removed(TableState state) {
    byTable.remove(state.table().id());
  }

  /** One table's ring of samples. */
  private static final class Samples {
    private final int capacity;
    private final ArrayDeque<Sample> samples = new ArrayDeque<>();

    Samples(int capacity) {
      this.capacity = capacity;
    }

    synchronized void add(Sample sample) {
      Sample last = samples.peekLast();
      if (last != null && !sample.at().isAfter(last.at())) {
        return;
      }
      if (samples.size() == capacity) {
        samples.removeFirst();
      }
      samples.addLast(sample);
    }

    synchronized List<Sample> copy() {
      return List.copyOf(samples);
    }
  }
}
