package io.huditsd.lock;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.framework.state.ConnectionStateListener;
import org.apache.hudi.client.transaction.lock.HoodieInterProcessMutex;
import org.apache.hudi.common.config.LockConfiguration;
import org.apache.hudi.common.config.TypedProperties;
import org.apache.hudi.common.lock.LockProvider;
import org.apache.hudi.common.util.ConfigUtils;
import org.apache.hudi.config.HoodieLockConfig;
import org.apache.hudi.exception.HoodieLockException;
import org.apache.hudi.storage.StorageConfiguration;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Hudi's ZooKeeper table lock with fencing. The lock is the one Hudi's {@code ZookeeperBasedLockProvider} takes, so
 * writers configured with Hudi's provider and the daemon exclude each other: the same keys
 * ({@code hoodie.write.lock.zookeeper.url}, {@code .port}, {@code .base_path}, {@code .lock_key},
 * {@code .session_timeout_ms}, {@code .connection_timeout_ms}), and a Curator {@link InterProcessMutex} on
 * {@code base_path/lock_key} whose node carries {@code application_id=...} as Hudi's does.
 *
 * <p>What Hudi's provider lacks: a holder whose ZooKeeper connection is SUSPENDED or LOST while it holds the lock
 * can no longer be sure it holds it (the session may have expired and another process taken the lock), so the hold
 * is marked lost for good, and {@link #checkStillHeld} refuses the write. A hold that was never interrupted is
 * confirmed with a round trip: the lock node must exist and belong to the current session. That round trip also
 * renews the session on the server, so no other process can get the lock for at least the session timeout after a
 * successful check; the write that follows must finish within it (it is one small file).
 */
public final class ZookeeperFencedLockProvider implements LockProvider<InterProcessMutex>, FencedLock {
  private static final Logger LOG = LoggerFactory.getLogger(ZookeeperFencedLockProvider.class);

  private final CuratorFramework client;
  private final String lockPath;
  private final LockConfiguration lockConfiguration;
  private final AtomicReference<Hold> hold = new AtomicReference<>();

  /** One acquisition: the mutex and whether the connection was interrupted since it was asked for. */
  private static final class Hold implements ConnectionStateListener {
    private final ExposedMutex mutex;
    private volatile String lostBecause;

    private Hold(ExposedMutex mutex) {
      this.mutex = mutex;
    }

    @Override
    public void stateChanged(CuratorFramework client, ConnectionState state) {
      if (state == ConnectionState.SUSPENDED || state == ConnectionState.LOST) {
        // A RECONNECTED later does not undo this: the session may have expired and the lock been taken and
        // released by another process in between, and its node recreated by nobody.
        if (lostBecause == null) {
          lostBecause = "the ZooKeeper connection was " + state + " at " + Instant.now();
        }
      }
    }
  }

  /** Hudi's mutex (same node data), with the path of this process's lock node in view. */
  private static final class ExposedMutex extends HoodieInterProcessMutex {
    private ExposedMutex(CuratorFramework client, String path, LockConfiguration config) {
      super(client, path, config);
    }

    private String ownNode() {
      return getLockPath();
    }
  }

  public ZookeeperFencedLockProvider(LockConfiguration lockConfiguration, StorageConfiguration<?> storage) {
    this.lockConfiguration = lockConfiguration;
    TypedProperties properties = lockConfiguration.getConfig();
    String url = properties.getString(LockConfiguration.ZK_CONNECT_URL_PROP_KEY, null);
    String basePath = properties.getString(LockConfiguration.ZK_BASE_PATH_PROP_KEY, null);
    String lockKey = properties.getString(LockConfiguration.ZK_LOCK_KEY_PROP_KEY, null);
    if (url == null || basePath == null || lockKey == null) {
      throw new HoodieLockException("ZooKeeper lock needs " + LockConfiguration.ZK_CONNECT_URL_PROP_KEY + ", "
          + LockConfiguration.ZK_BASE_PATH_PROP_KEY + " and " + LockConfiguration.ZK_LOCK_KEY_PROP_KEY
          + " (defaults to the table name); got url=" + url + ", base_path=" + basePath + ", lock_key=" + lockKey);
    }
    this.lockPath = (basePath.endsWith("/") ? basePath : basePath + "/") + lockKey;
    this.client = ZookeeperClients.get(new ZookeeperClients.Settings(
        connectString(url, properties.getString(LockConfiguration.ZK_PORT_PROP_KEY, null)),
        ConfigUtils.getIntWithAltKeys(properties, HoodieLockConfig.ZK_SESSION_TIMEOUT_MS),
        ConfigUtils.getIntWithAltKeys(properties, HoodieLockConfig.ZK_CONNECTION_TIMEOUT_MS),
        ConfigUtils.getIntWithAltKeys(properties, HoodieLockConfig.LOCK_ACQUIRE_RETRY_WAIT_TIME_IN_MILLIS),
        ConfigUtils.getIntWithAltKeys(properties, HoodieLockConfig.LOCK_ACQUIRE_RETRY_MAX_WAIT_TIME_IN_MILLIS),
        ConfigUtils.getIntWithAltKeys(properties, HoodieLockConfig.LOCK_ACQUIRE_NUM_RETRIES)));
  }

  /**
   * Hudi passes {@code url} to Curator as it is and ignores {@code port}; ZooKeeper then defaults to 2181. A port
   * given separately is appended to hosts that have none, which is what it is there for.
   */
  static String connectString(String url, String port) {
    if (port == null || port.isBlank() || url.contains(":")) {
      return url;
    }
    StringBuilder hosts = new StringBuilder();
    for (String host : url.split(",")) {
      if (hosts.length() > 0) {
        hosts.append(',');
      }
      hosts.append(host.trim()).append(':').append(port.trim());
    }
    return hosts.toString();
  }

  @Override
  public boolean tryLock(long time, TimeUnit unit) {
    if (hold.get() != null) {
      throw new HoodieLockException("ZooKeeper lock " + lockPath + " is already held by this provider");
    }
    Hold attempt = new Hold(new ExposedMutex(client, lockPath, lockConfiguration));
    // Listen before acquiring: an interruption while the lock is being taken counts too.
    client.getConnectionStateListenable().addListener(attempt);
    boolean acquired;
    try {
      acquired = attempt.mutex.acquire(time, unit);
    } catch (Exception e) {
      client.getConnectionStateListenable().removeListener(attempt);
      throw new HoodieLockException("Cannot acquire ZooKeeper lock " + lockPath, e);
    }
    if (!acquired) {
      client.getConnectionStateListenable().removeListener(attempt);
      return false;
    }
    if (attempt.lostBecause != null) {
      LOG.warn("ZooKeeper lock {} acquired while {}; releasing it and reporting failure", lockPath,
          attempt.lostBecause);
      release(attempt);
      return false;
    }
    hold.set(attempt);
    CommitFence.acquired(this);
    return true;
  }

  @Override
  public void lock() {
    if (!tryLock(Long.MAX_VALUE, TimeUnit.MILLISECONDS)) {
      throw new HoodieLockException("Cannot acquire ZooKeeper lock " + lockPath);
    }
  }

  @Override
  public void unlock() {
    Hold current = hold.getAndSet(null);
    CommitFence.released(this);
    if (current != null) {
      release(current);
    }
  }

  private void release(Hold current) {
    client.getConnectionStateListenable().removeListener(current);
    try {
      current.mutex.release();
    } catch (Exception e) {
      if (current.lostBecause != null) {
        // The node went with the session, or Curator deletes it once reconnected (guaranteed delete).
        LOG.warn("ZooKeeper lock {} was lost ({}); releasing it failed: {}", lockPath, current.lostBecause,
            e.toString());
        return;
      }
      throw new HoodieLockException("Cannot release ZooKeeper lock " + lockPath, e);
    }
  }

  @Override
  public void checkStillHeld(String write) {
    Hold current = hold.get();
    if (current == null) {
      return;
    }
    if (current.lostBecause != null) {
      throw lost(write, current.lostBecause, null);
    }
    String node = current.mutex.ownNode();
    Stat stat;
    long session;
    try {
      stat = node == null ? null : client.checkExists().forPath(node);
      session = client.getZookeeperClient().getZooKeeper().getSessionId();
    } catch (Exception e) {
      throw lost(write, "its lock node " + node + " could not be read", e);
    }
    if (stat == null) {
      throw lost(write, "its lock node " + node + " is gone", null);
    }
    if (stat.getEphemeralOwner() != session) {
      throw lost(write, "its lock node " + node + " belongs to session 0x" + Long.toHexString(stat.getEphemeralOwner())
          + ", not to this client's session 0x" + Long.toHexString(session), null);
    }
    if (current.lostBecause != null) {
      throw lost(write, current.lostBecause, null);
    }
  }

  private LockLostException lost(String write, String reason, Exception cause) {
    String message = "Refusing to write " + write + ": the ZooKeeper lock " + lockPath + " is no longer held ("
        + reason + ")";
    LOG.error(message);
    return cause == null ? new LockLostException(message) : new LockLostException(message, cause);
  }

  /** The shared client this provider's locks are held through. */
  CuratorFramework client() {
    return client;
  }

  @Override
  public String location() {
    return "zookeeper:" + client.getZookeeperClient().getCurrentConnectionString() + lockPath;
  }

  @Override
  public InterProcessMutex getLock() {
    Hold current = hold.get();
    return current == null ? null : current.mutex;
  }

  @Override
  public String getCurrentOwnerLockInfo() {
    try {
      for (String participant : new InterProcessMutex(client, lockPath).getParticipantNodes()) {
        byte[] data = client.getData().forPath(participant);
        return participant + " " + new String(data, StandardCharsets.UTF_8);
      }
      return "none";
    } catch (KeeperException.NoNodeException e) {
      return "none";
    } catch (Exception e) {
      return "unknown (" + e + ")";
    }
  }

  @Override
  public void close() {
    try {
      unlock();
    } catch (RuntimeException e) {
      LOG.warn("Releasing ZooKeeper lock {} on close failed", lockPath, e);
    }
  }
}
