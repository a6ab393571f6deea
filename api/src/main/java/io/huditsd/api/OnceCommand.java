package io.huditsd.api;

import ch.qos.logback.classic.LoggerContext;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.dropwizard.core.cli.Cli;
import io.dropwizard.core.cli.Command;
import io.dropwizard.core.setup.Bootstrap;
import io.dropwizard.jackson.Jackson;
import io.huditsd.config.DiscoveryConfig;
import io.huditsd.config.EngineKind;
import io.huditsd.config.EnginePolicy;
import io.huditsd.config.HeartbeatSettings;
import io.huditsd.config.HoodieKeyRules;
import io.huditsd.config.MetadataIndexes;
import io.huditsd.config.ServiceType;
import io.huditsd.config.ServicedTable;
import io.huditsd.config.ServicedTables;
import io.huditsd.config.SparkConfig;
import io.huditsd.config.TableIds;
import io.huditsd.config.TablePaths;
import io.huditsd.config.TableSpec;
import io.huditsd.config.TsdConfiguration;
import io.huditsd.config.WorkerConfig;
import io.huditsd.config.WriterLockDefaults;
import io.huditsd.executors.ExecutionPlacement;
import io.huditsd.executors.HeapEstimator;
import io.huditsd.executors.HudiTables;
import io.huditsd.executors.JavaEngine;
import io.huditsd.executors.PlanEngine;
import io.huditsd.executors.PlanLiveness;
import io.huditsd.executors.PlanRunner;
import io.huditsd.executors.RunRecord;
import io.huditsd.executors.ServiceAction;
import io.huditsd.executors.WorkerPool;
import io.huditsd.executors.spark.SparkApplications;
import io.huditsd.executors.spark.SparkEngine;
import io.huditsd.executors.spark.SparkSettings;
import io.huditsd.lock.LockProviderCheck;
import io.huditsd.lock.ZookeeperClients;
import io.huditsd.scheduler.DuePlanner;
import io.huditsd.scheduler.OncePass;
import io.huditsd.scheduler.PollObserver;
import io.huditsd.scheduler.TableDiscovery;
import io.huditsd.scheduler.TablePoller;
import io.huditsd.scheduler.TableProbe;
import io.huditsd.scheduler.TableProblem;
import net.sourceforge.argparse4j.impl.Arguments;
import net.sourceforge.argparse4j.inf.Namespace;
import net.sourceforge.argparse4j.inf.Subparser;
import org.apache.hadoop.conf.Configuration;
import org.apache.hudi.common.table.HoodieTableMetaClient;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * {@code once --table URI [--table URI ...] [--services ...] [--hoodie-conf key=value ...] [--engine java|spark]
 * [--spark-config FILE]}, or {@code once --config tsd.yml}: one pass per table (schedule what is due, execute every
 * pending plan), then exit with the code of its {@link OnceOutcome}. With {@code --config} the tables (explicit and
 * discovered), policies, locks, indexes, workers and the Spark engine are the server's, read from its own file by its
 * own checks, so that a cron pass and the server never disagree; {@code ha} does not apply (a pass services every
 * table it is given, kept apart from a running server by the table lock). {@code --json} prints one JSON summary.
 */
final class OnceCommand extends Command {
  private static final org.slf4j.Logger LOG = LoggerFactory.getLogger(OnceCommand.class);

  private final OrderlyStop orderlyStop;

  /** @param orderlyStop where a pass adds its stop on SIGTERM: its running plans get the grace period too */
  OnceCommand(OrderlyStop orderlyStop) {
    super("once", "Service the given tables once: schedule what is due, execute every pending plan, exit");
    this.orderlyStop = java.util.Objects.requireNonNull(orderlyStop, "orderlyStop is null");
  }

