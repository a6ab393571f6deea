package io.huditsd.api;

import io.huditsd.config.HeartbeatSettings;
import io.huditsd.config.MetadataIndexes;
import io.huditsd.config.ServiceType;
import io.huditsd.config.ServicedTable;
import io.huditsd.executors.ActionResult;
import io.huditsd.executors.HudiTables;
import io.huditsd.executors.LocalTables;
import io.huditsd.executors.RunListener;
import io.huditsd.executors.WorkerPool;
import io.huditsd.scheduler.DuePlanner;
import io.huditsd.scheduler.PollObserver;
import io.huditsd.scheduler.TablePoller;
import io.huditsd.scheduler.TableState;
import io.huditsd.testing.s3.S3MockServer;
import io.huditsd.testing.s3.ThrottlingProxy;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.FileUtil;
import org.apache.hadoop.fs.Path;
import org.apache.hudi.common.model.HoodieTableType;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A table whose default S3 storage lock sits on a store that ignores conditional writes is refused at its poll, with
 * the reason as its {@code lastError} (what REST shows), while a table on a store that honours them is polled as
 * before: S3Mock for both, the first bucket reached through a proxy that drops {@code If-None-Match} and
 * {@code If-Match}.
 */
class TestS3LockRefusal {
  @TempDir
  static java.nio.file.Path directory;
  private static S3MockServer s3;
  private static ThrottlingProxy ignoring;
  private static Configuration hadoopConfiguration;

  @BeforeAll
  static void startS3() {
    s3 = S3MockServer.start(directory.resolve("s3"), "plain", "ignoring");
    ignoring = ThrottlingProxy.start(s3.endpoint());
    ignoring.dropConditionalHeaders(true);
    hadoopConfiguration = HudiTables.defaultHadoopConfiguration();
    s3.s3aProperties().forEach(hadoopConfiguration::set);
    hadoopConfiguration.set("fs.s3a.bucket.ignoring.endpoint", ignoring.endpoint());
  }

  @AfterAll
  static void stopS3() throws IOException {
    FileSystem.closeAll();
    ignoring.close();
    s3.close();
  }

  /** A MOR table with one commit, written locally and copied to {@code s3a://bucket/name}, no lock configured. */
  private static ServicedTable s3Table(String bucket, String name) throws IOException {
    LocalTables local = new LocalTables();
    ServicedTable written = local.create(directory.resolve(bucket + "-" + name), HoodieTableType.MERGE_ON_READ, 9,
        Map.of());
    local.upsert(written, 0, 10, 1);
    Path target = new Path("s3a://" + bucket + "/" + name);
    FileUtil.copy(FileSystem.getLocal(hadoopConfiguration), new Path(written.basePath()),
        target.getFileSystem(hadoopConfiguration), target, false, hadoopConfiguration);
    return new ServicedTable(name, target.toString(), Set.of(ServiceType.values()), Duration.ofSeconds(30), Map.of(),
        MetadataIndexes.none());
  }

  @Test
  void theTableOnAStoreThatIgnoresConditionalWritesIsRefusedAndTheOtherIsPolled() throws Exception {
    ServicedTable refused = s3Table("ignoring", "orders");
    ServicedTable serviced = s3Table("plain", "customers");
    TableState refusedState = new TableState(refused);
    TableState servicedState = new TableState(serviced);
    try (WorkerPool pool = new WorkerPool(1, 1, Duration.ZERO,
        item -> new ActionResult(item.service(), item.instant(), 0, 0, 0, Duration.ZERO), RunListener.NONE)) {
      HudiTables tables = new HudiTables(hadoopConfiguration, new HeartbeatSettings(60_000, 2));
      TablePoller poller = new TablePoller(tables, hadoopConfiguration, new DuePlanner(tables, pool),
          Duration.ofMinutes(5), TablePoller.Backlog.READ, PollObserver.NONE, tableId -> true, Clock.systemUTC());

      assertThat(poller.poll(refusedState, false)).isEqualTo(TablePoller.Result.FAILED);
      assertThat(poller.poll(servicedState, false)).isEqualTo(TablePoller.Result.PLANNED);

      assertThat(refusedState.snapshot().consecutiveFailures()).isEqualTo(1);
      assertThat(refusedState.snapshot().lastError()).hasValueSatisfying(error -> assertThat(error)
          .startsWith(refused.basePath() + ": NoTableLockException: the store at " + ignoring.endpoint()
              + " bucket ignoring ignores If-None-Match/If-Match conditional writes (it answered 200 to a second"
              + " create with If-None-Match: *")
          .contains("so the S3 storage lock of " + refused.basePath() + " cannot exclude other writers")
          .endsWith("Configure a ZooKeeper lock for this table, the one its writers use:"
              + " hoodie.write.lock.provider=org.apache.hudi.client.transaction.lock.ZookeeperBasedLockProvider"
              + " with hoodie.write.lock.zookeeper.url and hoodie.write.lock.zookeeper.base_path"));
      assertThat(servicedState.snapshot().consecutiveFailures()).isZero();
      assertThat(servicedState.snapshot().lastError()).isEmpty();
    }
  }
}
