package io.huditsd.api.console;

import io.huditsd.config.MetadataIndexes;
import io.huditsd.config.ServiceType;
import io.huditsd.config.ServicedTable;
import io.huditsd.scheduler.TableRegistry;
import io.huditsd.scheduler.view.TableBacklog;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The console's per-table backlog series: one sample per changed poll, bounded, gone with its table. */
class TestBacklogSeries {
  private static final Instant T0 = Instant.parse("2026-12-01T10:00:00Z");

  @Test
  void keepsOneSamplePerComputedBacklogAndTheNewestUpToItsCapacity() {
    BacklogSeries series = new BacklogSeries(new TableRegistry(), 3);

    series.record("t", backlog(0, 100, 1));
    series.record("t", backlog(0, 100, 1));
    assertThat(series.of("t")).as("an unchanged poll republishes the same figures").hasSize(1);

    for (int second = 1; second <= 4; second++) {
      series.record("t", backlog(second, 100 + second, second % 2));
    }
    assertThat(series.of("t")).extracting(BacklogSeries.Sample::logFileUnscheduledBytes).containsExactly(102L, 103L,
        104L);
    assertThat(series.of("t").get(0)).isEqualTo(new BacklogSeries.Sample(T0.plusSeconds(2), 102, 7, 2));
    assertThat(series.of("other")).isEmpty();
  }

  @Test
  void aRemovedTablesSamplesGoWithIt() {
    TableRegistry registry = new TableRegistry();
    BacklogSeries series = new BacklogSeries(registry, 10);
    registry.addListener(series);
    registry.add(new ServicedTable("t", "file:/data/t", Set.of(ServiceType.COMPACTION), Duration.ofSeconds(30),
        Map.of(), MetadataIndexes.none()));
    series.record("t", backlog(0, 1, 0));

    registry.remove("t", "test");

    assertThat(series.of("t")).isEmpty();
  }

  @Test
  void aCapacityBelowOneIsRefused() {
    assertThatThrownBy(() -> new BacklogSeries(new TableRegistry(), 0)).hasMessageContaining("capacity");
  }

  /** {@code plans} pending compactions plus two pending cleans. */
  private static TableBacklog backlog(int second, long unscheduled, int plans) {
    return new TableBacklog(T0.plusSeconds(second), 1, 1, 7, unscheduled, 0,
        Map.of(ServiceType.COMPACTION, plans, ServiceType.CLEAN, 2), Optional.empty(), 0, List.of(),
        Optional.empty(), Optional.empty(), Optional.empty());
  }
}
