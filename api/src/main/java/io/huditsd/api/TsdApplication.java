package io.huditsd.api;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.dropwizard.core.Application;
import io.dropwizard.core.cli.CheckCommand;
import io.dropwizard.core.setup.Bootstrap;
import io.dropwizard.core.setup.Environment;
import io.dropwizard.lifecycle.ServerLifecycleListener;
import io.huditsd.api.console.ConsoleServlet;
import io.huditsd.api.console.WebJars;
import io.huditsd.api.logging.LogRedaction;
import io.huditsd.api.logging.LogRedactor;
import io.huditsd.api.logging.QuietRequestLog;
import io.huditsd.api.logging.TimedLogLevels;
import io.huditsd.api.metrics.BuildInfoCollector;
import io.huditsd.api.metrics.DropwizardMetricsCollector;
import io.huditsd.api.metrics.TableSeriesRegistry;
import io.huditsd.api.rest.BacklogSeriesResource;
import io.huditsd.api.rest.BearerToken;
import io.huditsd.api.rest.BearerTokenFilter;
import io.huditsd.api.rest.BodySizeFilter;
import io.huditsd.api.rest.CallbackKey;
import io.huditsd.api.rest.CommitCallbackResource;
import io.huditsd.api.rest.IndexesResource;
import io.huditsd.api.rest.JsonErrorHandler;
import io.huditsd.api.rest.JsonErrorMapper;
import io.huditsd.api.rest.OpenApiResource;
import io.huditsd.api.rest.RunsResource;
import io.huditsd.api.rest.TableListResource;
import io.huditsd.api.rest.TableServiceManagerResource;
import io.huditsd.api.rest.TablesResource;
import io.huditsd.config.ServicedTables;
import io.huditsd.config.TsdConfiguration;
import io.huditsd.executors.HadoopJvmDefaults;
import io.huditsd.executors.clustering.BinaryCopyMetrics;
import io.huditsd.lock.LockMetrics;
import io.huditsd.scheduler.IngestionMetrics;
import io.huditsd.scheduler.TableOperations;
import io.huditsd.scheduler.TableProbe;
import io.prometheus.metrics.exporter.servlet.jakarta.PrometheusMetricsServlet;
import io.prometheus.metrics.instrumentation.jvm.JvmMetrics;
import jakarta.servlet.DispatcherType;
import net.sourceforge.argparse4j.inf.ArgumentParserException;
import org.eclipse.jetty.server.Server;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.OutputStream;
import java.io.PrintStream;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

/** The daemon's entry point: {@code server CONFIG.yml}, {@code once ...} and {@code demo [DIR]}. */
public class TsdApplication extends Application<TsdConfiguration> {
  private static final Logger LOG = LoggerFactory.getLogger(TsdApplication.class);

  /** Parallelism of the common ForkJoin pool unless the JVM was given one. */
  static final int COMMON_POOL_PARALLELISM = Math.max(8, 4 * Runtime.getRuntime().availableProcessors());

  private final OrderlyStop orderlyStop;

  public static void main(String[] args) throws Exception {
    // First, so that a signal at any moment of the start-up stops in order.
    OrderlyStop.process().handleSignals();
    widenCommonPool();
    HadoopJvmDefaults.install();
    quietObjectLayout();
    new TsdApplication(OrderlyStop.process()).run(args);
  }

  /** An application that signals do not stop (tests; the JVM's shutdown stops its server). */
  public TsdApplication() {
    this(new OrderlyStop(ExitStatus::exit));
  }

  /** @param orderlyStop the process's, where the daemon adds its stop */
  TsdApplication(OrderlyStop orderlyStop) {
    this.orderlyStop = java.util.Objects.requireNonNull(orderlyStop, "orderlyStop is null");
  }

  /**
   * Hudi sizes its spillable maps with JOL, which sets itself up at first use: it attaches an agent to its own JVM
   * for the Instrumentation API (a temporary jar and the attach handshake, about 0.13 s of every start, and a JVM
   * that lets its own code attach agents) and tries the Serviceability Agent, and prints a warning to stdout for each
   * it cannot use: a line on every start that nobody acts on, and one that would break {@code once --json}'s
   * stdout. Neither is needed: without them JOL sizes objects from their field layout. So both are skipped unless
   * the JVM was told otherwise, and JOL is set up here, once and before any other thread runs, with stdout silenced
   * for that moment. Reflection: JOL is Hudi's dependency.
   */
  static void quietObjectLayout() {
    for (String skip : List.of("jol.skipDynamicAttach", "jol.skipHotspotSAAttach")) {
      if (System.getProperty(skip) == null) {
        System.setProperty(skip, "true");
      }
    }
    PrintStream stdout = System.out;
    System.setOut(new PrintStream(OutputStream.nullOutputStream()));
    try {
      Class.forName("org.openjdk.jol.vm.VM").getMethod("current").invoke(null);
    } catch (ReflectiveOperationException | LinkageError | RuntimeException e) {
      // No JOL, or one that fails here: Hudi falls back as it would have anyway.
    } finally {
      System.setOut(stdout);
    }
  }

