package io.huditsd.it;

import io.huditsd.api.demo.SampleRow;
import io.huditsd.it.support.DaemonApi;
import io.huditsd.it.support.DaemonYaml;
import io.huditsd.it.support.PlanLedger;
import io.huditsd.it.support.RowDiff;
import io.huditsd.it.support.TableReader;
import io.huditsd.it.support.TableReader.Listing;
import io.huditsd.it.support.TrackedTable;
import io.huditsd.it.support.Tsd;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingServer;
import org.apache.hudi.common.model.HoodieTableType;
import org.apache.hudi.common.table.HoodieTableMetaClient;
import org.apache.hudi.common.table.timeline.HoodieInstant;
import org.apache.hudi.exception.TableNotFoundException;
import org.apache.zookeeper.ZooKeeper;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalInt;
import java.util.Random;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static io.huditsd.it.support.TrackedTable.rows;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Chaos: the daemon is killed with SIGKILL at a random moment of each service's work, ZooKeeper (the table lock) is
 * stopped and restarted while the daemon holds the lock, and two {@code once} runs overlap; a real Hudi writer writes
 * between trials. After each trial a daemon on the same configuration finishes what was interrupted, and then:
 * the rows equal the writer's model (snapshot, listed on storage and from the metadata table), nothing is pending,
 * the metadata table lists the same latest base files as storage, and no file slice or group was in two plans over
 * the whole run.
 *
 * <p>{@code mvn verify} runs one trial per scenario; {@code bench/chaos.sh} runs {@code -Dchaos.trials=20}. Other
 * properties: {@code chaos.scenarios} (comma-separated subset of {@link Scenario}), {@code chaos.seed}. The table
 * of trials is printed and written to {@code target/it-work/ChaosIT/trials.txt}.
 */
class ChaosIT {
  private static final String LOCKS = "/hudi-tsd-chaos-locks";
  private static final Duration SETTLE = Duration.ofMinutes(4);

  /** What a trial does to the daemon. */
  enum Scenario {
    COMPACTION("compaction", "mor", Map.of()),
    CLUSTERING("clustering", "cow", Map.of("hoodie.clustering.plan.strategy.class",
        "io.huditsd.executors.clustering.HotAwareClusteringPlanStrategy")),
    BINARY_COPY("clustering", "cow", Map.of()),
    CLEAN("clean", "mor", Map.of()),
    ARCHIVE("archive", "mor", Map.of()),
    INDEX("index", "index", Map.of()),
    ZOOKEEPER_RESTART("compaction", "mor", Map.of()),
    OVERLAPPING_ONCE("compaction,clean", "mor", Map.of()),
    OVERLAPPING_ONCE_CLUSTERING("clustering", "cow", Map.of());

    final String services;
    final String table;
    final Map<String, String> keys;

    Scenario(String services, String table, Map<String, String> keys) {
      this.services = services;
      this.table = table;
      this.keys = keys;
    }
  }

  /** One row of the printed table. */
  record Trial(int number, Scenario scenario, String disturbance, String interrupted, List<String> failures) {
    String result() {
      return failures.isEmpty() ? "ok" : "FAILED: " + String.join("; ", failures);
    }
  }

  @Test
  void noKillLosesRowsLeavesPlansOrPlansAFileGroupTwice() throws Exception {
    int trials = Integer.getInteger("chaos.trials", 1);
    long seed = Long.getLong("chaos.seed", System.nanoTime());
    List<Scenario> scenarios = Arrays.stream(System.getProperty("chaos.scenarios",
            Arrays.stream(Scenario.values()).map(Enum::name).collect(Collectors.joining(",")))
        .split(",")).map(String::trim).map(String::toUpperCase).map(Scenario::valueOf).toList();
    Path work = Tsd.workDirectory("ChaosIT");
    Random random = new Random(seed);
    List<Trial> results = new ArrayList<>();
    TrackedTable.deleteRecursively(work.resolve("zookeeper"));
    try (TestingServer zookeeper = new TestingServer(new InstanceSpec(work.resolve("zookeeper").toFile(), -1, -1,
        -1, true, -1, 500, -1), true);
         Tables tables = new Tables(work, lockKeys(zookeeper.getConnectString()))) {
      int number = 0;
      for (int round = 0; round < trials; round++) {
        for (Scenario scenario : scenarios) {
          number++;
          Trial trial = runTrial(number, scenario, tables, zookeeper, random, work.resolve("trial-" + number));
          results.add(trial);
          System.out.println("chaos trial " + number + ": " + scenario + " " + trial.disturbance() + " -> "
              + trial.interrupted() + " -> " + trial.result());
        }
      }
    }
    String table = table(results, seed);
    System.out.println(table);
    Files.writeString(work.resolve("trials.txt"), table);
    assertThat(results).as("chaos trials (seed %d)\n%s", seed, table).allMatch(trial -> trial.failures().isEmpty());
  }

