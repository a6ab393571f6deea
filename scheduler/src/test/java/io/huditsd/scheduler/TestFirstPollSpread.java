package io.huditsd.scheduler;

import io.huditsd.config.MetadataIndexes;
import io.huditsd.config.ServiceType;
import io.huditsd.config.ServicedTable;
import io.huditsd.executors.HudiTables;
import io.huditsd.executors.LocalTables;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.IntSummaryStatistics;
import java.util.Map;
import java.util.Set;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Where the first polls of many tables registered at once fall in the interval. The scheduler is never started, so
 * nothing polls: the test reads each table's first fire time from the schedule.
 */
class TestFirstPollSpread {
  private static final Instant NOW = Instant.parse("2030-01-01T00:00:00Z");
  private static final Duration INTERVAL = Duration.ofSeconds(30);

  private final HoldingPool holdingPool = new HoldingPool();
  private final HudiTables hudiTables = new LocalTables().hudiTables();
  private final TableRegistry registry = new TableRegistry();
  private final PollingService polling = new PollingService(
      new TablePoller(hudiTables, HudiTables.defaultHadoopConfiguration(),
          new DuePlanner(hudiTables, holdingPool.pool()), Duration.ofSeconds(1), TablePoller.Backlog.READ, PollObserver.NONE, tableId -> true,
          Clock.fixed(NOW, ZoneOffset.UTC)),
      registry, 1, new FirstPolls(Clock.fixed(NOW, ZoneOffset.UTC)));

  @AfterEach
  void stop() throws InterruptedException {
    polling.close();
    holdingPool.close();
  }

  /** First polls per second of the interval, for {@code tables} tables registered at once. */
  private int[] firstPollsPerSecond(int tables) {
    registry.addListener(polling);
    for (int i = 0; i < tables; i++) {
      registry.add(new ServicedTable("t" + i, "file:/nonexistent/t" + i, Set.of(ServiceType.values()), INTERVAL,
          Map.of(), MetadataIndexes.none()));
    }
    int[] perSecond = new int[(int) INTERVAL.toSeconds()];
    for (int i = 0; i < tables; i++) {
      Duration offset = Duration.between(NOW, polling.nextPoll("t" + i).orElseThrow());
      assertThat(offset).isBetween(Duration.ZERO, INTERVAL.minusMillis(1));
      perSecond[(int) offset.toSeconds()]++;
    }
    return perSecond;
  }

  @Test
  void aThousandTablesPollAtASteadyRateOverTheWholeInterval() {
    IntSummaryStatistics perSecond = IntStream.of(firstPollsPerSecond(1000)).summaryStatistics();

    // 1,000 tables over 30 s is 33.3 a second; uniform random offsets would give some seconds 45 and others 20.
    assertThat(perSecond.getMin()).isGreaterThanOrEqualTo(32);
    assertThat(perSecond.getMax()).isLessThanOrEqualTo(35);
  }

  @Test
  void aFewTablesDoNotBunchUp() {
    int[] perSecond = firstPollsPerSecond(10);

    // Ten tables, ten different three-second stretches of the interval.
    for (int start = 0; start < perSecond.length; start += 3) {
      assertThat(perSecond[start] + perSecond[start + 1] + perSecond[start + 2]).as("seconds %d-%d", start, start + 2)
          .isLessThanOrEqualTo(2);
    }
    assertThat(IntStream.of(perSecond).sum()).isEqualTo(10);
  }
}
