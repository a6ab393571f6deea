package io.huditsd.lock;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.BoundedExponentialBackoffRetry;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One started Curator client per ZooKeeper ensemble and settings, shared by every table lock of the process. Hudi's
 * own provider opens a ZooKeeper session per transaction (its LockManager closes the provider after each unlock);
 * the daemon takes a lock per plan scheduled and committed on every table, so it keeps one session instead. A
 * session lost or expired taints every lock held through it (see {@link ZookeeperFencedLockProvider}).
 */
public final class ZookeeperClients {
  /** What tells two clients apart: the connect string and Hudi's session, connection and retry settings. */
  public record Settings(String connectString, int sessionTimeoutMs, int connectionTimeoutMs, int retryBaseSleepMs,
                         int retryMaxSleepMs, int maxRetries) {
  }

  private static final Map<Settings, CuratorFramework> CLIENTS = new ConcurrentHashMap<>();

  private ZookeeperClients() {
  }

  /** The shared, started client for {@code settings}. */
  public static CuratorFramework get(Settings settings) {
    return CLIENTS.computeIfAbsent(settings, ZookeeperClients::start);
  }

  private static CuratorFramework start(Settings settings) {
    CuratorFramework client = CuratorFrameworkFactory.builder()
        .connectString(settings.connectString())
        .sessionTimeoutMs(settings.sessionTimeoutMs())
        .connectionTimeoutMs(settings.connectionTimeoutMs())
        .retryPolicy(new BoundedExponentialBackoffRetry(settings.retryBaseSleepMs(), settings.retryMaxSleepMs(),
            settings.maxRetries()))
        .build();
    client.start();
    return client;
  }

  /** Closes every shared client (daemon stop, tests); locks still held through them are lost. */
  public static void closeAll() {
    List<CuratorFramework> clients = new ArrayList<>(CLIENTS.values());
    CLIENTS.clear();
    clients.forEach(CuratorFramework::close);
  }
}
