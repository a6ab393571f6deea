package io.huditsd.api;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import io.dropwizard.core.cli.Command;
import io.dropwizard.core.setup.Bootstrap;
import io.huditsd.api.demo.DemoWriter;
import net.sourceforge.argparse4j.inf.Namespace;
import net.sourceforge.argparse4j.inf.Subparser;
import org.slf4j.LoggerFactory;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * {@code demo [DIR]}: the embedded default. Creates a sample MOR table under DIR, upserts into it every few seconds
 * from a built-in writer, and runs the daemon on it; writer and daemon share the table's default storage lock.
 * Ctrl-C stops both.
 */
final class DemoCommand extends Command {
  private final OrderlyStop orderlyStop;

  /** @param orderlyStop stops the writer first, then the daemon, on Ctrl-C or SIGTERM */
  DemoCommand(OrderlyStop orderlyStop) {
    super("demo", "Run the daemon on a sample MOR table that a built-in writer keeps upserting into");
    this.orderlyStop = java.util.Objects.requireNonNull(orderlyStop, "orderlyStop is null");
  }

  @Override
  public void configure(Subparser subparser) {
    subparser.addArgument("dir").nargs("?").setDefault("tsd-demo").help("working directory (default: ./tsd-demo)");
    subparser.addArgument("--port").dest("port").type(Integer.class).setDefault(8080)
        .help("REST port; the admin (metrics, health) port is the next one (default: 8080)");
  }

  @Override
  public void run(Bootstrap<?> bootstrap, Namespace namespace) throws Exception {
    Path dir = Path.of(namespace.getString("dir")).toAbsolutePath().normalize();
    Path table = dir.resolve("tables").resolve("demo_mor");
    Files.createDirectories(table.getParent());
    int port = namespace.getInt("port");
    Path configFile = dir.resolve("tsd.yml");
    Files.writeString(configFile, demoConfiguration(table, port));

    // The writer starts before the server configures logging from tsd.yml: the same two loggers quiet meanwhile.
    LoggerContext logging = (LoggerContext) LoggerFactory.getILoggerFactory();
    logging.getLogger("org.apache.hudi.common.table.HoodieTableConfig").setLevel(Level.ERROR);
    logging.getLogger("org.apache.hadoop.util.NativeCodeLoader").setLevel(Level.ERROR);
    DemoWriter writer = DemoWriter.start(table.toString());
    System.out.printf("""

        hudi-tsd demo
          table:     %s (MERGE_ON_READ, written every %ds by a built-in writer)
          config:    %s
          tables:    http://localhost:%d/api/v1/tables
          runs:      http://localhost:%d/api/v1/runs
          health:    http://localhost:%d/healthcheck
          metrics:   http://localhost:%d/prometheus
        Compaction is due every 3 delta commits, clustering every 10 commits (of the days the writer left
        a minute ago: it writes into today and yesterday); clean and archive follow.
        Watch the "Scheduled", "Started" and "Finished" lines below. Ctrl-C stops.

        """, table, DemoWriter.INTERVAL_SECONDS, configFile, port, port, port + 1, port + 1);
    // A step of the orderly stop, not a JVM hook: in the JVM's shutdown the writer's last commit could not build its
    // lock provider, and met the daemon's closed one, retried every few seconds for a minute.
    orderlyStop.add("the demo writer", writer::stop);
    new TsdApplication(orderlyStop).run("server", configFile.toString());
  }

  /**
   * The demo's timings: how often the daemon polls, after how many commits it clusters, and which file groups stay
   * hot (the writer's latest commits, and those of the last minutes). A test runs the same loop at a faster pace.
   */
  record Pace(int pollSeconds, int clusteringCommits, int hotCommits, int hotMinutes) {
    /** A demo day of {@link DemoWriter#BATCHES_PER_DAY} batches lasts a minute: days left a minute ago are cold. */
    static final Pace DEMO = new Pace(5, 10, 10, 1);
  }

  static String demoConfiguration(Path table, int port) {
    return demoConfiguration(table, port, port + 1, Pace.DEMO);
  }

  static String demoConfiguration(Path table, int port, int adminPort, Pace pace) {
    return """
        server:
          applicationConnectors:
            - type: http
              port: %d
          adminConnectors:
            - type: http
              port: %d
        logging:
          level: WARN
          loggers:
            io.huditsd: INFO
            # Hudi logs its own "no live heartbeat" check before every compaction at WARN.
            org.apache.hudi.client.heartbeat.HoodieHeartbeatClient: ERROR
            # The demo writer's first commit adds the metadata table's partition to hoodie.properties, which Hudi
            # logs at WARN with the whole file.
            org.apache.hudi.common.table.HoodieTableConfig: ERROR
            # "Unable to load native-hadoop library": nobody acts on it.
            org.apache.hadoop.util.NativeCodeLoader: ERROR
        history:
          file: %s
        polling:
          interval: %ds
        workers:
          count: 2
          retryBackoff: 5s
          heartbeatInterval: 5s
        tables:
          - path: %s
            id: demo_mor
        hoodie:
          # How the demo writer renews its commits' heartbeat: the daemon judges a writer commit failed once its
          # heartbeat is older than interval * misses (15 s).
          hoodie.client.heartbeat.interval_in_ms: "5000"
          hoodie.client.heartbeat.tolerable.misses: "3"
          hoodie.compact.inline.max.delta.commits: "3"
          hoodie.clustering.inline.max.commits: "%d"
          hoodie.clean.commits.retained: "3"
          hoodie.keep.min.commits: "5"
          hoodie.keep.max.commits: "8"
          # A demo day lasts a minute: days the writer left a minute ago are cold and get clustered.
          hoodie.clustering.plan.strategy.hot.commits: "%d"
          hoodie.clustering.plan.strategy.hot.minutes: "%d"
        """.formatted(port, adminPort, table.getParent().getParent().resolve("history.jsonl"), pace.pollSeconds(),
        table, pace.clusteringCommits(), pace.hotCommits(), pace.hotMinutes());
  }
}