  @Override
  public void configure(Subparser subparser) {
    subparser.addArgument("--config").dest("config").metavar("FILE")
        .help("the server's tsd.yml: its tables, discovery roots, policies, locks, indexes, workers and spark "
            + "section, checked as server checks them; instead of --table and the flags that describe tables");
    subparser.addArgument("--table").dest("tables").action(Arguments.append())
        .metavar("URI").help("base path of a Hudi table (repeatable; required without --config)");
    subparser.addArgument("--json").dest("json").action(Arguments.storeTrue())
        .help("print one JSON object (outcome, exitCode, tables, runs, problems) on stdout instead of the lines");
    subparser.addArgument("--detailed-exit-code").dest("detailedExitCode").action(Arguments.storeTrue())
        .help("exit 3 when nothing was due on any table (default: 0, as when tables were serviced)");
    subparser.addArgument("--services").dest("services")
        .help("comma-separated services to run, of " + ServiceType.allNames() + " (default: "
            + "compaction,clustering,clean,archive; index only executes pending indexing plans, as once takes no "
            + "indexes to build)");
    subparser.addArgument("--hoodie-conf").dest("hoodie").action(Arguments.append())
        .metavar("KEY=VALUE").help("a hoodie.* key passed to the write config (repeatable)");
    // Ranges are checked by the parser, so that the error names the flag rather than a configuration field.
    subparser.addArgument("--workers").dest("workers").type(Integer.class)
        .choices(Arguments.range(1, WorkerConfig.MAX_COUNT)).metavar("N")
        .help("worker threads, 1 to " + WorkerConfig.MAX_COUNT + " (default: cores)");
    subparser.addArgument("--engine").dest("engine").choices("java", "spark", "auto").metavar("ENGINE")
        .help("where compaction and clustering plans run: java (in this process), spark (submitted with the spark "
            + "section of --spark-config) or auto (Spark from tsd.engine.spark.min.bytes, or over the memory "
            + "budget, when --spark-config is given); default: the tsd.engine keys of --hoodie-conf, else auto");
    subparser.addArgument("--spark-config").dest("sparkConfig").metavar("FILE")
        .help("a YAML file whose spark section (as in tsd.yml; the daemon's own tsd.yml will do) says how to submit "
            + "plans to Spark");
    subparser.addArgument("--timeout-minutes").dest("timeout").type(Integer.class)
        .choices(Arguments.range(1, Integer.MAX_VALUE)).metavar("MINUTES").setDefault(120)
        .help("give up waiting for plans after this long, for the whole pass (default: 120)");
  }

  @Override
  public void run(Bootstrap<?> bootstrap, Namespace namespace) throws Exception {
    showProgressLogs(namespace.getBoolean("json"));
    JvmOpens.missing().ifPresent(LOG::warn);
    Pass pass = namespace.getString("config") == null ? passFromFlags(namespace)
        : passFromConfig(bootstrap, namespace);
    List<RunRecord> finished = Collections.synchronizedList(new ArrayList<>());
    OncePass.Result result = servicePass(orderlyStop, pass.tables(), pass.workers(), pass.spark(), pass.hudiTables(),
        pass.hadoopConfiguration(), Duration.ofMinutes(namespace.getInt("timeout")), finished);
    List<String> failures = result.problems();
    OnceOutcome outcome = !failures.isEmpty() ? OnceOutcome.TABLE_FAILED
        : !result.left().isEmpty() ? OnceOutcome.PLANS_LEFT
        : finished.isEmpty() ? OnceOutcome.NOTHING_TO_DO : OnceOutcome.SERVICED;
    boolean detailed = namespace.getBoolean("detailedExitCode");
    PrintStream out = System.out;
    if (namespace.getBoolean("json")) {
      out.println(OnceSummary.json(bootstrap.getObjectMapper(), outcome, outcome.exitCode(detailed),
          pass.tables().size(), finished, result.left(), failures, result.decisions()));
    } else {
      printRuns(finished, out);
      printNothingScheduled(result.decisions(), out);
      if (outcome == OnceOutcome.NOTHING_TO_DO) {
        out.println("Nothing to do on " + pass.tables().size() + " table(s)");
      } else if (outcome == OnceOutcome.SERVICED) {
        out.println("Serviced " + pass.tables().size() + " table(s), " + finished.size() + " run(s)");
      } else if (outcome == OnceOutcome.PLANS_LEFT) {
        for (OncePass.LeftPlan left : result.left()) {
          out.println("left " + left.item().describe() + ": " + left.reason());
        }
        out.println("Left " + result.left().size() + " plan(s) to the live processes holding them; "
            + finished.size() + " run(s) on " + pass.tables().size() + " table(s)");
      }
    }
    out.flush();
    if (!failures.isEmpty()) {
      throw new CommandFailedException(OnceOutcome.TABLE_FAILED, String.join("\n", failures), true);
    }
    // Hudi's clients can leave non-daemon threads behind; a one-shot pass must end.
    ExitStatus.exit(outcome.exitCode(detailed));
  }

