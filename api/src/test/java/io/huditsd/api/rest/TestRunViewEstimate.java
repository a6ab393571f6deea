package io.huditsd.api.rest;

import io.huditsd.api.ServiceOutcomes;
import io.huditsd.config.MetadataIndexes;
import io.huditsd.config.ServiceType;
import io.huditsd.config.ServicedTable;
import io.huditsd.executors.ActionResult;
import io.huditsd.executors.HeapEstimate;
import io.huditsd.executors.Placement;
import io.huditsd.executors.RunRecord;
import io.huditsd.executors.WorkItem;
import io.huditsd.executors.WorkerPool;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/** What /runs and the table's services show of a plan the memory budget refused. */
class TestRunViewEstimate {
  @Test
  void aRefusedPlanShowsItsEstimateAndWhy() throws Exception {
    ServiceOutcomes outcomes = new ServiceOutcomes();
    WorkerPool pool = new WorkerPool(1, 0, 1L << 30, 1, Duration.ZERO,
        item -> new ActionResult(item.service(), item.instant(), 0, 0, 0, Duration.ZERO), outcomes,
        tableId -> false);
    try {
      ServicedTable table = new ServicedTable("orders", "file:/data/orders", Set.of(ServiceType.values()),
          Duration.ofSeconds(30), Map.of(), MetadataIndexes.none());
      RunRecord refused = pool.submit(new WorkItem(table, ServiceType.CLUSTERING, Optional.of("002"), 0, Set.of(),
          Instant.now(), Placement.inProcess(new HeapEstimate(3L << 30,
              "2 groups, largest 236.3 MiB x 13.0 decode factor + 16.0 MiB per run")))).orElseThrow();

      RunView view = RunView.of(refused);

      assertThat(view.status()).isEqualTo("failed");
      assertThat(view.startedAt()).isNull();
      assertThat(view.heapEstimateBytes()).isEqualTo(3L << 30);
      assertThat(view.heapEstimateBasis()).isEqualTo("2 groups, largest 236.3 MiB x 13.0 decode factor + 16.0 MiB per run");
      assertThat(view.error()).isEqualTo("Not starting clustering plan 002 of table orders in the daemon: its heap"
          + " estimate 3.0 GiB (2 groups, largest 236.3 MiB x 13.0 decode factor + 16.0 MiB per run) is more than"
          + " workers.memoryBudget 1.0 GiB; a spark section in tsd.yml would run it on Spark (or raise -Xmx and"
          + " workers.memoryBudget)");
      // The table's view shows it as the service's last error.
      assertThat(outcomes.of("orders").get(ServiceType.CLUSTERING).lastError()).contains(view.error());
    } finally {
      pool.shutdown(Duration.ofSeconds(5));
    }
  }
}
