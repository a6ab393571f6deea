package io.huditsd.it;

import io.huditsd.it.support.DaemonApi;
import io.huditsd.it.support.DaemonYaml;
import io.huditsd.it.support.DyingWriter;
import io.huditsd.it.support.RowDiff;
import io.huditsd.it.support.TableReader;
import io.huditsd.it.support.TableReader.Listing;
import io.huditsd.it.support.TrackedTable;
import io.huditsd.it.support.Tsd;
import io.huditsd.it.support.ZookeeperWriter;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingServer;
import org.apache.hudi.common.model.HoodieTableType;
import org.apache.hudi.common.table.timeline.HoodieInstant;
import org.awaitility.core.ConditionFactory;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;

import static io.huditsd.it.support.TrackedTable.rows;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A writer in its own JVM is killed with SIGKILL mid-commit (files written, instant inflight, heartbeat renewed every
 * second until the kill) while the daemon services the table; another writer goes on committing. With the LAZY
 * failed-writes policy only a clean rolls the dead write back, and Hudi's clean planner never retains past it, so
 * without the daemon's own rollback every clean plan stays empty and the first commit's file slices stay on storage
 * for good. The daemon must leave the write alone while its heartbeat lives, roll it back once it expired (10 s
 * here), and its next cleans must delete the old slices. Rows read back equal the model of the committed writes.
 */
class FailedWriteIT {
  private static final String LOCKS = "/hudi/locks";
  private static final int KEYS = 300;
  /** Upserts after the kill: on MOR enough for two compactions, so the first slice is no longer retained. */
  private static final int LATER_UPSERTS = 6;