  /** What a pass services and with what: the tables, their workers, the Spark engine, Hudi's clients. */
  private record Pass(List<ServicedTable> tables, WorkerConfig workers, Optional<SparkSettings> spark,
                      HudiTables hudiTables, Configuration hadoopConfiguration) {
  }

  /** {@code --table} and the flags around it. */
  private static Pass passFromFlags(Namespace namespace) {
    List<String> paths = namespace.getList("tables");
    if (paths == null || paths.isEmpty()) {
      throw new CommandFailedException("give --config FILE (the server's tsd.yml) or at least one --table URI");
    }
    Set<ServiceType> services = parseServices(Optional.ofNullable(namespace.getString("services"))
        .orElse("compaction,clustering,clean,archive"));
    Map<String, String> hoodie = parseHoodie(namespace.getList("hoodie"));
    Optional<SparkSettings> spark = sparkSettings(namespace.getString("sparkConfig"));
    String engine = namespace.getString("engine");
    if (engine != null) {
      // --engine is the engine policy of every table of the pass, over --hoodie-conf's.
      hoodie.put(EnginePolicy.ENGINE, engine);
      hoodie.remove(EnginePolicy.ENGINE_COMPACTION);
      hoodie.remove(EnginePolicy.ENGINE_CLUSTERING);
    }
    if (spark.isEmpty() && EnginePolicy.of(hoodie).requiresSpark()) {
      throw new CommandFailedException("--engine spark: plans can only be submitted to Spark with --spark-config "
          + "FILE, a YAML file with a spark section (the daemon's tsd.yml will do)");
    }
    hoodie = checkedHoodieKeys(hoodie);
    int workers = Optional.ofNullable(namespace.getInt("workers"))
        .orElse(Math.min(Runtime.getRuntime().availableProcessors(), WorkerConfig.MAX_COUNT));
    WorkerConfig workerConfig = WorkerConfig.create(workers, 1, null, null, null, null, null);
    Configuration hadoopConfiguration = HudiTables.defaultHadoopConfiguration();
    HudiTables hudiTables = new HudiTables(hadoopConfiguration, HeartbeatSettings.of(workerConfig));
    List<ServicedTable> tables = servicedTables(paths, services, hoodie, hudiTables,
        new TableProbe(hadoopConfiguration));
    return new Pass(tables, workerConfig, spark, hudiTables, hadoopConfiguration);
  }

