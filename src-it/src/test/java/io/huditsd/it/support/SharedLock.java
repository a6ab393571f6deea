package io.huditsd.it.support;

import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingServer;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooKeeper;

import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The lock a Spark writer and the daemon share on a table: the keys each side is configured with. A test picks one
 * with a single line ({@link #zookeeper()} or {@link #s3Storage()}), and passes {@link #writerKeys()} to the writer
 * and {@link #daemonKeys()} to the daemon's {@code hoodie:} keys.
 */
public interface SharedLock extends AutoCloseable {
  /** What the Spark writer's options add (the lock provider and its settings, optimistic concurrency). */
  Map<String, String> writerKeys();

  /** What the daemon's {@code hoodie:} keys add; empty when the daemon's default lock for the table is the one. */
  Map<String, String> daemonKeys();

  /**
   * Fails unless the lock of the table {@code tableName} at {@code basePath} was taken: its ZooKeeper node, or the
   * lock object {@code .hoodie/.locks/table_lock.json} (Hudi's storage lock releases by marking it expired, not by
   * deleting it).
   */
  void assertTaken(String basePath, String tableName, Configuration hadoop) throws Exception;

  @Override
  void close() throws IOException;

  /**
   * A real ZooKeeper server (curator-test) in this JVM, named explicitly on both sides with Hudi's
   * {@code ZookeeperBasedLockProvider}.
   */
  static SharedLock zookeeper() throws Exception {
    TestingServer server = new TestingServer(new InstanceSpec(null, -1, -1, -1, true, -1, 500, -1), true);
    Map<String, String> keys = new LinkedHashMap<>();
    keys.put("hoodie.write.lock.provider", "org.apache.hudi.client.transaction.lock.ZookeeperBasedLockProvider");
    // Hudi's provider connects to the url alone (it ignores .port); the daemon appends .port to hosts without one.
    keys.put("hoodie.write.lock.zookeeper.url", server.getConnectString());
    keys.put("hoodie.write.lock.zookeeper.port", Integer.toString(server.getPort()));
    keys.put("hoodie.write.lock.zookeeper.base_path", "/hudi/s3-locks");
    keys.put("hoodie.write.lock.zookeeper.session_timeout_ms", "10000");
    keys.put("hoodie.write.lock.zookeeper.connection_timeout_ms", "5000");
    Map<String, String> writer = new LinkedHashMap<>(keys);
    writer.putAll(OPTIMISTIC);
    return new SharedLock() {
      @Override
      public Map<String, String> writerKeys() {
        return Map.copyOf(writer);
      }

      @Override
      public Map<String, String> daemonKeys() {
        return Map.copyOf(keys);
      }

      @Override
      public void assertTaken(String basePath, String tableName, Configuration hadoop) throws Exception {
        String node = "/hudi/s3-locks/" + tableName;
        CountDownLatch connected = new CountDownLatch(1);
        ZooKeeper client = new ZooKeeper(server.getConnectString(), 10_000, event -> {
          if (event.getState() == Watcher.Event.KeeperState.SyncConnected) {
            connected.countDown();
          }
        });
        try {
          assertThat(connected.await(10, TimeUnit.SECONDS)).as("connected to ZooKeeper").isTrue();
          assertThat(client.exists(node, false)).as("ZooKeeper lock node %s", node).isNotNull();
        } finally {
          client.close();
        }
      }

      @Override
      public void close() throws IOException {
        server.close();
      }
    };
  }

  /**
   * The daemon's default lock on s3a tables, {@code io.huditsd.lock.S3StorageLockProvider} (the lock object Hudi's
   * {@code StorageBasedLockProvider} keeps, {@code .hoodie/.locks/table_lock.json}), which the daemon takes unasked;
   * the writer names the same provider from the lock-providers jar beside its Hudi bundle
   * ({@code spark.peer.extra.classes}).
   */
  static SharedLock s3Storage() {
    Map<String, String> writer = new LinkedHashMap<>(OPTIMISTIC);
    writer.put("hoodie.write.lock.provider", "io.huditsd.lock.S3StorageLockProvider");
    return new SharedLock() {
      @Override
      public Map<String, String> writerKeys() {
        return Map.copyOf(writer);
      }

      @Override
      public Map<String, String> daemonKeys() {
        return Map.of();
      }

      @Override
      public void assertTaken(String basePath, String tableName, Configuration hadoop) throws IOException {
        Path lockFile = new Path(basePath, ".hoodie/.locks/table_lock.json");
        assertThat(lockFile.getFileSystem(hadoop).exists(lockFile)).as("the S3 lock object %s", lockFile).isTrue();
      }

      @Override
      public void close() {
      }
    };
  }

  /** A writer that shares its table with a table-services process needs optimistic concurrency and lazy rollback. */
  Map<String, String> OPTIMISTIC = Map.of(
      "hoodie.write.concurrency.mode", "OPTIMISTIC_CONCURRENCY_CONTROL",
      "hoodie.cleaner.policy.failed.writes", "LAZY");
}
