package io.huditsd.it;

import io.huditsd.it.support.DaemonApi;
import io.huditsd.it.support.DaemonYaml;
import io.huditsd.it.support.InflightPlans;
import io.huditsd.it.support.RowDiff;
import io.huditsd.it.support.TableReader;
import io.huditsd.it.support.TableReader.Listing;
import io.huditsd.it.support.TrackedTable;
import io.huditsd.it.support.Tsd;
import io.huditsd.it.support.ZookeeperWriter;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.curator.retry.RetryOneTime;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingServer;
import org.apache.hudi.common.model.HoodieTableType;
import org.apache.hudi.common.table.timeline.HoodieInstant;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import static io.huditsd.it.support.TrackedTable.rows;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Two replicas share a table through a real ZooKeeper server (Curator's TestingServer, in this JVM), with Hudi's
 * ZooKeeper table lock. Both list the table with the same owner; the owner is killed with SIGKILL in mid-compaction
 * (its files written, its commit waiting for the table lock, which the test holds as a committing writer would);
 * the other replica takes the table over once the dead session expired and completes the same compaction once;
 * readers see exactly the rows written. Then ZooKeeper itself restarts: the survivor owns the table again and
 * compacts new writes under the lock.
 */
class HaFailoverIT {
  private static final String TABLE = "shared";
  private static final String LOCKS = "/hudi/locks";
  private static final int ROWS = 9_000;

  @Test
  void theSurvivorTakesOverAKilledOwnersTableAndCompletesItsCompactionOnce() throws Exception {
    Path work = Tsd.workDirectory("HaFailoverIT");
    Path basePath = work.resolve("mor");
    try (TestingServer zookeeper = new TestingServer(new InstanceSpec(null, -1, -1, -1, true, -1, 500, -1), true)) {
      Map<String, String> writerKeys = new HashMap<>(TrackedTable.MOR_WRITER_KEYS);
      writerKeys.putAll(ZookeeperWriter.lockKeys(zookeeper.getConnectString(), LOCKS));
      try (TrackedTable table = TrackedTable.create(basePath, HoodieTableType.MERGE_ON_READ, 9, writerKeys)) {
        for (int commit = 0; commit < 3; commit++) {
          table.insert(rows(commit * 3_000, (commit + 1) * 3_000, 1_000, "v1"));
        }
        table.upsert(rows(0, ROWS, 2_000, "v2"));
        table.upsert(rows(300, ROWS, 3_000, "v3"));

        Map<String, Integer> ports = Map.of("r1", DaemonApi.freePort(), "r2", DaemonApi.freePort());
        Map<String, Integer> adminPorts = Map.of("r1", DaemonApi.freePort(), "r2", DaemonApi.freePort());
        for (String replica : ports.keySet()) {
          Files.writeString(work.resolve(replica + ".yml"), configuration(replica, basePath, ports.get(replica),
              adminPorts.get(replica), zookeeper.getConnectString()));
        }
        try (Tsd.Running r1 = Tsd.startDaemon(work.resolve("r1"), "server", work.resolve("r1.yml").toString());
             Tsd.Running r2 = Tsd.startDaemon(work.resolve("r2"), "server", work.resolve("r2.yml").toString())) {
          Map<String, Tsd.Running> processes = Map.of("r1", r1, "r2", r2);
          String compaction = await("a replica starting a compaction; logs in " + work)
              .atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(10))
              .until(() -> InflightPlans.inflight(basePath, InflightPlans.COMPACTION), Optional::isPresent)
              .orElseThrow();
          String owner;
          // The test takes the writers' table lock, as a writer committing would: the compaction writes its files
          // and then waits for the lock to commit, so the kill lands in mid-compaction however fast it writes.
          try (WriterLock ignored = WriterLock.take(zookeeper.getConnectString(), LOCKS)) {
            assertThat(completedCompactions(new TableReader(basePath.toString())))
                .as("compaction %s completed before the test held the table lock", compaction)
                .doesNotContain(compaction);
            await("compaction " + compaction + " writing its files; logs in " + work)
                .atMost(Duration.ofMinutes(1)).pollInterval(Duration.ofMillis(50))
                .until(() -> InflightPlans.writingFiles(basePath, InflightPlans.COMPACTION), Optional::isPresent);
            owner = await("a replica naming the table's owner").atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofMillis(20)).ignoreExceptions()
                .until(() -> anyOwner(ports.values()), Optional::isPresent).orElseThrow();
            processes.get(owner).kill();
          }
          String survivor = owner.equals("r1") ? "r2" : "r1";
          assertThat(new TableReader(basePath.toString()).metaClient().getActiveTimeline()
              .filterPendingCompactionTimeline().getInstants())
              .as("compaction %s still pending after the kill of %s", compaction, owner)
              .extracting(HoodieInstant::requestedTime).containsExactly(compaction);

          DaemonApi survivorApi = new DaemonApi(ports.get(survivor));
          await("replica " + survivor + " owns the table after " + owner + " was killed; its log "
              + processes.get(survivor).logs() + ".out")
              .atMost(Duration.ofMinutes(1)).pollInterval(Duration.ofMillis(250))
              .untilAsserted(() -> assertThat(survivorApi.tables()).singleElement()
                  .satisfies(view -> assertThat(view).containsEntry("owner", survivor)));
          TableReader reader = new TableReader(basePath.toString());
          await("compaction " + compaction + " completed by " + survivor)
              .atMost(Duration.ofMinutes(3)).pollInterval(Duration.ofMillis(500))
              .until(() -> completedCompactions(reader).contains(compaction));
          assertThat(completedCompactions(reader)).as("completed compactions").containsExactly(compaction);
          RowDiff.assertSameRows("snapshot after the failover", table.expected().rows(),
              reader.snapshot(Listing.STORAGE));
          RowDiff.assertSameRows("read-optimized after the failover", table.expected().rows(),
              reader.readOptimized(Listing.METADATA_TABLE));
          String metrics = DaemonApi.metrics(adminPorts.get(survivor));
          assertThat(metrics).as("metrics of %s", survivor)
              .contains("tsd_table_owned{table=\"" + TABLE + "\"} 1.0")
              .containsPattern("tsd_ownership_changes_total [1-9]");

          // ZooKeeper restarts: the survivor owns the table again and compacts new writes under the lock.
          zookeeper.restart();
          await("replica " + survivor + " owns the table after ZooKeeper restarted")
              .atMost(Duration.ofMinutes(1)).pollInterval(Duration.ofMillis(250)).ignoreExceptions()
              .untilAsserted(() -> assertThat(DaemonApi.metrics(adminPorts.get(survivor)))
                  .contains("tsd_table_owned{table=\"" + TABLE + "\"} 1.0"));
          table.upsert(rows(0, 3_000, 4_000, "v4"));
          table.upsert(rows(3_000, 6_000, 4_000, "v4"));
          await("a second compaction after the ZooKeeper restart")
              .atMost(Duration.ofMinutes(3)).pollInterval(Duration.ofMillis(500))
              .until(() -> completedCompactions(reader).size() == 2);
          assertThat(reader.metaClient().getActiveTimeline().filterPendingCompactionTimeline().getInstants())
              .as("pending compactions").isEmpty();
          RowDiff.assertSameRows("snapshot after the ZooKeeper restart", table.expected().rows(),
              reader.snapshot(Listing.STORAGE));
        }
      }
    }
  }

  /**
   * The writers' table lock, taken as Hudi's {@code ZookeeperBasedLockProvider} takes it: Curator's
   * {@code InterProcessMutex} on the lock node under {@code lockBasePath} (the table's, which its writer created).
   */
  private record WriterLock(CuratorFramework client, InterProcessMutex mutex) implements AutoCloseable {
    static WriterLock take(String connectString, String lockBasePath) throws Exception {
      CuratorFramework client = CuratorFrameworkFactory.newClient(connectString, new RetryOneTime(100));
      client.start();
      try {
        assertThat(client.blockUntilConnected(30, TimeUnit.SECONDS)).as("connected to ZooKeeper").isTrue();
        List<String> locks = client.getChildren().forPath(lockBasePath);
        assertThat(locks).as("table locks under %s", lockBasePath).hasSize(1);
        InterProcessMutex mutex = new InterProcessMutex(client, lockBasePath + "/" + locks.get(0));
        assertThat(mutex.acquire(60, TimeUnit.SECONDS)).as("the table lock taken within 60 s").isTrue();
        return new WriterLock(client, mutex);
      } catch (Exception | AssertionError e) {
        client.close();
        throw e;
      }
    }

    @Override
    public void close() throws Exception {
      try {
        mutex.release();
      } finally {
        client.close();
      }
    }
  }

  /** The owner named by the first replica that answers and names one. */
  private static Optional<String> anyOwner(java.util.Collection<Integer> ports) {
    for (int port : ports) {
      try {
        List<Map<String, Object>> tables = new DaemonApi(port).tables();
        if (tables.size() == 1 && tables.get(0).get("owner") != null) {
          return Optional.of((String) tables.get(0).get("owner"));
        }
      } catch (RuntimeException e) {
        // Not up yet.
      }
    }
    return Optional.empty();
  }

  private static List<String> completedCompactions(TableReader reader) {
    return reader.metaClient().getActiveTimeline().getCommitTimeline().filterCompletedInstants()
        .getInstantsAsStream().map(HoodieInstant::requestedTime).toList();
  }

  private static String configuration(String replica, Path basePath, int port, int adminPort, String zookeeper) {
    return DaemonYaml.serverAndLogging(port, adminPort) + """
        ha:
          zookeeper: "%s"
          replicaId: %s
          sessionTimeout: 4s
        polling:
          interval: 1s
          maxBackoff: 5s
        workers:
          count: 2
          retryBackoff: 1s
          heartbeatInterval: 1s
          heartbeatTolerableMisses: 1
        services: [compaction]
        tables:
          - path: %s
            id: %s
        hoodie:
          hoodie.compact.inline.max.delta.commits: "2"
          hoodie.write.lock.provider: org.apache.hudi.client.transaction.lock.ZookeeperBasedLockProvider
          hoodie.write.lock.zookeeper.url: "%s"
          hoodie.write.lock.zookeeper.base_path: %s
          hoodie.write.lock.zookeeper.session_timeout_ms: "10000"
        """.formatted(zookeeper, replica, basePath, TABLE, zookeeper, LOCKS);
  }
}
