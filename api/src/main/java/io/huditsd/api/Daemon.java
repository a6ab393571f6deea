package io.huditsd.api;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.dropwizard.lifecycle.Managed;
import io.huditsd.api.console.BacklogSeries;
import io.huditsd.api.metrics.MemoryBudgetCollector;
import io.huditsd.api.metrics.PollMetrics;
import io.huditsd.api.metrics.RunMetrics;
import io.huditsd.api.metrics.StorageRequestsCollector;
import io.huditsd.api.metrics.TableMetricsCollector;
import io.huditsd.api.metrics.TableSeriesRegistry;
import io.huditsd.config.EngineKind;
import io.huditsd.config.HaConfig;
import io.huditsd.config.HeartbeatSettings;
import io.huditsd.config.ServicedTables;
import io.huditsd.config.TableSpec;
import io.huditsd.config.TsdConfiguration;
import io.huditsd.config.WorkerConfig;
import io.huditsd.executors.ExecutionPlacement;
import io.huditsd.executors.HeapEstimator;
import io.huditsd.executors.HudiTables;
import io.huditsd.executors.JavaEngine;
import io.huditsd.executors.PlanEngine;
import io.huditsd.executors.PlanRunner;
import io.huditsd.executors.RunListener;
import io.huditsd.executors.RunRecord;
import io.huditsd.executors.ServiceAction;
import io.huditsd.executors.WorkerPool;
import io.huditsd.executors.spark.SparkApplications;
import io.huditsd.executors.spark.SparkEngine;
import io.huditsd.executors.spark.SparkSettings;
import io.huditsd.ha.TableOwnership;
import io.huditsd.ha.ZookeeperOwnership;
import io.huditsd.lock.LockTurns;
import io.huditsd.lock.ZookeeperClients;
import io.huditsd.scheduler.CommitCallbackMetrics;
import io.huditsd.scheduler.CommitCallbacks;
import io.huditsd.scheduler.DiscoveryMetrics;
import io.huditsd.scheduler.DiscoveryService;
import io.huditsd.scheduler.DuePlanner;
import io.huditsd.scheduler.PollDebouncer;
import io.huditsd.scheduler.PollObserver;
import io.huditsd.scheduler.PollingService;
import io.huditsd.scheduler.TableDiscovery;
import io.huditsd.scheduler.TablePoller;
import io.huditsd.scheduler.TableRegistry;
import io.huditsd.scheduler.TableState;
import org.apache.hadoop.conf.Configuration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.Predicate;

/**
 * The long-running daemon: registry, discovery, polling, the worker pool and table ownership, started and stopped
 * together. Every replica registers every table (so any replica's API lists them with their owner); only the owner
 * polls a table and hands out its work.
 */
public final class Daemon implements Managed {
  private static final Logger LOG = LoggerFactory.getLogger(Daemon.class);
  private final TsdConfiguration configuration;
  private final TableRegistry registry = new TableRegistry();
  private final RunHistory history;
  private final ServiceOutcomes outcomes = new ServiceOutcomes(tableId -> registry.get(tableId).isPresent());
  private final Configuration hadoopConfiguration;
  private final HudiTables tables;
  private final WorkerPool pool;
  private final DuePlanner planner;
  private final PollingService polling;
  private final DiscoveryService discovery;
  private final ServicedTables servicedTables;
  private final TableOwnership ownership;
  private final SparkApplications sparkApplications = new SparkApplications();
  private final Optional<SparkEngine> spark;
  private final CommitCallbackMetrics callbackMetrics;
  private final Optional<CommitCallbacks> commitCallbacks;
  private final BacklogSeries backlogSeries;
  private final ScheduledExecutorService debounceTimer = Executors.newSingleThreadScheduledExecutor(runnable -> {
    Thread thread = new Thread(runnable, "tsd-callback-debounce");
    thread.setDaemon(true);
    return thread;
  });
  private final Duration shutdownGracePeriod;
  private final FileSystemsOutliveStop fileSystemsOutliveStop;
  // Start and stop exclude each other: a stop that comes during the start waits for it, and a start after a stop
  // does nothing. stopRequested is set before the lock is taken, so that a start under way stops early.
  private final Object lifecycle = new Object();
  private volatile boolean stopRequested;
  private boolean stopped;
  private volatile boolean started;