  /**
   * The server's tsd.yml, read by the server's configuration factory (unknown keys, Hudi keys, locks, the spark
   * section) and its explicit tables checked as server checks them; the tables under the discovery roots as the
   * server finds them, a table that cannot be read there failing on its own while the others are serviced.
   */
  private static Pass passFromConfig(Bootstrap<?> bootstrap, Namespace namespace) {
    String file = namespace.getString("config");
    List<String> conflicting = new ArrayList<>();
    for (String flag : List.of("tables", "services", "hoodie", "engine", "sparkConfig", "workers")) {
      if (namespace.get(flag) != null) {
        conflicting.add(switch (flag) {
          case "tables" -> "--table";
          case "hoodie" -> "--hoodie-conf";
          case "sparkConfig" -> "--spark-config";
          default -> "--" + flag;
        });
      }
    }
    if (!conflicting.isEmpty()) {
      throw new CommandFailedException("--config " + file + " says what to service and how; "
          + String.join(", ", conflicting) + " cannot be given with it (set them in the file)");
    }
    TsdConfiguration configuration = OnceConfiguration.read(bootstrap, file);
    Optional<SparkSettings> spark;
    try {
      spark = SparkSetup.settings(configuration.getSpark());
    } catch (IllegalStateException e) {
      throw new CommandFailedException(file + ":\n" + e.getMessage());
    }
    Configuration hadoopConfiguration = HudiTables.defaultHadoopConfiguration();
    HudiTables hudiTables = new HudiTables(hadoopConfiguration, HeartbeatSettings.of(configuration.getWorkers()));
    List<String> errors = new ExplicitTableCheck(new TableProbe(hadoopConfiguration), hudiTables)
        .check(configuration);
    if (!errors.isEmpty()) {
      throw new CommandFailedException(file + " has an error:\n  * " + String.join("\n  * ", errors));
    }
    ServicedTables serviced = new ServicedTables(configuration);
    Map<String, ServicedTable> tables = new LinkedHashMap<>();
    for (TableSpec spec : configuration.getTables()) {
      ServicedTable table = serviced.explicit(spec);
      tables.put(table.basePath(), table);
    }
    DiscoveryConfig discovery = configuration.getDiscovery();
    List<TableDiscovery.RootScan> scans = new TableDiscovery(hadoopConfiguration, discovery.maxDepth())
        .scan(discovery.roots());
    for (TableDiscovery.RootScan scan : scans) {
      scan.failure().ifPresent(failure -> LOG.warn("Discovery scan of root {} is incomplete ({}): this pass "
          + "services only the {} table(s) found under it before the failure", scan.root(), failure,
          scan.tables().size()));
    }
    for (String path : TableDiscovery.tablesOf(scans)) {
      // An explicit entry for a discovered table wins, as in the server.
      tables.putIfAbsent(path, serviced.discovered(path));
    }
    return new Pass(List.copyOf(tables.values()), configuration.getWorkers(), spark, hudiTables,
        hadoopConfiguration);
  }

  /** The {@code --hoodie-conf} keys, refused with every problem named when one may not be set or names no lock. */
  private static Map<String, String> checkedHoodieKeys(Map<String, String> hoodie) {
    List<String> keyErrors = new ArrayList<>(HoodieKeyRules.check("--hoodie-conf", hoodie));
    keyErrors.addAll(LockProviderCheck.check("--hoodie-conf", hoodie));
    if (!keyErrors.isEmpty()) {
      throw new CommandFailedException(String.join("\n", keyErrors));
    }
    return hoodie;
  }

  /** Every {@code --table}, checked; fails naming each path that cannot be serviced, before anything runs. */
  private static List<ServicedTable> servicedTables(List<String> paths, Set<ServiceType> services,
                                                    Map<String, String> hoodie, HudiTables hudiTables,
                                                    TableProbe probe) {
    List<ServicedTable> tables = new ArrayList<>();
    List<String> problems = new ArrayList<>();
    for (String path : paths) {
      String basePath = TablePaths.normalize(path);
      try {
        servicedTable(basePath, services, hoodie, hudiTables, probe, problems).ifPresent(tables::add);
      } catch (TableProblem e) {
        problems.add(e.getMessage());
      } catch (RuntimeException e) {
        problems.add(basePath + ": cannot be read as a Hudi table: " + e.getMessage());
      }
    }
    if (!problems.isEmpty()) {
      throw new CommandFailedException(String.join("\n", problems));
    }
    return tables;
  }

