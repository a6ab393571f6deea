package io.huditsd.it;

import io.huditsd.it.support.DaemonApi;
import io.huditsd.it.support.DaemonYaml;
import io.huditsd.it.support.ExpectedRows;
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
import org.apache.hudi.common.table.timeline.HoodieTimeline;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static io.huditsd.it.support.TrackedTable.rows;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A writer in another JVM upserts continuously with Hudi's own ZooKeeper lock while the daemon, configured with the
 * same lock, schedules and runs compactions on the table: compactions complete while the writer commits, no update
 * is lost, and readers see exactly the rows the committed batches imply.
 */
class ConcurrentWriterIT {
  private static final String LOCKS = "/hudi/locks";
  private static final int BATCHES = 12;

  @Test
  void compactionsAlongsideAZookeeperLockedWriterLoseNoUpdate() throws Exception {
    Path work = Tsd.workDirectory("ConcurrentWriterIT");
    Path basePath = work.resolve("mor");
    try (TestingServer zookeeper = new TestingServer(new InstanceSpec(null, -1, -1, -1, true, -1, 500, -1), true)) {
      Map<String, String> writerKeys = new HashMap<>(TrackedTable.MOR_WRITER_KEYS);
      writerKeys.putAll(ZookeeperWriter.lockKeys(zookeeper.getConnectString(), LOCKS));
      ExpectedRows expected;
      try (TrackedTable table = TrackedTable.create(basePath, HoodieTableType.MERGE_ON_READ, 9, writerKeys)) {
        table.insert(rows(0, ZookeeperWriter.KEYS, 1_000, "v1"));
        expected = table.expected();
      }

      int port = DaemonApi.freePort();
      Path config = work.resolve("tsd.yml");
      Files.writeString(config, configuration(basePath, port, DaemonApi.freePort(), zookeeper.getConnectString()));
      TableReader reader = new TableReader(basePath.toString());
      try (Tsd.Running daemon = Tsd.startDaemon(work.resolve("daemon"), "server", config.toString());
           Tsd.Running writer = Tsd.startMain(work.resolve("writer"), ZookeeperWriter.class, basePath.toString(),
               zookeeper.getConnectString(), LOCKS, Integer.toString(BATCHES))) {
        await("the writer's " + BATCHES + " batches; its log " + writer.logs() + ".out, the daemon's "
            + daemon.logs() + ".out")
            .atMost(Duration.ofMinutes(4)).pollInterval(Duration.ofMillis(500))
            .until(() -> writer.stdout().contains(">> DONE"));
        List<String> outcomes = writer.stdout().lines().filter(line -> line.startsWith(">> ")).toList();
        for (int n = 0; n < BATCHES; n++) {
          assertThat(outcomes).as("outcome of batch %d (compaction never conflicts with upserts)", n)
              .contains(">> COMMITTED " + n);
          expected.apply(ZookeeperWriter.batch(n));
        }
        await("no pending compaction and none due (fewer than 3 delta commits since the last); daemon log " + daemon.logs() + ".out")
            .atMost(Duration.ofMinutes(3)).pollInterval(Duration.ofMillis(500))
            .until(() -> {
              HoodieTimeline timeline = reader.metaClient().getActiveTimeline();
              return timeline.filterPendingCompactionTimeline().empty()
                  && timeline.getDeltaCommitTimeline().filterCompletedInstants()
                  .findInstantsAfter(lastCompaction(timeline)).countInstants() < 3;
            });
      }

      HoodieTimeline timeline = reader.metaClient().getActiveTimeline();
      List<HoodieInstant> compactions = timeline.getCommitTimeline().filterCompletedInstants().getInstants();
      List<HoodieInstant> deltaCommits = timeline.getDeltaCommitTimeline().filterCompletedInstants().getInstants();
      assertThat(compactions).as("compactions").hasSizeGreaterThanOrEqualTo(2);
      String firstWriterCommit = deltaCommits.get(1).requestedTime();
      String lastWriterCommit = deltaCommits.get(deltaCommits.size() - 1).requestedTime();
      assertThat(compactions).as("compactions planned while the writer was committing")
          .anySatisfy(compaction -> assertThat(compaction.requestedTime())
              .isGreaterThan(firstWriterCommit).isLessThan(lastWriterCommit));
      assertThat(timeline.filterInflightsAndRequested().getInstants()).as("unfinished instants").isEmpty();
      RowDiff.assertSameRows("snapshot", expected.rows(), reader.snapshot(Listing.STORAGE));
      RowDiff.assertSameRows("snapshot listed from the metadata table", expected.rows(),
          reader.snapshot(Listing.METADATA_TABLE));
    }
  }

  private static String lastCompaction(HoodieTimeline timeline) {
    return timeline.getCommitTimeline().filterCompletedInstants().lastInstant()
        .map(HoodieInstant::requestedTime).orElse("0");
  }

  private static String configuration(Path basePath, int port, int adminPort, String zookeeper) {
    return DaemonYaml.serverAndLogging(port, adminPort) + DaemonYaml.QUICK_POLLING + """
        services: [compaction]
        tables:
          - path: %s
            id: concurrent
        hoodie:
          hoodie.compact.inline.max.delta.commits: "3"
          hoodie.write.lock.provider: org.apache.hudi.client.transaction.lock.ZookeeperBasedLockProvider
          hoodie.write.lock.zookeeper.url: "%s"
          hoodie.write.lock.zookeeper.base_path: %s
        """.formatted(basePath, zookeeper, LOCKS);
  }
}