  /**
   * @param sparkSettings the {@code spark} section resolved at start ({@link SparkSettings#resolve}); empty without
   *     one: every plan runs in the daemon
   */
  public Daemon(TsdConfiguration configuration, Optional<SparkSettings> sparkSettings, TableSeriesRegistry metrics,
                ObjectMapper mapper) {
    this.configuration = Objects.requireNonNull(configuration, "configuration is null");
    this.shutdownGracePeriod = Duration.ofMillis(configuration.getWorkers().shutdownGracePeriod().toMilliseconds());
    // The stop's longest part is the grace period; the polls it waits for and the closes after it take seconds.
    this.fileSystemsOutliveStop = new FileSystemsOutliveStop(shutdownGracePeriod.plusSeconds(30));
    this.history = runHistory(configuration, mapper, sparkApplications);
    this.hadoopConfiguration = HudiTables.defaultHadoopConfiguration();
    this.tables = new HudiTables(hadoopConfiguration, HeartbeatSettings.of(configuration.getWorkers()));
    // The ownership first, the pool next (it holds back work of tables owned elsewhere); the ownership hears of the
    // pool's running work only in start, once both exist.
    this.ownership = ownership(configuration);
    List<ServiceAction> actions = PlanRunner.defaultActions();
    this.spark = sparkSettings.map(settings -> new SparkEngine(tables, actions, settings, sparkApplications));
    long memoryBudget = configuration.getWorkers().memoryBudgetBytes(Runtime.getRuntime().maxMemory());
    this.pool = workerPool(configuration, new PlanRunner(tables, actions, engines(tables, actions, spark)),
        spark.map(engine -> engine.settings().maxApplications()).orElse(0), memoryBudget,
        RunListener.all(List.of(history, outcomes, new RunMetrics(metrics))), heldBack(ownership, registry));
    this.planner = new DuePlanner(tables, pool,
        new ExecutionPlacement(new HeapEstimator(), spark.isPresent(), memoryBudget));
    this.callbackMetrics = new CommitCallbackMetrics(metrics);
    // The callbacks poll through the polling service, built next; they are called only once the daemon runs.
    this.commitCallbacks = configuration.getCommitCallbacks().map(callbacks -> new CommitCallbacks(ownership,
        this::pollNow, Duration.ofMillis(callbacks.debounce().toMilliseconds()),
        PollDebouncer.Timer.of(debounceTimer), callbackMetrics, Clock.systemUTC()));
    List<PollObserver> observers = new ArrayList<>();
    observers.add(new PollMetrics(metrics));
    commitCallbacks.ifPresent(observers::add);
    this.backlogSeries = new BacklogSeries(registry, BacklogSeries.DEFAULT_CAPACITY);
    observers.add(backlogSeries);
    this.polling = pollingService(configuration, tables, hadoopConfiguration, planner, ownership, registry,
        PollObserver.all(observers));
    this.servicedTables = new ServicedTables(configuration);
    this.discovery = discoveryService(configuration, hadoopConfiguration, servicedTables, registry,
        new DiscoveryMetrics(metrics));
    registry.addListener(polling);
    registry.addListener(backlogSeries);
    registry.addListener(new OwnershipTracking(ownership));
    registry.addListener(new ForgetRemoved(planner, tables, outcomes, commitCallbacks));
    metrics.follow(registry);
    ownership.addListener(new OwnershipFollower(registry, polling, pool));
    commitCallbacks.ifPresent(ownership::addListener);
    metrics.register(new TableMetricsCollector(registry, pool, outcomes, ownership));
    metrics.register(new MemoryBudgetCollector(pool));
    metrics.register(new StorageRequestsCollector(
        () -> registry.all().stream().map(state -> state.table().basePath()).toList(), hadoopConfiguration));
  }

  private static RunHistory runHistory(TsdConfiguration configuration, ObjectMapper mapper,
                                       SparkApplications sparkApplications) {
    return new RunHistory(configuration.getHistory().size(), configuration.getHistory().file().map(Path::of),
        mapper, sparkApplications);
  }

