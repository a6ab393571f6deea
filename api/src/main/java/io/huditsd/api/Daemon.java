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
import io.huditsd.ha.TableOwnership;
import io.huditsd.ha.ZookeeperOwnership;
import io.huditsd.config.HaConfig;
import io.huditsd.lock.ZookeeperClients;
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

/**
 * The long-running daemon: registry, discovery, polling, the worker pool and table ownership, started and stopped
 * together. Every replica registers every table (so any replica's API lists them with their owner); only the owner
 * polls a table and hands out its work.
 */
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
  private final TableOwnership ownership;
  private volatile boolean started;

  public Daemon(TsdConfiguration configuration, CollectorRegistry metrics, ObjectMapper mapper) {
    this.configuration = configuration;
    this.history = new RunHistory(configuration.getHistory().size(),
        configuration.getHistory().file().map(java.nio.file.Path::of), mapper);
    this.hadoopConfiguration = HudiTables.defaultHadoopConfiguration();
    this.tables = new HudiTables(hadoopConfiguration, HeartbeatSettings.of(configuration.getWorkers()));
    RunListener listeners = RunListener.all(List.of(history, outcomes, new RunMetrics(metrics)));
    this.ownership = configuration.getHa().<TableOwnership>map(ha -> new ZookeeperOwnership(ha.zookeeper(),
            ha.basePath(), ha.replicaId(), Duration.ofMillis(ha.sessionTimeout().toMilliseconds()),
            tableId -> pool().isRunning(tableId)))
        .orElseGet(() -> TableOwnership.sole(HaConfig.defaultReplicaId()));
    this.pool = new WorkerPool(configuration.getWorkers().count(), configuration.getWorkers().maxAttempts(),
        Duration.ofMillis(configuration.getWorkers().retryBackoff().toMilliseconds()),
        PlanRunner.withDefaultActions(tables), listeners,
        tableId -> !ownership.owns(tableId) || registry.get(tableId).map(TableState::isPaused).orElse(false));
    this.planner = new DuePlanner(tables, pool);
    TablePoller poller = new TablePoller(tables, hadoopConfiguration, planner,
        Duration.ofMillis(configuration.getPolling().maxBackoff().toMilliseconds()), new PollMetrics(metrics),
        ownership::owns);
    this.polling = new PollingService(poller, registry, configuration.getPolling().threads());
    this.servicedTables = new ServicedTables(configuration);
    this.discovery = new DiscoveryService(
        new TableDiscovery(hadoopConfiguration, configuration.getDiscovery().maxDepth()),
        configuration.getDiscovery().roots(), servicedTables, registry,
        Duration.ofMillis(configuration.getDiscovery().interval().toMilliseconds()));
    registry.addListener(polling);
    registry.addListener(new TableRegistry.Listener() {
      @Override
      public void added(TableState state) {
        ownership.track(state.table().id());
      }

      @Override
      public void removed(TableState state) {
        ownership.untrack(state.table().id());
      }
    });
    ownership.addListener(new TableOwnership.Listener() {
      @Override
      public void gained(String tableId) {
        registry.get(tableId).ifPresent(state -> {
          state.replanOnNextPoll();
          try {
            polling.pollNow(tableId);
          } catch (IllegalStateException e) {
            // Not scheduled yet; its first poll comes on its own.
          }
        });
        pool.wake();
      }

      @Override
      public void lost(String tableId) {
        // The new owner enqueues the table's plans itself; running ones finish here (their commits are fenced).
        pool.cancelQueued(tableId);
      }
    });
    new TableMetricsCollector(registry, pool, outcomes, ownership).register(metrics);
  }

  @Override
  public void start() throws Exception {
    ownership.start();
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
    // After the pool, so that the runs it finished while stopping reach the file.
    history.close();
    // After the pool: tables are handed over only once their running work is done.
    ownership.close();
    ZookeeperClients.closeAll();
  }

  public TableOwnership ownership() {
    return ownership;
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