  private static Trial runTrial(int number, Scenario scenario, Tables tables, TestingServer zookeeper, Random random,
                                Path work) throws Exception {
    Files.createDirectories(work);
    TrackedTable table = tables.writeBetweenTrials(scenario, number);
    String disturbance;
    String interrupted;
    int port = DaemonApi.freePort();
    Path config = work.resolve("tsd.yml");
    Files.writeString(config, configuration(scenario, table.basePath(), tables.lockKeys, port));
    List<String> failures = new ArrayList<>();
    switch (scenario) {
      case OVERLAPPING_ONCE, OVERLAPPING_ONCE_CLUSTERING -> {
        String kind = scenario == Scenario.OVERLAPPING_ONCE ? "compaction" : "clustering";
        long before = tables.ledger(table).completed(kind);
        List<String> arguments = new ArrayList<>(List.of("once", "--table", table.basePath(), "--services",
            scenario.services, "--workers", "1"));
        for (Map.Entry<String, String> key : hoodieKeys(scenario, tables.lockKeys).entrySet()) {
          arguments.add("--hoodie-conf");
          arguments.add(key.getKey() + "=" + key.getValue());
        }
        try (Tsd.Running first = Tsd.startDaemon(work.resolve("once-1"), arguments.toArray(String[]::new));
             Tsd.Running second = Tsd.startDaemon(work.resolve("once-2"), arguments.toArray(String[]::new))) {
          OptionalInt firstExit = first.waitFor(SETTLE);
          OptionalInt secondExit = second.waitFor(SETTLE);
          disturbance = "two once runs started together";
          interrupted = "exit codes " + firstExit + ", " + secondExit;
          if (firstExit.orElse(-1) != 0 || secondExit.orElse(-1) != 0) {
            failures.add("once exit codes " + firstExit + " and " + secondExit + "; see " + work);
          }
        }
        failures.addAll(check(tables, table));
        long completed = tables.ledger(table).completed(kind) - before;
        if (completed != 1) {
          failures.add(completed + " " + kind + " plans completed by two overlapping once runs, expected 1");
        }
        return new Trial(number, scenario, disturbance, interrupted, failures);
      }
      case ZOOKEEPER_RESTART -> {
        try (Tsd.Running daemon = Tsd.startDaemon(work.resolve("daemon"), "server", config.toString())) {
          awaitStarted(daemon, scenario);
          boolean held = awaitLockHeld(zookeeper.getConnectString(), Duration.ofSeconds(60));
          interrupted = pending(table.basePath()) + (held ? " (lock held)" : " (lock not seen held)");
          zookeeper.stop();
          // The outage itself: long enough for the daemon's session to notice, shorter than its session timeout.
          Thread.sleep(3_000);
          zookeeper.restart();
          disturbance = "ZooKeeper stopped 3 s";
          failures.addAll(settle(daemon, table, scenario));
          daemon.stop();
        }
      }
      default -> {
        long killAfter = random.nextInt(4_000);
        try (Tsd.Running daemon = Tsd.startDaemon(work.resolve("daemon"), "server", config.toString())) {
          boolean started = awaitStarted(daemon, scenario);
          Thread.sleep(killAfter);
          interrupted = pending(table.basePath());
          daemon.kill();
          disturbance = "kill -9 " + killAfter + " ms after " + (started ? "its run started" : "60 s (no run started)");
        }
        try (Tsd.Running recovery = Tsd.startDaemon(work.resolve("recovery"), "server", config.toString())) {
          failures.addAll(settle(recovery, table, scenario));
          recovery.stop();
        }
      }
    }
    failures.addAll(check(tables, table));
    if (scenario == Scenario.INDEX && !recordIndexBuilt(table)) {
      failures.add("record_index not built after recovery");
    }
    return new Trial(number, scenario, disturbance, interrupted, failures);
  }

