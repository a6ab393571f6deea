package io.huditsd.it.support;

import org.apache.curator.test.TestingServer;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Hudi's {@code ZookeeperBasedLockProvider} keys for a test's ZooKeeper, the same in a Spark writer's options and in
 * the daemon's {@code hoodie:} (the port key separately too, which Hudi's 0.x provider requires).
 */
public final class ZookeeperLockKeys {
  private ZookeeperLockKeys() {
  }

  public static Map<String, String> of(TestingServer zookeeper, String lockBasePath) {
    Map<String, String> keys = new LinkedHashMap<>();
    keys.put("hoodie.write.lock.provider", "org.apache.hudi.client.transaction.lock.ZookeeperBasedLockProvider");
    keys.put("hoodie.write.lock.zookeeper.url", zookeeper.getConnectString());
    keys.put("hoodie.write.lock.zookeeper.port", Integer.toString(zookeeper.getPort()));
    keys.put("hoodie.write.lock.zookeeper.base_path", lockBasePath);
    keys.put("hoodie.write.lock.zookeeper.session_timeout_ms", "10000");
    keys.put("hoodie.write.lock.zookeeper.connection_timeout_ms", "5000");
    return keys;
  }
}