  /** The table at {@code basePath}, or empty with its lock problems added to {@code problems}. */
  private static Optional<ServicedTable> servicedTable(String basePath, Set<ServiceType> services,
                                                       Map<String, String> hoodie, HudiTables hudiTables,
                                                       TableProbe probe, List<String> problems) {
    probe.requireTableLayout(basePath);
    HoodieTableMetaClient metaClient = hudiTables.metaClient(basePath);
    TableProbe.requireSupportedVersion(metaClient);
    // As the daemon: the writers' lock from hudi-defaults.conf unless --hoodie-conf names one.
    Map<String, String> keys = new HashMap<>(WriterLockDefaults.keys());
    keys.putAll(hoodie);
    List<String> lockErrors = LockProviderCheck.check("--hoodie-conf", keys, basePath);
    if (!lockErrors.isEmpty()) {
      problems.addAll(lockErrors);
      return Optional.empty();
    }
    LockProviderCheck.warnings("--hoodie-conf", keys).forEach(warning -> LOG.warn("{}: {}", basePath, warning));
    // once takes no indexes to build: it only executes pending indexing plans.
    return Optional.of(new ServicedTable(TableIds.derive(basePath), basePath, services, Duration.ofSeconds(30), keys,
        MetadataIndexes.none()));
  }

  /** Runs the pass over {@code tables} on a pool of its own; the runs that finished land in {@code finished}. */
  private static OncePass.Result servicePass(OrderlyStop orderlyStop, List<ServicedTable> tables,
                                             WorkerConfig workerConfig,
                                          Optional<SparkSettings> sparkSettings, HudiTables hudiTables,
                                          Configuration hadoopConfiguration, Duration timeout,
                                          List<RunRecord> finished) throws InterruptedException {
    List<ServiceAction> actions = PlanRunner.defaultActions();
    Optional<SparkEngine> spark = sparkSettings.map(settings -> new SparkEngine(hudiTables, actions, settings,
        new SparkApplications()));
    Map<EngineKind, PlanEngine> engines = new EnumMap<>(EngineKind.class);
    engines.put(EngineKind.JAVA, new JavaEngine(hudiTables, actions));
    spark.ifPresent(engine -> engines.put(EngineKind.SPARK, engine));
    long memoryBudget = workerConfig.memoryBudgetBytes(Runtime.getRuntime().maxMemory());
    WorkerPool pool = new WorkerPool(workerConfig.count(), sparkSettings.map(SparkSettings::maxApplications).orElse(0),
        memoryBudget, workerConfig.maxAttempts(), Duration.ZERO, new PlanRunner(hudiTables, actions, engines), run -> {
          if (run.status().isFinal()) {
            finished.add(run);
          }
        }, tableId -> false);
    Duration gracePeriod = Duration.ofMillis(workerConfig.shutdownGracePeriod().toMilliseconds());
    orderlyStop.add("the pass's worker pool", () -> pool.shutdown(gracePeriod));
    ExecutionPlacement placement = new ExecutionPlacement(new HeapEstimator(), spark.isPresent(), memoryBudget);
    // A pass owns every table it is given.
    TablePoller poller = new TablePoller(hudiTables, hadoopConfiguration, new DuePlanner(hudiTables, pool, placement),
        Duration.ofMinutes(10), TablePoller.Backlog.SKIPPED, PollObserver.NONE, tableId -> true, Clock.systemUTC());
    try {
      PlanLiveness liveness = new PlanLiveness(hudiTables.heartbeat());
      return new OncePass(poller, pool, Clock.systemUTC(), item -> liveness.liveHeartbeat(
          hudiTables.metaClient(item.table().basePath()), item.instant().orElseThrow())).run(tables, timeout, finished);
    } finally {
      pool.shutdown(gracePeriod);
      ZookeeperClients.closeAll();
    }
  }

  /** The spark section of {@code --spark-config}, checked as the daemon checks its own; empty without the flag. */
  private static Optional<SparkSettings> sparkSettings(String file) {
    if (file == null) {
      return Optional.empty();
    }
    SparkConfig config;
    try {
      JsonNode root = Jackson.newObjectMapper(new YAMLFactory()).readTree(Path.of(file).toFile());
      JsonNode section = root == null ? null : root.get("spark");
      if (section == null || section.isNull()) {
        throw new CommandFailedException("--spark-config " + file + ": has no spark section");
      }
      config = Jackson.newObjectMapper().treeToValue(section, SparkConfig.class);
    } catch (IOException e) {
      throw new CommandFailedException("--spark-config " + file + ": " + e.getMessage());
    }
    try {
      return SparkSetup.settings(Optional.of(config));
    } catch (IllegalStateException e) {
      throw new CommandFailedException("--spark-config " + file + ":\n" + e.getMessage());
    }
  }

