package io.huditsd.api.metrics;

import io.huditsd.config.MetadataIndexes;
import io.huditsd.config.ServiceType;
import io.huditsd.config.ServicedTable;
import io.huditsd.executors.ActionResult;
import io.huditsd.executors.HeapEstimate;
import io.huditsd.executors.Placement;
import io.huditsd.executors.WorkItem;
import io.huditsd.executors.WorkerPool;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** The budget gauges as a scrape reads them while a plan runs and after. */
class TestMemoryBudgetCollector {
  @Test
  void reportsTheBudgetAndWhatRunningPlansReserve() throws Exception {
    CountDownLatch started = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    WorkerPool pool = new WorkerPool(2, 0, 1_000, 1, Duration.ZERO, item -> {
      started.countDown();
      try {
        release.await(30, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      return new ActionResult(item.service(), item.instant(), 1, 1, 1, Duration.ZERO);
    }, run -> { }, tableId -> false);
    PrometheusRegistry registry = new PrometheusRegistry();
    registry.register(new MemoryBudgetCollector(pool));
    ServicedTable table = new ServicedTable("orders", "file:/data/orders", Set.of(ServiceType.values()),
        Duration.ofSeconds(30), Map.of(), MetadataIndexes.none());
    try {
      pool.submit(new WorkItem(table, ServiceType.COMPACTION, Optional.of("001"), 0, Set.of(), Instant.now(),
          Placement.inProcess(new HeapEstimate(600, "1 operation"))));
      assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();

      assertThat(Scrape.samples(registry)).containsEntry("tsd_worker_memory_budget_bytes", 1_000.0)
          .containsEntry("tsd_worker_memory_reserved_bytes", 600.0);
      release.countDown();
      assertThat(pool.awaitIdle(Duration.ofSeconds(10))).isTrue();
      assertThat(Scrape.samples(registry)).containsEntry("tsd_worker_memory_reserved_bytes", 0.0);
    } finally {
      release.countDown();
      pool.shutdown(Duration.ofSeconds(5));
    }
  }
}