  /** Waits until the daemon logs the start of a run of the scenario's service; false after 60 s. */
  private static boolean awaitStarted(Tsd.Running daemon, Scenario scenario) {
    String service = scenario.services.split(",")[0];
    try {
      await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(50))
          .until(() -> daemon.stdout().lines().anyMatch(line -> line.contains("Started table=")
              && line.contains("service=" + service)));
      return true;
    } catch (org.awaitility.core.ConditionTimeoutException e) {
      return false;
    }
  }

  /** Whether some process holds the table lock (a child of the lock znode) within {@code timeout}. */
  private static boolean awaitLockHeld(String connectString, Duration timeout) throws Exception {
    ZooKeeper client = new ZooKeeper(connectString, 10_000, event -> { });
    try {
      long deadline = System.nanoTime() + timeout.toNanos();
      while (System.nanoTime() < deadline) {
        for (String lock : children(client, LOCKS)) {
          if (!children(client, LOCKS + "/" + lock).isEmpty()) {
            return true;
          }
        }
        Thread.sleep(5);
      }
      return false;
    } finally {
      client.close();
    }
  }

  private static List<String> children(ZooKeeper client, String path) throws InterruptedException {
    try {
      return client.getChildren(path, false);
    } catch (org.apache.zookeeper.KeeperException e) {
      return List.of();
    }
  }

  /**
   * Lets {@code daemon} finish what is pending: waits until the daemon serves, nothing is pending on the table, the
   * scenario's work is done ({@link #done}) and the timeline has not changed for 5 s. A failure if that does not
   * happen within {@link #SETTLE}.
   *
   * <p>The 5 s count only from the daemon's start (its recovery of killed plans runs before it serves, and a JVM's
   * start takes about as long on a loaded machine), and the pending instants are read between two listings of the
   * timeline that must agree: a check that listed the timeline before a rollback and read the pending instants after
   * it, with the next plan not yet written, once judged a table settled that its daemon was about to index again.
   */
  private static List<String> settle(Tsd.Running daemon, TrackedTable table, Scenario scenario) {
    String[] last = {""};
    long[] stableSince = {System.nanoTime()};
    try {
      await().atMost(SETTLE).pollInterval(Duration.ofMillis(500)).until(() -> {
        if (!daemon.stdout().contains("hudi-tsd serving")) {
          return false;
        }
        String before = timelineListing(table.basePath());
        boolean idle = pending(table.basePath()).equals("nothing pending") && done(scenario, table);
        String after = timelineListing(table.basePath());
        if (!before.equals(after) || !after.equals(last[0])) {
          last[0] = after;
          stableSince[0] = System.nanoTime();
          return false;
        }
        return idle && Duration.ofNanos(System.nanoTime() - stableSince[0]).toSeconds() >= 5;
      });
      return List.of();
    } catch (org.awaitility.core.ConditionTimeoutException e) {
      return List.of("the daemon did not finish " + scenario + " within " + SETTLE.toMinutes() + " min: "
          + pending(table.basePath()) + (done(scenario, table) ? "" : ", " + scenario + " not done") + "; log "
          + daemon.logs() + ".out");
    }
  }

  /**
   * Whether the scenario's own work is done beyond an empty pending list: an index build that failed is rolled back
   * and planned again a poll later, so between the two nothing is pending and the index is not there yet.
   */
  private static boolean done(Scenario scenario, TrackedTable table) {
    return scenario != Scenario.INDEX || recordIndexBuilt(table);
  }

  /** Whether {@code hoodie.properties} lists record_index as built; false while Hudi rewrites the file. */
  private static boolean recordIndexBuilt(TrackedTable table) {
    try {
      return TrackedTable.hoodieProperties(table.basePath()).getProperty("hoodie.table.metadata.partitions", "")
          .contains("record_index");
    } catch (java.io.UncheckedIOException e) {
      return false;
    }
  }

  /** The invariants after a trial. */
  private static List<String> check(Tables tables, TrackedTable table) {
    List<String> failures = new ArrayList<>();
    String pending = pending(table.basePath());
    if (!pending.equals("nothing pending")) {
      failures.add("left pending: " + pending);
    }
    TableReader reader = new TableReader(table.basePath());
    Map<String, SampleRow> expected = table.expected().rows();
    compare("snapshot listed on storage", expected, () -> reader.snapshot(Listing.STORAGE), failures);
    compare("snapshot listed from the metadata table", expected, () -> reader.snapshot(Listing.METADATA_TABLE),
        failures);
    List<String> fromMetadata = reader.latestBaseFiles(Listing.METADATA_TABLE);
    List<String> onStorage = reader.latestBaseFiles(Listing.STORAGE);
    if (!fromMetadata.equals(onStorage)) {
      failures.add("metadata table out of sync: latest base files " + fromMetadata + " vs on storage " + onStorage);
    }
    failures.addAll(tables.ledger(table).record(reader.metaClient()));
    return failures;
  }

  private static void compare(String what, Map<String, SampleRow> expected,
                              java.util.function.Supplier<Map<String, SampleRow>> read, List<String> failures) {
    try {
      RowDiff.assertSameRows(what, expected, read.get());
    } catch (AssertionError | RuntimeException e) {
      failures.add(e.getMessage().lines().limit(4).collect(Collectors.joining(" | ")));
    }
  }

  /** The table's pending instants, e.g. {@code compaction.INFLIGHT 20261201...}, or "nothing pending". */
  private static String pending(String basePath) {
    HoodieTableMetaClient metaClient = metaClient(basePath);
    List<HoodieInstant> instants = metaClient.getActiveTimeline().filterInflightsAndRequested().getInstants();
    return instants.isEmpty() ? "nothing pending" : instants.stream()
        .map(instant -> instant.getAction() + "." + instant.getState() + " " + instant.requestedTime())
        .collect(Collectors.joining(", "));
  }

  /**
   * A meta client of the table, read again while Hudi rewrites {@code hoodie.properties}: building an index does
   * (the metadata partitions it lists), by writing a backup, deleting the file and writing it anew, and a reader in
   * between finds a file without the table's layout version ("Table does not exist"). Hudi's own readers retry.
   */
  private static HoodieTableMetaClient metaClient(String basePath) {
    return await("a meta client of " + basePath).atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(200))
        .ignoreException(TableNotFoundException.class)
        .until(() -> new TableReader(basePath).metaClient(), Objects::nonNull);
  }

  private static String timelineListing(String basePath) throws IOException {
    Path timeline = Path.of(basePath, ".hoodie", "timeline");
    try (Stream<Path> files = Files.list(Files.isDirectory(timeline) ? timeline : Path.of(basePath, ".hoodie"))) {
      return files.map(file -> file.getFileName().toString()).sorted().collect(Collectors.joining(","));
    }
  }

  private static Map<String, String> lockKeys(String connectString) {
    Map<String, String> keys = new LinkedHashMap<>();
    keys.put("hoodie.write.lock.provider", "org.apache.hudi.client.transaction.lock.ZookeeperBasedLockProvider");
    keys.put("hoodie.write.lock.zookeeper.url", connectString);
    keys.put("hoodie.write.lock.zookeeper.base_path", LOCKS);
    // A killed holder's lock goes with its session; short, so the next trial does not wait long for it.
    keys.put("hoodie.write.lock.zookeeper.session_timeout_ms", "8000");
    keys.put("hoodie.write.lock.zookeeper.connection_timeout_ms", "5000");
    return keys;
  }

  /** Triggers at their lowest, so each trial's service is due after one writer commit, and short retention. */
  private static Map<String, String> hoodieKeys(Scenario scenario, Map<String, String> lockKeys) {
    Map<String, String> keys = new LinkedHashMap<>(lockKeys);
    keys.put("hoodie.compact.inline.max.delta.commits", "1");
    keys.put("hoodie.clustering.inline.max.commits", "1");
    // Every file group was just written: the daemon's default planner would find none cold.
    keys.put("hoodie.clustering.plan.strategy.hot.commits", "0");
    keys.put("hoodie.clustering.plan.strategy.hot.minutes", "0");
    keys.put("hoodie.clean.commits.retained", "1");
    keys.put("hoodie.keep.min.commits", "3");
    keys.put("hoodie.keep.max.commits", "4");
    keys.putAll(scenario.keys);
    return keys;
  }

  private static String configuration(Scenario scenario, String basePath, Map<String, String> lockKeys, int port) {
    StringBuilder yaml = new StringBuilder(DaemonYaml.serverAndLogging(port, DaemonApi.freePort()))
        .append(DaemonYaml.QUICK_POLLING)
        .append("""
              heartbeatInterval: 1s
              heartbeatTolerableMisses: 1
            services: [%s]
            tables:
              - path: %s
                id: chaos
            """.formatted(scenario.services, basePath));
    if (scenario == Scenario.INDEX) {
      yaml.append("indexes:\n  record_index: {}\n");
    }
    yaml.append("hoodie:\n");
    hoodieKeys(scenario, lockKeys).forEach((key, value) -> yaml.append("  ").append(key).append(": \"")
        .append(value).append("\"\n"));
    return yaml.toString();
  }

  private static String table(List<Trial> trials, long seed) {
    StringBuilder text = new StringBuilder("chaos trials (seed " + seed + ")\n")
        .append("| # | scenario | disturbance | interrupted | result |\n|---|---|---|---|---|\n");
    for (Trial trial : trials) {
      text.append("| ").append(trial.number()).append(" | ").append(trial.scenario()).append(" | ")
          .append(trial.disturbance()).append(" | ").append(trial.interrupted()).append(" | ")
          .append(trial.result()).append(" |\n");
    }
    long failed = trials.stream().filter(trial -> !trial.failures().isEmpty()).count();
    return text.append(trials.size() - failed).append(" passed, ").append(failed).append(" failed\n").toString();
  }

  /**
   * The tables of the run and their writer: a MERGE_ON_READ table (compaction, clean, archive, the ZooKeeper and
   * overlapping-once trials) updated and extended between trials, a COPY_ON_WRITE table (clustering) that gets a
   * batch of new small files between trials, and a new small table for each index trial.
   */
  private static final class Tables implements AutoCloseable {
    private final Path work;
    private final Map<String, String> lockKeys;
    private final Map<String, TrackedTable> open = new HashMap<>();
    private final Map<String, PlanLedger> ledgers = new HashMap<>();
    private int nextKey;
    /** Every write gets a higher ts than the last, so each new version of a key wins by event time. */
    private long ts = 1_000;

    Tables(Path work, Map<String, String> lockKeys) {
      this.work = work;
      this.lockKeys = lockKeys;
    }

    PlanLedger ledger(TrackedTable table) {
      return ledgers.computeIfAbsent(table.basePath(), path -> new PlanLedger());
    }

    TrackedTable writeBetweenTrials(Scenario scenario, int trial) throws IOException {
      long ts = ++this.ts;
      switch (scenario.table) {
        case "mor" -> {
          TrackedTable mor = open.get("mor");
          if (mor == null) {
            mor = create("mor", HoodieTableType.MERGE_ON_READ);
            mor.insert(rows(0, 3_000, ts - 1, "v0"));
            nextKey = 3_000;
          }
          // Updates spread over the table, and a few new keys.
          mor.upsert(TrackedTable.concat(
              java.util.stream.IntStream.range(0, 600).map(i -> (i * 5 + trial) % nextKey)
                  .distinct().mapToObj(key -> TrackedTable.row(key, ts, "trial-" + trial)).toList(),
              rows(nextKey, nextKey + 200, ts, "new-" + trial)));
          nextKey += 200;
          return mor;
        }
        case "cow" -> {
          TrackedTable cow = open.get("cow");
          if (cow == null) {
            cow = create("cow", HoodieTableType.COPY_ON_WRITE);
          }
          // New keys only, each batch into new small files: clustering has something to rewrite, and a writer
          // never updates a file group a killed clustering left pending.
          int first = 1_000_000 + trial * 10_000;
          for (int batch = 0; batch < 3; batch++) {
            cow.insert(rows(first + batch * 500, first + (batch + 1) * 500, ts, "cow-" + trial));
          }
          return cow;
        }
        default -> {
          TrackedTable previous = open.remove("index");
          if (previous != null) {
            previous.close();
          }
          TrackedTable index = create("index-" + trial, HoodieTableType.MERGE_ON_READ);
          index.insert(rows(0, 1_500, ts, "v0"));
          index.upsert(rows(0, 500, ++this.ts, "v1"));
          return index;
        }
      }
    }

    private TrackedTable create(String name, HoodieTableType type) throws IOException {
      Map<String, String> writerKeys = new HashMap<>(lockKeys);
      // No small-file packing: on MOR it loses log updates in Hudi 1.2.0's Java writer (TrackedTable), on COW it
      // keeps every batch in new file groups.
      writerKeys.put("hoodie.parquet.small.file.limit", "0");
      TrackedTable table = TrackedTable.create(work.resolve(name), type, 9, writerKeys);
      open.put(name.startsWith("index") ? "index" : name, table);
      return table;
    }

    @Override
    public void close() {
      open.values().forEach(TrackedTable::close);
    }
  }
}
