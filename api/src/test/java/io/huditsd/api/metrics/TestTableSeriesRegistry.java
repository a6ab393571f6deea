package io.huditsd.api.metrics;

import io.huditsd.config.ServicedTable;
import io.huditsd.config.ServicedTables;
import io.huditsd.config.TsdConfiguration;
import io.huditsd.executors.clustering.BinaryCopyMetrics;
import io.huditsd.lock.LockMetrics;
import io.huditsd.scheduler.CommitCallbackMetrics;
import io.huditsd.scheduler.DiscoveryMetrics;
import io.huditsd.scheduler.IngestionMetrics;
import io.huditsd.scheduler.TablePoller;
import io.huditsd.scheduler.TableRegistry;
import io.prometheus.metrics.core.metrics.StatefulMetric;
import io.prometheus.metrics.model.registry.Collector;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class TestTableSeriesRegistry {
  // The lock and ingestion families are process-wide: ids of their own keep tests apart.
  private final String run = UUID.randomUUID().toString().substring(0, 8);

  /** Every family the daemon registers (TsdApplication.run and the Daemon's constructor), and their producers. */
  private record DaemonFamilies(TableSeriesRegistry registry, PollMetrics polls, CommitCallbackMetrics callbacks) {
    static DaemonFamilies register() {
      TableSeriesRegistry registry = new TableSeriesRegistry();
      LockMetrics.register(registry);
      BinaryCopyMetrics.register(registry);
      IngestionMetrics.register(registry);
      new RunMetrics(registry);
      new DiscoveryMetrics(registry);
      return new DaemonFamilies(registry, new PollMetrics(registry), new CommitCallbackMetrics(registry));
    }
  }

  private static List<String> familyNames(TableSeriesRegistry registry) {
    return registry.tableFamilies().stream().map(Collector::getPrometheusName).toList();
  }

  private static void sample(StatefulMetric<?, ?> family, String table) {
    List<String> values = new ArrayList<>(Collections.nCopies(family.getLabelNames().size(), "x"));
    values.set(0, table);
    family.initLabelValues(values.toArray(String[]::new));
  }

  @Test
  void everyFamilyLabelledByTableLosesTheSeriesOfARemovedTableAndKeepsTheOthers() {
    TableSeriesRegistry registry = DaemonFamilies.register().registry();
    String gone = "gone-" + run;
    String kept = "kept-" + run;
    // The families known today are all found by registration alone; a new one is covered the same way.
    assertThat(familyNames(registry)).containsExactlyInAnyOrder("tsd_lock_wait_seconds", "tsd_lock_held_seconds",
        "tsd_lock_failures", "tsd_writer_failures", "tsd_clustering_file_groups_skipped_hot", "tsd_runs",
        "tsd_poll_failures", "tsd_commit_callbacks", "tsd_commit_callback_polls");
    for (StatefulMetric<?, ?> family : registry.tableFamilies()) {
      sample(family, gone);
      sample(family, kept);
    }

    registry.removeTable(gone);

    for (MetricSnapshot snapshot : registry.scrape()) {
      if (familyNames(registry).contains(snapshot.getMetadata().getPrometheusName())) {
        // The table label is the first one of each family (what removal relies on): the kept table's sample shows
        // its id under table, not under another label.
        assertThat(snapshot.getDataPoints()).as(snapshot.getMetadata().getPrometheusName())
            .extracting(point -> point.getLabels().get("table"))
            .contains(kept).doesNotContain(gone);
      }
    }
    assertThat(Scrape.text(registry)).doesNotContain(gone).contains("table=\"" + kept + "\"");
  }

  @Test
  void tablesLeavingTheRegistryTakeTheirSeriesFromTheScrape() {
    DaemonFamilies families = DaemonFamilies.register();
    TableRegistry tables = new TableRegistry();
    families.registry().follow(tables);
    ServicedTables serviced = new ServicedTables(new TsdConfiguration());
    List<String> ids = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      ServicedTable table = serviced.discovered("/lake-" + run + "/table" + i);
      tables.add(table);
      ids.add(table.id());
      families.polls().polled(table.id(), TablePoller.Result.FAILED, Duration.ofMillis(5));
      families.callbacks().received(table.id(), CommitCallbackMetrics.Result.ACCEPTED);
      IngestionMetrics.writerFailures(table.id());
    }
    families.callbacks().received("", CommitCallbackMetrics.Result.UNKNOWN_TABLE);

    tables.remove(ids.get(0), "test");
    tables.remove(ids.get(2), "test");

    String scrape = Scrape.text(families.registry());
    assertThat(scrape).doesNotContain(ids.get(0)).doesNotContain(ids.get(2))
        .contains("tsd_commit_callbacks_total{result=\"accepted\",table=\"" + ids.get(1) + "\"}")
        .contains("tsd_commit_callbacks_total{result=\"accepted\",table=\"" + ids.get(3) + "\"}")
        .contains("tsd_writer_failures_total{table=\"" + ids.get(3) + "\"}")
        .contains("tsd_poll_failures_total{table=\"" + ids.get(1) + "\"} 1.0")
        // Requests that named no serviced table are no table's.
        .contains("tsd_commit_callbacks_total{result=\"unknown_table\",table=\"\"}");

    // A poll that was under way when its table was removed ends after the removal.
    families.polls().polled(ids.get(0), TablePoller.Result.FAILED, Duration.ofMillis(5));

    assertThat(Scrape.text(families.registry())).doesNotContain(ids.get(0))
        .contains("tsd_poll_failures_total{table=\"" + ids.get(1) + "\"} 1.0");
  }

  @Test
  void refusesAFamilyLabelledByTableWhoseSeriesItCannotRemove() {
    Collector frozen = new Collector() {
      @Override
      public MetricSnapshot collect() {
        return null;
      }

      @Override
      public String getPrometheusName() {
        return "tsd_frozen";
      }

      @Override
      public Set<String> getLabelNames() {
        return Set.of("table");
      }
    };

    assertThatThrownBy(() -> new TableSeriesRegistry().register(frozen))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("tsd_frozen has a table label but keeps its series outside the Prometheus client's metrics, so "
            + "a table that stops being serviced would keep them: make it a Counter, Gauge or Histogram, or a "
            + "MultiCollector that reads the registered tables at scrape time");
  }
}