  /** Hudi's Java engine in this JVM, and Spark when the daemon has a {@code spark} section. */
  private static Map<EngineKind, PlanEngine> engines(HudiTables tables, List<ServiceAction> actions,
                                                     Optional<SparkEngine> spark) {
    Map<EngineKind, PlanEngine> engines = new EnumMap<>(EngineKind.class);
    engines.put(EngineKind.JAVA, new JavaEngine(tables, actions));
    spark.ifPresent(engine -> engines.put(EngineKind.SPARK, engine));
    return engines;
  }

  /** Shared through ZooKeeper with the other replicas when {@code ha} is configured; otherwise every table is ours. */
  private static TableOwnership ownership(TsdConfiguration configuration) {
    return configuration.getHa().<TableOwnership>map(ha -> new ZookeeperOwnership(ha.zookeeper(), ha.basePath(),
            ha.replicaId(), Duration.ofMillis(ha.sessionTimeout().toMilliseconds())))
        .orElseGet(() -> TableOwnership.sole(HaConfig.defaultReplicaId()));
  }

  /** Tables whose queued work waits: owned by another replica, or paused. */
  private static Predicate<String> heldBack(TableOwnership ownership, TableRegistry registry) {
    return tableId -> !ownership.owns(tableId) || registry.get(tableId).map(TableState::isPaused).orElse(false);
  }

  private static WorkerPool workerPool(TsdConfiguration configuration, PlanRunner runner, int sparkSlots,
                                       long memoryBudget, RunListener listeners, Predicate<String> heldBack) {
    WorkerConfig workers = configuration.getWorkers();
    return new WorkerPool(workers.count(), sparkSlots, memoryBudget, workers.maxAttempts(),
        Duration.ofMillis(workers.retryBackoff().toMilliseconds()), runner, listeners, heldBack);
  }

  /** Polls the tables this replica owns. */
  private static PollingService pollingService(TsdConfiguration configuration, HudiTables tables,
                                               Configuration hadoopConfiguration, DuePlanner planner,
                                               TableOwnership ownership, TableRegistry registry,
                                               PollObserver observer) {
    TablePoller poller = new TablePoller(tables, hadoopConfiguration, planner,
        Duration.ofMillis(configuration.getPolling().maxBackoff().toMilliseconds()), TablePoller.Backlog.READ, observer,
        ownership::owns, Clock.systemUTC());
    return new PollingService(poller, registry, configuration.getPolling().threads());
  }

  private static DiscoveryService discoveryService(TsdConfiguration configuration, Configuration hadoopConfiguration,
                                                   ServicedTables servicedTables, TableRegistry registry,
                                                   DiscoveryMetrics metrics) {
    return new DiscoveryService(new TableDiscovery(hadoopConfiguration, configuration.getDiscovery().maxDepth()),
        configuration.getDiscovery().roots(), servicedTables, registry,
        Duration.ofMillis(configuration.getDiscovery().interval().toMilliseconds()), metrics);
  }

  /** A poll of a table outside its schedule; a table not scheduled (yet, or any more) is polled on its own. */
  private void pollNow(String tableId) {
    polling.pollNow(tableId);
  }

  /** Every registered table may be owned by this replica; a removed one is given up. */
  private static final class OwnershipTracking implements TableRegistry.Listener {
    private final TableOwnership ownership;

    private OwnershipTracking(TableOwnership ownership) {
      this.ownership = ownership;
    }

    @Override
    public void added(TableState state) {
      ownership.track(state.table().id());
    }

    @Override
    public void removed(TableState state) {
      ownership.untrack(state.table().id());
    }
  }

  /**
   * Releases what parts outside a table's {@link TableState} keep about it, when the registry removes the table
   * (discovery no longer finds it, or it was removed over REST). Parts that follow the registry themselves (polling,
   * backlog series, ownership, metric series) are listeners of their own; a new part that keeps something per table
   * is released here or follows the registry, and TestTableChurn checks it holds only live tables.
   */
  private static final class ForgetRemoved implements TableRegistry.Listener {
    private final DuePlanner planner;
    private final HudiTables tables;
    private final ServiceOutcomes outcomes;
    private final Optional<CommitCallbacks> commitCallbacks;