  /**
   * Hudi's Java engine runs its parallel work on the common ForkJoin pool, and some of that work blocks inside it:
   * FileSystemViewManager builds a view inside ConcurrentHashMap.computeIfAbsent while Hadoop's IOStatistics
   * evaluate a parallel stream on the same pool. With the default parallelism (cores - 1, so 1 on a 2-core pod) the
   * only worker can block on the map entry whose owner waits for a task no worker is free to run: a deadlock seen
   * here under load. More workers than blocking callers keeps a worker free. Must run before anything uses the pool.
   */
  static void widenCommonPool() {
    String key = "java.util.concurrent.ForkJoinPool.common.parallelism";
    if (System.getProperty(key) == null) {
      System.setProperty(key, Integer.toString(COMMON_POOL_PARALLELISM));
    }
  }

  @Override
  public String getName() {
    return "hudi-tsd";
  }

  @Override
  public void initialize(Bootstrap<TsdConfiguration> bootstrap) {
    bootstrap.setConfigurationFactoryFactory(new CheckedConfigurationFactoryFactory());
    // ISO-8601 in JSON: operators read these times, and scripts parse them either way.
    bootstrap.getObjectMapper().disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS);
    // Dropwizard's mapper ignores unknown fields; a misspelt field in a REST body ("dryrun") would then be dropped
    // silently, while tsd.yml rejects unknown keys. Request bodies are strict the same way (400 naming the field).
    bootstrap.getObjectMapper().enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);
    bootstrap.addCommand(new OnceCommand(orderlyStop));
    bootstrap.addCommand(new DemoCommand(orderlyStop));
  }

  /** Dropwizard's {@code server} and {@code check}, with the daemon's start-up checks and error output on server. */
  @Override
  protected void addDefaultCommands(Bootstrap<TsdConfiguration> bootstrap) {
    bootstrap.addCommand(new TsdServerCommand(this));
    bootstrap.addCommand(new CheckCommand<>(this));
  }

  /**
   * Exit codes as operators' tools give them: 2 for bad arguments (argparse's), {@code once}'s outcome code for its
   * failures (see {@link OnceOutcome}), 1 for any other failure.
   */
  @Override
  protected void onFatalError(Throwable error) {
    if (error instanceof OnceCommand.CommandFailedException failed) {
      ExitStatus.exit(failed.outcome().exitCode(false));
    }
    ExitStatus.exit(error instanceof ArgumentParserException ? OnceOutcome.BAD_INPUT.exitCode(false) : 1);
  }

  @Override
  public void run(TsdConfiguration configuration, Environment environment) {
    JvmOpens.missing().ifPresent(LOG::warn);
    // Knows the families labelled by table, so that a table no longer serviced takes its series with it.
    TableSeriesRegistry metrics = new TableSeriesRegistry();
    JvmMetrics.builder().register(metrics);
    metrics.register(new DropwizardMetricsCollector(environment.metrics()));
    metrics.register(BuildInfoCollector.ofThisBuild());
    LockMetrics.register(metrics);
    BinaryCopyMetrics.register(metrics);
    IngestionMetrics.register(metrics);
    // The client's servlet serves the text format 0.0.4, or OpenMetrics to a scraper that asks for it (Accept:
    // application/openmetrics-text), and gzip where accepted; no _created series in either (its default).
    environment.admin().addServlet("prometheus", new PrometheusMetricsServlet(metrics)).addMapping("/prometheus");
    Daemon daemon = new Daemon(configuration, SparkSetup.settings(configuration.getSpark()), metrics,
        environment.getObjectMapper());
    environment.lifecycle().manage(daemon);
    // Also outside the server's lifecycle: a signal stops the daemon in order even while the server is starting.
    orderlyStop.add("the daemon", daemon::stop);
    TableOperations operations = new TableOperations(daemon.registry(), daemon.tables(), daemon.pool(),
        daemon.planner(), daemon.ownership(), daemon.spark());
    environment.jersey().register(new TablesResource(daemon.registry(), daemon.tables(), daemon.pool(),
        daemon.history(), daemon.outcomes(), operations, daemon.ownership(), daemon.sparkApplications()));
    environment.jersey().register(new RunsResource(daemon.pool(), daemon.history(), operations,
        daemon.sparkApplications()));
    environment.jersey().register(new IndexesResource(daemon.registry(), daemon.tables()));
    environment.jersey().register(new OpenApiResource());
    environment.jersey().register(new TableListResource(daemon.registry(), daemon.ownership()));
    environment.jersey().register(new BacklogSeriesResource(daemon.registry(), daemon.backlogSeries()));
    // Static files only (Jersey keeps /*: the longer /console/* and the exact root match first); the pages read
    // everything through the API above, with its auth.
    environment.servlets().addServlet("console", new ConsoleServlet(WebJars.onClassPath(WebJars.CONSOLE)))
        .addMapping("/console/*", "");
    environment.jersey().register(new TableServiceManagerResource(daemon.registry(), daemon.discovery(), operations,
        new ServicedTables(configuration), new TableProbe(daemon.hadoopConfiguration()),
        configuration.getTableServiceManager().registerUnknownTables()));
    Optional<String> callbackKey = configuration.getCommitCallbacks().map(ApiToken::read);
    environment.jersey().register(new CommitCallbackResource(callbackKey.map(key -> new CommitCallbackResource.Receiver(
            new CallbackKey(key), daemon.commitCallbacks().orElseThrow(), daemon.callbackMetrics())),
        daemon.registry(), daemon.discovery(), new ServicedTables(configuration),
        new TableProbe(daemon.hadoopConfiguration()), configuration.getTableServiceManager().registerUnknownTables()));
    environment.jersey().register(new BodySizeFilter(configuration.getAuth().maxBodyBytes()));
    environment.jersey().register(new JsonErrorMapper());
    JsonErrorHandler.install(environment.lifecycle(), environment.getObjectMapper());
    Optional<String> token = ApiToken.read(configuration.getAuth());
    redactCredentialsFromLogs(environment, Stream.concat(token.stream(), callbackKey.stream()).toList());
    Optional<BearerToken> bearer = token.map(BearerToken::new);
    if (bearer.isPresent()) {
      environment.jersey().register(new BearerTokenFilter(bearer.get(), configuration.getAuth().protectReads()));
    } else {
      LOG.warn("REST API is not protected: set auth.tokenFile or auth.tokenEnv to require a bearer token for "
          + "scheduling, executing, pausing and cancelling");
    }
    if (bearer.isEmpty() && configuration.getAuth().openAdmin()) {
      LOG.warn("auth.openAdmin: the admin port's tasks (log levels, GC) and dumps (threads, metrics) answer anyone");
    }
    environment.lifecycle().addEventListener(new QuietRequestLog());
    environment.lifecycle().addServerLifecycleListener(new ServerLifecycleListener() {
      @Override
      public void serverStarted(Server server) {
        LOG.info(ServingSummary.line(configuration, getLocalPort(server), getAdminPort(server), bearer.isPresent()));
      }
    });
    environment.admin().addFilter("admin-access", new AdminAccessFilter(bearer, configuration.getAuth().openAdmin(),
        environment.getObjectMapper())).addMappingForUrlPatterns(EnumSet.of(DispatcherType.REQUEST), true, "/*");
    environment.healthChecks().register("worker-pool", new WorkerPoolHealthCheck(daemon.pool()));
    environment.healthChecks().register("tables", new TablesHealthCheck(daemon.registry(),
        configuration.getTableHealth(), daemon.ownership()::owns));
    // Dropwizard's own task at this path stays registered but unreachable: the exact mapping wins over /tasks/*.
    TimedLogLevels logLevels = TimedLogLevels.ofLogback();
    environment.lifecycle().manage(logLevels);
    environment.admin().addServlet("log-level", new LogLevelServlet(logLevels, environment.getObjectMapper()))
        .addMapping(LogLevelServlet.PATH);
    environment.admin().addServlet("live", new ProbeServlet(daemon::isLive)).addMapping("/live");
    environment.admin().addServlet("ready", new ProbeServlet(daemon::isReady)).addMapping("/ready");
  }

  /**
   * Jetty's DEBUG logs print request headers and raw request bytes, and a request log format may print headers: every
   * appender gets its lines redacted, those configured now and those the server factory adds while it builds.
   */
  private static void redactCredentialsFromLogs(Environment environment, List<String> secrets) {
    LogRedaction redaction = new LogRedaction(new LogRedactor(secrets));
    redaction.redactLoggers();
    environment.lifecycle().addEventListener(redaction.onServerStarting());
  }
}
