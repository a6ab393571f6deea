package io.huditsd.lock;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.KillSession;
import org.apache.curator.test.TestingServer;
import org.apache.hudi.client.transaction.lock.ZookeeperBasedLockProvider;
import org.apache.hudi.common.config.LockConfiguration;
import org.apache.hudi.common.config.TypedProperties;
import org.apache.hudi.exception.HoodieLockException;
import org.apache.hudi.storage.hadoop.HadoopStorageConfiguration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * The daemon's ZooKeeper lock against Hudi's own provider, on a real ZooKeeper server (Curator's TestingServer):
 * Hudi's provider works with Curator 5.9, both take the same znode, they exclude each other within one JVM and
 * across JVMs, and a hold interrupted by an expired session or a stopped server is refused before a write.
 */
class TestZookeeperLocks {
  private static final String BASE_PATH = "/hudi/locks";
  private static final String LOCK_KEY = "orders";
  private static final Duration CHILD = Duration.ofSeconds(60);

  private TestingServer server;

  @BeforeEach
  void startServer() throws Exception {
    // tickTime 500 ms: ZooKeeper accepts session timeouts from 1 s to 10 s.
    server = new TestingServer(new InstanceSpec(null, -1, -1, -1, true, -1, 500, -1), true);
  }

  @AfterEach
  void stopServer() throws Exception {
    ZookeeperClients.closeAll();
    server.close();
  }

  private LockConfiguration configuration(String sessionTimeoutMs) {
    TypedProperties properties = new TypedProperties();
    properties.setProperty(LockConfiguration.ZK_CONNECT_URL_PROP_KEY, server.getConnectString());
    properties.setProperty(LockConfiguration.ZK_BASE_PATH_PROP_KEY, BASE_PATH);
    properties.setProperty(LockConfiguration.ZK_LOCK_KEY_PROP_KEY, LOCK_KEY);
    properties.setProperty(LockConfiguration.ZK_SESSION_TIMEOUT_MS_PROP_KEY, sessionTimeoutMs);
    properties.setProperty(LockConfiguration.ZK_CONNECTION_TIMEOUT_MS_PROP_KEY, "2000");
    properties.setProperty(LockConfiguration.LOCK_ACQUIRE_NUM_RETRIES_PROP_KEY, "2");
    properties.setProperty(LockConfiguration.LOCK_HOLDER_APP_ID_KEY, "hudi-tsd-test");
    return new LockConfiguration(properties);
  }

  private ZookeeperFencedLockProvider ours() {
    return new ZookeeperFencedLockProvider(configuration("5000"), storage());
  }

  private ZookeeperBasedLockProvider hudis() {
    return new ZookeeperBasedLockProvider(configuration("5000"), storage());
  }

  private static HadoopStorageConfiguration storage() {
    return new HadoopStorageConfiguration(new org.apache.hadoop.conf.Configuration());
  }

  private CuratorFramework observer() {
    CuratorFramework client = CuratorFrameworkFactory.newClient(server.getConnectString(), new RetryOneTime(100));
    client.start();
    return client;
  }

  @Test
  void hudisOwnProviderWorksWithCurator5AndTakesTheSameZnodeAsOurs() throws Exception {
    ZookeeperBasedLockProvider hudi = hudis();
    ZookeeperFencedLockProvider ours = ours();
    try (CuratorFramework observer = observer()) {
      assertThat(hudi.tryLock(2, TimeUnit.SECONDS)).as("Hudi's provider acquires on Curator 5.9").isTrue();
      List<String> hudiNodes = observer.getChildren().forPath(BASE_PATH + "/" + LOCK_KEY);
      assertThat(hudiNodes).hasSize(1);
      byte[] hudiData = observer.getData().forPath(BASE_PATH + "/" + LOCK_KEY + "/" + hudiNodes.get(0));
      hudi.unlock();

      assertThat(ours.tryLock(2, TimeUnit.SECONDS)).isTrue();
      List<String> ourNodes = observer.getChildren().forPath(BASE_PATH + "/" + LOCK_KEY);
      assertThat(ourNodes).as("one lock node under base_path/lock_key, as Hudi's").hasSize(1);
      assertThat(ourNodes.get(0)).as("Curator mutex node name").contains("-lock-");
      byte[] ourData = observer.getData().forPath(BASE_PATH + "/" + LOCK_KEY + "/" + ourNodes.get(0));
      assertThat(new String(ourData, StandardCharsets.UTF_8))
          .isEqualTo(new String(hudiData, StandardCharsets.UTF_8))
          .isEqualTo("application_id=hudi-tsd-test");
      ours.unlock();
      assertThat(observer.getChildren().forPath(BASE_PATH + "/" + LOCK_KEY)).as("nodes after release").isEmpty();
    } finally {
      hudi.close();
      ours.close();
    }
  }

  @Test
  void hudisProviderAndOursExcludeEachOtherInOneJvm() {
    ZookeeperBasedLockProvider hudi = hudis();
    ZookeeperFencedLockProvider ours = ours();
    try {
      assertThat(hudi.tryLock(2, TimeUnit.SECONDS)).isTrue();
      assertThat(ours.tryLock(300, TimeUnit.MILLISECONDS)).as("ours while Hudi's holds").isFalse();
      hudi.unlock();
      assertThat(ours.tryLock(2, TimeUnit.SECONDS)).as("ours after Hudi's released").isTrue();
      // Hudi's provider reports a timed-out wait by throwing.
      assertThatThrownBy(() -> hudi.tryLock(300, TimeUnit.MILLISECONDS)).isInstanceOf(HoodieLockException.class);
      ours.unlock();
      assertThat(hudi.tryLock(2, TimeUnit.SECONDS)).as("Hudi's after ours released").isTrue();
      hudi.unlock();
    } finally {
      hudi.close();
      ours.close();
    }
  }

  @Test
  void hudisProviderInAnotherJvmAndOursExcludeEachOther() throws Exception {
    ZookeeperFencedLockProvider ours = ours();
    try (ChildJvm writer = ChildJvm.start("zk-writer", HudiZookeeperLockHolder.class, server.getConnectString(),
        BASE_PATH, LOCK_KEY, "4000")) {
      assertThat(writer.next(CHILD)).isEqualTo("READY");
      assertThat(writer.ask("lock 5000", CHILD)).isEqualTo("ACQUIRED");
      assertThat(ours.tryLock(500, TimeUnit.MILLISECONDS)).as("ours while the writer holds").isFalse();
      assertThat(writer.ask("unlock", CHILD)).isEqualTo("RELEASED");
      assertThat(ours.tryLock(5, TimeUnit.SECONDS)).as("ours after the writer released").isTrue();
      assertThat(writer.ask("lock 500", CHILD)).as("the writer while ours holds").isEqualTo("NOT_ACQUIRED");
      ours.unlock();
      assertThat(writer.ask("lock 5000", CHILD)).as("the writer after ours released").isEqualTo("ACQUIRED");

      // SIGKILL of the holder: its node lives on until its session expires (4 s), then ours gets the lock.
      writer.kill();
      assertThat(ours.tryLock(100, TimeUnit.MILLISECONDS)).as("ours right after the holder was killed").isFalse();
      assertThat(ours.tryLock(30, TimeUnit.SECONDS)).as("ours once the killed holder's session expired").isTrue();
      ours.checkStillHeld("a test write");
      ours.unlock();
    } finally {
      ours.close();
    }
  }

  @Test
  void anExpiredSessionMakesTheHolderRefuseToWriteAndFreesTheLock() throws Exception {
    ZookeeperFencedLockProvider ours = ours();
    ZookeeperBasedLockProvider hudi = hudis();
    try {
      assertThat(ours.tryLock(2, TimeUnit.SECONDS)).isTrue();
      ours.checkStillHeld("the commit");
      CuratorFramework shared = ours.client();
      KillSession.kill(shared.getZookeeperClient().getZooKeeper());

      await().atMost(Duration.ofSeconds(30)).untilAsserted(() ->
          assertThatThrownBy(() -> ours.checkStillHeld("the commit of 20260101000000000"))
              .isInstanceOf(LockLostException.class)
              .hasMessageStartingWith("Refusing to write the commit of 20260101000000000: the ZooKeeper lock "
                  + BASE_PATH + "/" + LOCK_KEY + " is no longer held ("));
      assertThat(hudi.tryLock(10, TimeUnit.SECONDS)).as("another process gets the lock the expired session held")
          .isTrue();
      // Still refused after the client reconnected with a new session: the hold is not trusted again.
      await().atMost(Duration.ofSeconds(30)).until(() -> shared.getZookeeperClient().isConnected());
      assertThatThrownBy(() -> ours.checkStillHeld("the commit")).isInstanceOf(LockLostException.class);
      ours.unlock();
      hudi.unlock();
      assertThat(ours.tryLock(5, TimeUnit.SECONDS)).as("a new hold after the loss").isTrue();
      ours.checkStillHeld("the commit");
      ours.unlock();
    } finally {
      ours.close();
      hudi.close();
    }
  }

  @Test
  void aStoppedServerMakesTheHolderRefuseToWriteAndARestartedOneGrantsTheLockAgain() throws Exception {
    ZookeeperFencedLockProvider ours = ours();
    try {
      assertThat(ours.tryLock(2, TimeUnit.SECONDS)).isTrue();
      server.stop();
      await().atMost(Duration.ofSeconds(30)).untilAsserted(() ->
          assertThatThrownBy(() -> ours.checkStillHeld("the commit"))
              .isInstanceOf(LockLostException.class)
              .hasMessageContaining("SUSPENDED"));
      ours.unlock();
      server.restart();
      // The session may expire just as the server comes back (Curator injects the expiry once the session timeout
      // passed while SUSPENDED): a lock acquired in that moment is refused, rightly, and the next attempt on the new
      // session gets it, as Hudi's lock retries (hoodie.write.lock.num_retries) would.
      // In this thread: Curator's mutex is held per thread.
      await("the lock after the server came back").atMost(Duration.ofSeconds(60)).pollInSameThread()
          .until(() -> ours.tryLock(5, TimeUnit.SECONDS));
      ours.checkStillHeld("the commit");
      ours.unlock();
    } finally {
      ours.close();
    }
  }

  @Test
  void aReleasedLockIsNotCheckedAndAPortIsAppendedToHostsWithout() {
    ZookeeperFencedLockProvider ours = ours();
    ours.checkStillHeld("nothing under a lock");
    ours.close();
    assertThat(ZookeeperFencedLockProvider.connectString("zk1,zk2", "2182")).isEqualTo("zk1:2182,zk2:2182");
    assertThat(ZookeeperFencedLockProvider.connectString("zk1:2181", "2182")).isEqualTo("zk1:2181");
    assertThat(ZookeeperFencedLockProvider.connectString("zk1", null)).isEqualTo("zk1");
  }
}
