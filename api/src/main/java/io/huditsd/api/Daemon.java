package io.huditsd.api;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.dropwizard.lifecycle.Managed;
import io.huditsd.api.metrics.PollMetrics;
import io.huditsd.api.metrics.RunMetrics;
import io.huditsd.api.metrics.TableMetricsCollector;
import io.huditsd.config.HeartbeatSettings;
import io.huditsd.config.ServicedTables;
import io.huditsd.config.TableSpec;
import io.huditsd.config.TsdConfiguration;
import io.huditsd.executors.HudiTables;
import io.huditsd.executors.PlanRunner;
import io.huditsd.executors.RunListener;
import io.huditsd.executors.WorkerPool;
import io.huditsd.scheduler.DiscoveryService;
import io.huditsd.scheduler.DuePlanner;
import io.huditsd.scheduler.PollingService;
import io.huditsd.scheduler.TableDiscovery;
import io.huditsd.scheduler.TablePoller;
import io.huditsd.scheduler.TableRegistry;
import io.huditsd.scheduler.TableState;
import io.prometheus.client.CollectorRegistry;
import org.apache.hadoop.conf.Configuration;

import java.time.Duration;
import java.util.List;

/** The long-running daemon: registry, discovery, polling and the worker pool, started and stopped together. */
public final class Daemon implements Managed {
  private final TsdConfiguration configuration;
  private final TableRegistry registry = new TableRegistry();
  private final RunHistory history;
  private final ServiceOutcomes outcomes = new ServiceOutcomes();
  private final Configuration hadoopConfiguration;
  private final HudiTables tables;
  private final WorkerPool pool;
  private final DuePlanner planner;
  private final PollingService polling;
  private final DiscoveryService discovery;
  private final ServicedTables servicedTables;
  private volatile boolean started;

  public Daemon(TsdConfiguration configuration, CollectorRegistry metrics, ObjectMapper mapper) {
    this.configuration = configuration;
    this.history = new RunHistory(configuration.getHistory().size(),
        configuration.getHistory().file().map(java.nio.file.Path::of), mapper);
    this.hadoopConfiguration = HudiTables.defaultHadoopConfiguration();
    this.tables = new HudiTables(hadoopConfiguration, HeartbeatSettings.of(configuration.getWorkers()));
    RunListener listeners = RunListener.all(List.of(history, outcomes, new RunMetrics(metrics)));
    this.pool = new WorkerPool(configuration.getWorkers().count(), configuration.getWorkers().maxAttempts(),
        Duration.ofMillis(configuration.getWorkers().retryBackoff().toMilliseconds()),
        PlanRunner.withDefaultActions(tables), listeners,
        tableId -> registry.get(tableId).map(TableState::isPaused).orElse(false));
    this.planner = new DuePlanner(tables, pool);
    TablePoller poller = new TablePoller(tables, hadoopConfiguration, planner,
        Duration.ofMillis(configuration.getPolling().maxBackoff().toMilliseconds()), new PollMetrics(metrics));
    this.polling = new PollingService(poller, registry, configuration.getPolling().threads());
    this.servicedTables = new ServicedTables(configuration);
    this.discovery = new DiscoveryService(
        new TableDiscovery(hadoopConfiguration, configuration.getDiscovery().maxDepth()),
        configuration.getDiscovery().roots(), servicedTables, registry,
        Duration.ofMillis(configuration.getDiscovery().interval().toMilliseconds()));
    registry.addListener(polling);
    new TableMetricsCollector(registry, pool, outcomes).register(metrics);
  }

  @Override
  public void start() throws Exception {
    polling.start();
    for (TableSpec spec : configuration.getTables()) {
      registry.add(servicedTables.explicit(spec));
    }
    discovery.start();
    started = true;
  }

  /** Ready once every configured table is registered and polling runs. */
  public boolean isReady() {
    return started && polling.isRunning();
  }

  /** Live while every worker thread and the poll scheduler are alive. */
  public boolean isLive() {
    return pool.aliveWorkers() == pool.workerCount() && (!started || polling.isRunning());
  }

  @Override
  public void stop() throws Exception {
    discovery.close();
    polling.close();
    pool.shutdown(Duration.ofSeconds(60));
  }

  public TableRegistry registry() {
    return registry;
  }

  public WorkerPool pool() {
    return pool;
  }

  public RunHistory history() {
    return history;
  }

  public ServiceOutcomes outcomes() {
    return outcomes;
  }

  public Configuration hadoopConfiguration() {
    return hadoopConfiguration;
  }

  public DuePlanner planner() {
    return planner;
  }

  public HudiTables tables() {
    return tables;
  }
}