    private ForgetRemoved(DuePlanner planner, HudiTables tables, ServiceOutcomes outcomes,
                          Optional<CommitCallbacks> commitCallbacks) {
      this.planner = planner;
      this.tables = tables;
      this.outcomes = outcomes;
      this.commitCallbacks = commitCallbacks;
    }

    @Override
    public void added(TableState state) {
    }

    @Override
    public void removed(TableState state) {
      String tableId = state.table().id();
      planner.forget(tableId);
      tables.instantFiles().forget(state.table().basePath());
      outcomes.forget(tableId);
      LockTurns.forget(tableId);
      commitCallbacks.ifPresent(callbacks -> callbacks.forget(tableId));
    }
  }

  /** A table gained is planned anew at once; the queued work of a table lost is dropped. */
  private static final class OwnershipFollower implements TableOwnership.Listener {
    private final TableRegistry registry;
    private final PollingService polling;
    private final WorkerPool pool;

    private OwnershipFollower(TableRegistry registry, PollingService polling, WorkerPool pool) {
      this.registry = registry;
      this.polling = polling;
      this.pool = pool;
    }

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
  }

  @Override
  public void start() throws Exception {
    synchronized (lifecycle) {
      if (stopRequested) {
        LOG.info("Not starting: the daemon is stopping");
        return;
      }
      fileSystemsOutliveStop.install();
      ownership.start(pool::isRunning);
      polling.start();
      for (TableSpec spec : configuration.getTables()) {
        if (stopRequested) {
          return;
        }
        registry.add(servicedTables.explicit(spec));
      }
      discovery.start();
      started = true;
    }
  }

  /** Ready once every configured table is registered and polling runs. */
  public boolean isReady() {
    return started && polling.isRunning();
  }

  /** Live while every worker thread and the poll scheduler are alive. */
  public boolean isLive() {
    return pool.aliveWorkers() == pool.workerCount() && (!started || polling.isRunning());
  }

  /**
   * Stops in order, whenever it is called (during the start too; a second call waits for the first and does
   * nothing): first nothing new starts (no run, no plan scheduled, no poll), then the running in-process plans get
   * {@code workers.shutdownGracePeriod} to finish and the rest are abandoned with their plans left pending, and only
   * then are the locks and file systems closed.
   */
  @Override
  public void stop() throws Exception {
    stopRequested = true;
    // At once, before waiting for a start under way: nothing queued starts from here on.
    pool.stopTakingWork();
    synchronized (lifecycle) {
      if (stopped) {
        return;
      }
      stopped = true;
      started = false;
      long start = System.nanoTime();
      LOG.info("Stopping: no new work; running plans have {}s to finish (workers.shutdownGracePeriod)",
          shutdownGracePeriod.toSeconds());
      try {
        discovery.close();
        debounceTimer.shutdownNow();
        polling.close();
        // Before the pool: its Spark runs stop waiting for their applications, which are left running (they keep
        // the plans' heartbeats, so the next daemon leaves those plans alone until they complete).
        spark.ifPresent(SparkEngine::close);
        List<RunRecord> abandoned = pool.shutdown(shutdownGracePeriod);
        // After the pool, so that the runs it finished or abandoned while stopping reach the file.
        history.close();
        // After the pool: tables are handed over only once their running work is done.
        ownership.close();
        ZookeeperClients.closeAll();
        LOG.info("Daemon stopped in {} ms; {} run(s) abandoned, their plans left pending",
            (System.nanoTime() - start) / 1_000_000, abandoned.size());
      } finally {
        fileSystemsOutliveStop.stopped();
      }
    }
  }

  /** What writers' commit callbacks do, when {@code commitCallbacks} is configured. */
  public Optional<CommitCallbacks> commitCallbacks() {
    return commitCallbacks;
  }

  public CommitCallbackMetrics callbackMetrics() {
    return callbackMetrics;
  }

  public DiscoveryService discovery() {
    return discovery;
  }

  /** Each table's backlog over its last changed polls, for the console's charts. */
  public BacklogSeries backlogSeries() {
    return backlogSeries;
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

  /** The Spark engine, when the daemon has a {@code spark} section. */
  public Optional<SparkEngine> spark() {
    return spark;
  }

  /** The Spark applications of this daemon's runs (none without a {@code spark} section). */
  public SparkApplications sparkApplications() {
    return sparkApplications;
  }
}
