package io.huditsd.ha;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.api.CuratorEvent;
import org.apache.curator.framework.recipes.cache.CuratorCache;
import org.apache.curator.framework.recipes.cache.CuratorCacheListener;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.KeeperException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

/**
 * Poll requests between replicas through ZooKeeper: a replica that wants a table polled creates or overwrites
 * {@code <pollsPath>/<tableId>} (its data, "replicaId time", is for whoever reads the tree), and every replica watches
 * {@code pollsPath} with one cache and hears each write after its cache's first load. Whether the replica that hears
 * it owns the table is for the caller to decide.
 *
 * <p>Writing is asynchronous (Curator's background API) so a caller, an HTTP request thread, never waits for
 * ZooKeeper. A request that cannot be written (no connection, or the write failed) is dropped and logged at WARN once
 * per failure streak: the table then only waits for its next scheduled poll. The nodes stay, one per table ever
 * requested; writing them again is the request.
 */
final class ZookeeperPollRequests implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ZookeeperPollRequests.class);

  private final CuratorFramework client;
  private final String pollsPath;
  private final String replicaId;
  private final CuratorCache cache;
  // True from the first request that could not be written to the next one that was: one WARN per streak.
  private final AtomicBoolean failing = new AtomicBoolean();

  /**
   * @param arrived hears the table id of every request written after the cache's first load, on Curator's event
   *     thread; it must not block
   */
  ZookeeperPollRequests(CuratorFramework client, String pollsPath, String replicaId, Consumer<String> arrived) {
    this.client = Objects.requireNonNull(client, "client is null");
    this.pollsPath = Objects.requireNonNull(pollsPath, "pollsPath is null");
    this.replicaId = Objects.requireNonNull(replicaId, "replicaId is null");
    Objects.requireNonNull(arrived, "arrived is null");
    this.cache = CuratorCache.build(client, pollsPath);
    // Requests already in the tree when this replica starts are old news: the owner polls its tables on gaining them.
    // After a reconnect, the cache's reload reports the nodes written meanwhile as changes, so those arrive.
    cache.listenable().addListener(CuratorCacheListener.builder()
        .forCreatesAndChanges((oldNode, node) -> tableOf(node.getPath()).ifPresent(arrived))
        .afterInitialized()
        .build());
  }

  private Optional<String> tableOf(String path) {
    ZKPaths.PathAndNode pathAndNode = ZKPaths.getPathAndNode(path);
    if (!pathAndNode.getPath().equals(pollsPath) || pathAndNode.getNode().isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(pathAndNode.getNode());
  }

  /** Starts watching; the client must be started. */
  void start() {
    cache.start();
  }

  /** Writes a request for {@code tableId} in the background; never blocks on ZooKeeper and never throws. */
  void request(String tableId) {
    if (!client.getZookeeperClient().isConnected()) {
      failed(tableId, "there is no ZooKeeper connection", null);
      return;
    }
    byte[] data = (replicaId + " " + Instant.now()).getBytes(StandardCharsets.UTF_8);
    try {
      client.create().orSetData().creatingParentContainersIfNeeded()
          .inBackground((curator, event) -> written(tableId, event))
          .forPath(ZKPaths.makePath(pollsPath, tableId), data);
    } catch (Exception e) {
      // Only what fails before the write is queued lands here (a closed client, a path ZooKeeper refuses).
      failed(tableId, e.toString(), e);
    }
  }

  private void written(String tableId, CuratorEvent event) {
    KeeperException.Code code = KeeperException.Code.get(event.getResultCode());
    if (code != KeeperException.Code.OK) {
      failed(tableId, "ZooKeeper answered " + code, null);
      return;
    }
    if (failing.compareAndSet(true, false)) {
      LOG.info("Replica {} forwards poll requests through ZooKeeper again (table {})", replicaId, tableId);
    }
  }

  private void failed(String tableId, String why, Exception cause) {
    if (failing.compareAndSet(false, true)) {
      LOG.warn("Replica {} cannot forward a poll request for table {} to its owner: {}; the table waits for its next"
          + " scheduled poll (further failures are logged at DEBUG until a request gets through)", replicaId, tableId,
          why, cause);
    } else {
      LOG.debug("Replica {} cannot forward a poll request for table {}: {}", replicaId, tableId, why, cause);
    }
  }

  @Override
  public void close() {
    cache.close();
  }
}
