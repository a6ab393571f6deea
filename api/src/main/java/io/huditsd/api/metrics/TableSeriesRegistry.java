package io.huditsd.api.metrics;

import io.huditsd.scheduler.TableRegistry;
import io.huditsd.scheduler.TableState;
import io.prometheus.metrics.core.metrics.StatefulMetric;
import io.prometheus.metrics.model.registry.Collector;
import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.registry.PrometheusScrapeRequest;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;

import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Predicate;

/**
 * The daemon's metric registry, which also knows every registered family labelled by {@code table}, so that a table
 * that stops being serviced takes its series with it from all of them ({@link #removeTable}). Without this, every
 * table ever serviced kept its series for the life of the process: after a churn of discovered tables, 500 table
 * values and 5,000 lock-wait histogram series for 100 live tables.
 *
 * <p>Each scrape also drops the series of tables no longer serviced that a late event made (see {@link #follow}).
 *
 * <p>A family is covered by being registered here, so a new one cannot be left out of a list. Such a family keeps
 * its series in the client (a {@link StatefulMetric}: counter, gauge, histogram), with {@code table} as its first
 * label; a {@link MultiCollector} that reads the registered tables at scrape time (as {@link TableMetricsCollector}
 * does) needs nothing, since a removed table is no longer there to read.
 */
public final class TableSeriesRegistry extends PrometheusRegistry {
  static final String TABLE_LABEL = "table";

  private final List<StatefulMetric<?, ?>> tableFamilies = new CopyOnWriteArrayList<>();
  private volatile Predicate<String> serviced = tableId -> true;

  /**
   * Registers {@code collector}; a family labelled by table is refused unless its series can be removed.
   *
   * @throws IllegalArgumentException for a collector with a {@code table} label that is not a {@link StatefulMetric}
   */
  @Override
  public void register(Collector collector) {
    Objects.requireNonNull(collector, "collector is null");
    Set<String> labelNames = collector.getLabelNames();
    boolean tableLabelled = labelNames != null && labelNames.contains(TABLE_LABEL);
    if (tableLabelled && !(collector instanceof StatefulMetric<?, ?>)) {
      throw new IllegalArgumentException(collector.getPrometheusName() + " has a table label but keeps its series "
          + "outside the Prometheus client's metrics, so a table that stops being serviced would keep them: make it "
          + "a Counter, Gauge or Histogram, or a MultiCollector that reads the registered tables at scrape time");
    }
    super.register(collector);
    if (tableLabelled) {
      tableFamilies.add((StatefulMetric<?, ?>) collector);
    }
  }

  /** Removes every series of {@code tableId} from every family labelled by table. */
  public void removeTable(String tableId) {
    Objects.requireNonNull(tableId, "tableId is null");
    for (StatefulMetric<?, ?> family : tableFamilies) {
      // The table label comes first in every such family (see the class comment).
      family.removeIf(labelValues -> labelValues.get(0).equals(tableId));
    }
  }

  /** The registered families labelled by table. */
  List<StatefulMetric<?, ?>> tableFamilies() {
    return List.copyOf(tableFamilies);
  }

  /**
   * Keeps the table-labelled series to the tables {@code tables} services: a table's series go when it is removed,
   * and series a late event made for a removed table (a poll or a run that was under way when it was removed) go at
   * the next scrape. The {@code table=""} series of requests that named no serviced table are kept.
   */
  public void follow(TableRegistry tables) {
    Objects.requireNonNull(tables, "tables is null");
    serviced = tableId -> tableId.isEmpty() || tables.get(tableId).isPresent();
    tables.addListener(new TableRegistry.Listener() {
      @Override
      public void added(TableState state) {
      }

      @Override
      public void removed(TableState state) {
        removeTable(state.table().id());
      }
    });
  }

  @Override
  public MetricSnapshots scrape(PrometheusScrapeRequest scrapeRequest) {
    removeUnservicedTables();
    return super.scrape(scrapeRequest);
  }

  @Override
  public MetricSnapshots scrape(Predicate<String> includedNames, PrometheusScrapeRequest scrapeRequest) {
    removeUnservicedTables();
    return super.scrape(includedNames, scrapeRequest);
  }

  private void removeUnservicedTables() {
    Predicate<String> isServiced = serviced;
    for (StatefulMetric<?, ?> family : tableFamilies) {
      family.removeIf(labelValues -> !isServiced.test(labelValues.get(0)));
    }
  }
}