  @ParameterizedTest
  @EnumSource(HoodieTableType.class)
  void aWriterKilledMidCommitIsRolledBackOnceItsHeartbeatExpiredAndCleaningGoesOn(HoodieTableType type)
      throws Exception {
    Path work = Tsd.workDirectory("FailedWriteIT/" + type);
    Path basePath = work.resolve(type == HoodieTableType.MERGE_ON_READ ? "killed_mor" : "killed_cow");
    try (TestingServer zookeeper = new TestingServer(new InstanceSpec(null, -1, -1, -1, true, -1, 500, -1), true)) {
      Map<String, String> writerKeys = new HashMap<>(ZookeeperWriter.lockKeys(zookeeper.getConnectString(), LOCKS));
      // The live writer renews its heartbeat as often as the dying one, as the daemon's hoodie keys say: the daemon
      // judges writer commits by the writers' heartbeat window (10 s here), so a writer renewing less often than
      // declared would see a slow upsert rolled back under it.
      writerKeys.put("hoodie.client.heartbeat.interval_in_ms", DyingWriter.HEARTBEAT_INTERVAL_MS);
      if (type == HoodieTableType.MERGE_ON_READ) {
        writerKeys.putAll(TrackedTable.MOR_WRITER_KEYS);
      }
      TableReader reader = new TableReader(basePath.toString());
      try (TrackedTable table = TrackedTable.create(basePath, type, 9, writerKeys)) {
        String first = table.insert(rows(0, KEYS, 1_000, "v1"));
        int port = DaemonApi.freePort();
        int adminPort = DaemonApi.freePort();
        Path config = work.resolve("tsd.yml");
        Files.writeString(config, configuration(basePath, type, port, adminPort, zookeeper.getConnectString()));
        try (Tsd.Running daemon = Tsd.startDaemon(work.resolve("daemon"), "server", config.toString())) {
          String failed;
          try (Tsd.Running writer = Tsd.startMain(work.resolve("dying-writer"), DyingWriter.class,
              basePath.toString(), type.name(), zookeeper.getConnectString(), LOCKS, "0", Integer.toString(KEYS),
              "1500")) {
            failed = awaitIgnoringWriterThreads("the dying writer's files; its log " + writer.logs() + ".out")
                .atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(200))
                .until(() -> written(writer.stdout()), Optional::isPresent).orElseThrow();
            // The daemon polls the table the write changed; the writer's heartbeat lives, so the write stays.
            awaitIgnoringWriterThreads("the live write left alone; daemon log " + daemon.logs() + ".out")
                .during(Duration.ofSeconds(3)).atMost(Duration.ofSeconds(10))
                .until(() -> pendingWriterInstants(reader).contains(failed));
            writer.kill();
          }
          assertThat(pendingWriterInstants(reader)).as("pending writer instants after the kill").contains(failed);
          assertThat(filesWrittenBy(basePath, failed)).as("files of the killed write").isNotEmpty();

          for (int n = 2; n < 2 + LATER_UPSERTS; n++) {
            table.upsert(rows(0, KEYS, n * 1_000L, "v" + n));
          }

          withDaemonLog(daemon, () -> awaitIgnoringWriterThreads("the killed write rolled back; daemon log "
              + daemon.logs() + ".out")
              .atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(500))
              .untilAsserted(() -> {
                // The instant, its files and the rollback's completion are separate steps of one rollback.
                assertThat(pendingWriterInstants(reader)).as("pending writer instants").doesNotContain(failed);
                assertThat(reader.metaClient().getActiveTimeline().getRollbackTimeline().filterCompletedInstants()
                    .countInstants()).as("completed rollbacks").isPositive();
                assertThat(filesWrittenBy(basePath, failed)).as("files of the killed write").isEmpty();
              }));
          withDaemonLog(daemon, () -> awaitIgnoringWriterThreads("the first commit's file slices cleaned; daemon log "
              + daemon.logs() + ".out")
              .atMost(Duration.ofMinutes(3)).pollInterval(Duration.ofMillis(500))
              .untilAsserted(() -> {
                assertThat(filesWrittenBy(basePath, first))
                    .as("files written by the first commit %s", first).isEmpty();
                // A clean deletes its files before it completes its instant: wait for both.
                assertThat(reader.metaClient().getActiveTimeline().getCleanerTimeline().filterCompletedInstants()
                    .countInstants()).as("completed cleans").isPositive();
              }));
          String metrics = DaemonApi.metrics(adminPort);
          assertThat(metrics).contains("tsd_failed_writes_pending{table=\"killed\"} 0.0");
          assertThat(daemon.stdout()).as("daemon log").contains("Rolled back failed writes table=killed instants=["
              + failed + "]");
        }
        RowDiff.assertSameRows("snapshot", table.expected().rows(), reader.snapshot(Listing.STORAGE));
        RowDiff.assertSameRows("snapshot listed from the metadata table", table.expected().rows(),
            reader.snapshot(Listing.METADATA_TABLE));
      }
    }
  }

  /**
   * An await that leaves other threads' uncaught exceptions alone. This JVM's own writer renews its heartbeat every
   * second, and a renewal by Hudi 1.2.0's {@code HoodieHeartbeatClient} that runs after {@code stop} removed the
   * heartbeat from the client's map (it removes it before it cancels the timer) dies with a NullPointerException in
   * {@code updateHeartbeat} on the timer thread, harmless since the heartbeat was stopped. Awaitility reports any
   * thread's uncaught exception as the awaiting test's failure by default (a CI run failed so); this test judges the
   * daemon, which runs in its own JVM, by the table and the daemon's log.
   */
  private static ConditionFactory awaitIgnoringWriterThreads(String alias) {
    return await(alias).dontCatchUncaughtExceptions();
  }

  /**
   * Runs {@code wait}; if it times out, fails with the daemon's last log lines and its threads (CI keeps no file of
   * a run).
   */
  private static void withDaemonLog(Tsd.Running daemon, Runnable wait) {
    try {
      wait.run();
    } catch (ConditionTimeoutException e) {
      throw new AssertionError(e.getMessage() + "\n" + daemon.logTail() + "\n--- daemon threads ---\n"
          + daemon.threadDump(), e);
    }
  }

  private static Optional<String> written(String stdout) {
    return stdout.lines().filter(line -> line.startsWith(">> WRITTEN ")).findFirst()
        .map(line -> line.substring(">> WRITTEN ".length()).trim());
  }

  private static List<String> pendingWriterInstants(TableReader reader) {
    return reader.metaClient().getActiveTimeline().getCommitsTimeline().filterPendingExcludingCompaction()
        .getInstantsAsStream().map(HoodieInstant::requestedTime).toList();
  }

  /** Data files (base and log) under the table's partitions whose names carry {@code instant}. */
  private static List<String> filesWrittenBy(Path basePath, String instant) {
    try (Stream<Path> files = Files.walk(basePath)) {
      return files.filter(Files::isRegularFile)
          .filter(file -> !basePath.relativize(file).startsWith(".hoodie"))
          .map(file -> basePath.relativize(file).toString())
          .filter(name -> name.contains(instant))
          .toList();
    } catch (IOException | UncheckedIOException e) {
      // A file vanished while the walk listed the table (the daemon cleans): look again on the next poll.
      return List.of("(listing failed: " + e + ")");
    }
  }

  private static String configuration(Path basePath, HoodieTableType type, int port, int adminPort,
                                      String zookeeper) {
    String services = type == HoodieTableType.MERGE_ON_READ ? "[compaction, clean]" : "[clean]";
    // The writers renew every second and the daemon is told so (hoodie.client.heartbeat.*): ten misses, so a dead
    // writer's commit is judged failed 10 s after its last beat. The daemon's own plans renew every 5 s.
    return DaemonYaml.serverAndLogging(port, adminPort) + """
        polling:
          interval: 1s
          maxBackoff: 5s
        workers:
          count: 2
          retryBackoff: 1s
          heartbeatInterval: 5s
          heartbeatTolerableMisses: 1
        services: %s
        tables:
          - path: %s
            id: killed
        hoodie:
          hoodie.clean.commits.retained: "1"
          hoodie.compact.inline.max.delta.commits: "2"
          hoodie.client.heartbeat.interval_in_ms: "%s"
          hoodie.client.heartbeat.tolerable.misses: "10"
          hoodie.write.lock.provider: org.apache.hudi.client.transaction.lock.ZookeeperBasedLockProvider
          hoodie.write.lock.zookeeper.url: "%s"
          hoodie.write.lock.zookeeper.base_path: %s
        """.formatted(services, basePath, DyingWriter.HEARTBEAT_INTERVAL_MS, zookeeper, LOCKS);
  }
}