  /**
   * One line per table and service the pass was asked to run that scheduled nothing, with why: a pass that did
   * nothing says what held each service back.
   */
  private static void printNothingScheduled(List<OncePass.TableDecision> decisions, PrintStream out) {
    for (OncePass.TableDecision decision : decisions) {
      if (decision.decision().scheduledNothing()) {
        out.println("nothing scheduled " + decision.decision().line(decision.table().id()));
      }
    }
  }

  /** One line per finished run, for the logs of a CronJob. */
  private static void printRuns(List<RunRecord> finished, PrintStream out) {
    synchronized (finished) {
      for (RunRecord run : finished) {
        // The engine goes after the status: scripts that read "instant=... status=..." keep working.
        out.println(run.item().describePlan() + " status=" + run.status().name().toLowerCase(Locale.ROOT)
            + " engine=" + run.item().placement().engine().configName()
            + run.result().map(result -> " fileGroups=" + result.fileGroups() + " bytesIn=" + result.bytesIn()
                + " bytesOut=" + result.bytesOut() + " durationMs=" + result.duration().toMillis()).orElse("")
            + run.error().map(error -> " error=" + error).orElse(""));
      }
    }
  }

  @Override
  public void onError(Cli cli, Namespace namespace, Throwable error) {
    if (error instanceof CommandFailedException failed) {
      if (!failed.summaryPrinted() && Boolean.TRUE.equals(namespace.getBoolean("json"))) {
        System.out.println(OnceSummary.json(Jackson.newObjectMapper(), failed.outcome(),
            failed.outcome().exitCode(false), 0, List.of(), List.of(), List.of(failed.getMessage()), List.of()));
        System.out.flush();
      }
      cli.getStdErr().println("hudi-tsd once: " + error.getMessage());
    } else {
      super.onError(cli, namespace, error);
    }
  }

  private static Set<ServiceType> parseServices(String text) {
    Set<ServiceType> services = EnumSet.noneOf(ServiceType.class);
    for (String name : text.split(",")) {
      if (!name.isBlank()) {
        try {
          services.add(ServiceType.fromConfigName(name));
        } catch (IllegalArgumentException e) {
          throw new CommandFailedException("--services: " + e.getMessage());
        }
      }
    }
    return services;
  }

  private static Map<String, String> parseHoodie(List<String> pairs) {
    Map<String, String> keys = new LinkedHashMap<>();
    if (pairs == null) {
      return keys;
    }
    for (String pair : pairs) {
      int equals = pair.indexOf('=');
      if (equals <= 0) {
        throw new CommandFailedException("--hoodie-conf " + pair + ": expected KEY=VALUE");
      }
      keys.put(pair.substring(0, equals).trim(), pair.substring(equals + 1).trim());
    }
    return keys;
  }

  /** A one-shot pass shows what it scheduled and ran, and no library spends time on lines nobody sees. */
  private static void showProgressLogs(boolean json) {
    OnceLogging.configure((LoggerContext) LoggerFactory.getILoggerFactory(), json);
  }

  /**
   * A failure whose message is all the user needs; printed without a stack trace, and the process exits with its
   * outcome's code ({@link TsdApplication#onFatalError}).
   */
  static final class CommandFailedException extends RuntimeException {
    private final OnceOutcome outcome;
    private final boolean summaryPrinted;

    /** Bad input: nothing ran. */
    CommandFailedException(String message) {
      this(OnceOutcome.BAD_INPUT, message, false);
    }

    CommandFailedException(OnceOutcome outcome, String message, boolean summaryPrinted) {
      super(message);
      this.outcome = Objects.requireNonNull(outcome, "outcome is null");
      this.summaryPrinted = summaryPrinted;
    }

    OnceOutcome outcome() {
      return outcome;
    }

    /** Whether the {@code --json} summary, if asked for, is already out. */
    boolean summaryPrinted() {
      return summaryPrinted;
    }
  }
}
