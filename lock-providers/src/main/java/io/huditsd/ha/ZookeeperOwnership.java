package io.huditsd.ha;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.cache.ChildData;
import org.apache.curator.framework.recipes.cache.CuratorCache;
import org.apache.curator.framework.recipes.nodes.PersistentNode;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.retry.BoundedExponentialBackoffRetry;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Predicate;

/**
 * Table ownership shared by replicas through ZooKeeper, under {@code basePath}:
 * <ul>
 *   <li>{@code members/<replicaId>}: an ephemeral node per live replica (recreated after a lost session);</li>
 *   <li>{@code owners/<tableId>}: an ephemeral node holding the owner's replica id. Creating it is the claim, so at
 *       most one session holds a table; it vanishes when its replica closes or its session expires.</li>
 *   <li>{@code polls/<tableId>}: written by a replica that wants the table polled ({@link #requestPoll}); every
 *       replica watches them, and the one that owns the table tells its listeners ({@link ZookeeperPollRequests}).
 *       </li>
 * </ul>
 *
 * <p>Which replica should own a table is decided by rendezvous hashing over the live members, so tables spread over
 * the replicas and only the tables of a replica that comes or goes move. A replica claims the tables it should own
 * once their node is free, hands a table to the replica that should own it once it has no work of that table
 * running, and claims any table left without an owner for three session timeouts (a member that does not service
 * it). A replica owns a table only while its ZooKeeper connection is up and the node belongs to its current session:
 * on SUSPENDED or LOST it stops handing out work at once, and another replica can claim its tables only after its
 * session expired.
 */
public final class ZookeeperOwnership implements TableOwnership {
  private static final Logger LOG = LoggerFactory.getLogger(ZookeeperOwnership.class);

  private enum State { LATENT, STARTED, CLOSED }

  private final AtomicReference<State> state = new AtomicReference<>(State.LATENT);
  private final CuratorFramework client;
  private final String replicaId;
  private final String membersPath;
  private final String ownersPath;
  private final Duration unownedGrace;
  // Set once, in start; read by the reconciler only. Until then every table counts as busy: none is handed over.
  private volatile Predicate<String> busy = table -> true;
  private final PersistentNode member;
  private final CuratorCache members;
  private final CuratorCache owners;
  private final ZookeeperPollRequests polls;
  private final ScheduledExecutorService reconciler;
  /** Tracked tables and whether this replica owns each. */
  private final Map<String, Boolean> tables = new ConcurrentHashMap<>();
  private final Map<String, Long> unownedSince = new ConcurrentHashMap<>();
  private final List<Listener> listeners = new CopyOnWriteArrayList<>();
  private final AtomicLong changes = new AtomicLong();
  private volatile boolean connected;

  public ZookeeperOwnership(String connectString, String basePath, String replicaId, Duration sessionTimeout) {
    this.replicaId = Objects.requireNonNull(replicaId, "replicaId is null");
    int sessionMillis = Math.toIntExact(sessionTimeout.toMillis());
    this.client = CuratorFrameworkFactory.builder()
        .connectString(Objects.requireNonNull(connectString, "connectString is null"))
        .sessionTimeoutMs(sessionMillis)
        .connectionTimeoutMs(Math.min(15_000, sessionMillis))
        .retryPolicy(new BoundedExponentialBackoffRetry(200, 5_000, 29))
        .build();
    this.membersPath = ZKPaths.makePath(basePath, "members");
    this.ownersPath = ZKPaths.makePath(basePath, "owners");
    this.unownedGrace = sessionTimeout.multipliedBy(3);
    this.member = new PersistentNode(client, CreateMode.EPHEMERAL, false, ZKPaths.makePath(membersPath, replicaId),
        replicaId.getBytes(StandardCharsets.UTF_8));
    this.members = CuratorCache.build(client, membersPath);
    this.owners = CuratorCache.build(client, ownersPath);
    this.polls = new ZookeeperPollRequests(client, ZKPaths.makePath(basePath, "polls"), replicaId,
        this::pollRequestArrived);
    this.reconciler = Executors.newSingleThreadScheduledExecutor(runnable -> {
      Thread thread = new Thread(runnable, "tsd-ownership");
      thread.setDaemon(true);
      return thread;
    });
  }

  @Override
  public void start(Predicate<String> busy) throws Exception {
    Objects.requireNonNull(busy, "busy is null");
    if (!state.compareAndSet(State.LATENT, State.STARTED)) {
      throw new IllegalStateException("Table ownership of replica " + replicaId + " was started already");
    }
    this.busy = busy;
    client.getConnectionStateListenable().addListener((curator, newState) -> connectionChanged(newState));
    // Nothing here waits for ZooKeeper: a replica started while the ensemble is down owns nothing until it is up.
    client.start();
    member.start();
    members.listenable().addListener((type, oldData, data) -> reconcileSoon());
    owners.listenable().addListener((type, oldData, data) -> reconcileSoon());
    members.start();
    owners.start();
    polls.start();
    connected = client.getZookeeperClient().isConnected();
    reconciler.scheduleWithFixedDelay(this::reconcile, 0, 1, TimeUnit.SECONDS);
    LOG.info("Replica {} shares tables through ZooKeeper {} under {}", replicaId,
        client.getZookeeperClient().getCurrentConnectionString(), ZKPaths.getPathAndNode(membersPath).getPath());
  }

  private void connectionChanged(ConnectionState newState) {
    if (newState == ConnectionState.SUSPENDED || newState == ConnectionState.LOST) {
      connected = false;
      // Stop handing out work now; whether the tables are still ours is known again only once reconnected.
      reconciler.execute(() -> {
        for (String table : List.copyOf(tables.keySet())) {
          setOwned(table, false, "the ZooKeeper connection is " + newState);
        }
      });
    } else if (newState.isConnected()) {
      connected = true;
      reconcileSoon();
    }
  }

  private void reconcileSoon() {
    if (state.get() == State.STARTED) {
      reconciler.execute(this::reconcile);
    }
  }

  /** Runs on the reconciler thread only. */
  private void reconcile() {
    try {
      if (state.get() != State.STARTED || !connected) {
        return;
      }
      long session = client.getZookeeperClient().getZooKeeper().getSessionId();
      Set<String> live = liveMembers();
      long now = System.nanoTime();
      for (String table : List.copyOf(tables.keySet())) {
        String path = ZKPaths.makePath(ownersPath, table);
        Optional<ChildData> node = owners.get(path);
        boolean mine = node.isPresent() && node.get().getStat() != null
            && node.get().getStat().getEphemeralOwner() == session;
        if (!mine && Boolean.TRUE.equals(tables.get(table))) {
          // The cache may lag behind our own claim: ask the server before giving the table up.
          Stat stat = client.checkExists().forPath(path);
          mine = stat != null && stat.getEphemeralOwner() == session;
        }
        String preferred = preferredOwner(table, live);
        if (mine) {
          if (!replicaId.equals(preferred) && preferred != null && live.contains(preferred)
              && !busy.test(table)) {
            handOver(table, preferred);
          } else {
            setOwned(table, true, "its owner node belongs to this replica's session");
          }
          unownedSince.remove(table);
          continue;
        }
        setOwned(table, false, node.isPresent() ? "replica " + ownerOf(node.get()) + " owns it"
            : "its owner node is gone");
        if (node.isPresent()) {
          unownedSince.remove(table);
          continue;
        }
        long since = unownedSince.computeIfAbsent(table, key -> now);
        boolean abandoned = now - since > unownedGrace.toNanos();
        if (replicaId.equals(preferred) || abandoned) {
          claim(table);
        }
      }
    } catch (Exception e) {
      LOG.warn("Table ownership of replica {} could not be reconciled; retrying", replicaId, e);
    }
  }

  private Set<String> liveMembers() {
    Set<String> live = new TreeSet<>();
    members.stream()
        .filter(data -> !data.getPath().equals(membersPath))
        .forEach(data -> live.add(ZKPaths.getNodeFromPath(data.getPath())));
    // Our own node may not be in the cache yet right after (re)connecting.
    live.add(replicaId);
    return live;
  }

  private void claim(String table) throws Exception {
    try {
      client.create().creatingParentContainersIfNeeded().withMode(CreateMode.EPHEMERAL)
          .forPath(ZKPaths.makePath(ownersPath, table), replicaId.getBytes(StandardCharsets.UTF_8));
      unownedSince.remove(table);
      setOwned(table, true, "claimed");
    } catch (KeeperException.NodeExistsException e) {
      // Another replica was quicker, or the node of a dead replica waits for its session to expire.
    }
  }

  private void handOver(String table, String preferred) throws Exception {
    setOwned(table, false, "handed over to replica " + preferred);
    release(table);
  }

  private void release(String table) throws Exception {
    try {
      client.delete().forPath(ZKPaths.makePath(ownersPath, table));
    } catch (KeeperException.NoNodeException e) {
      // Gone already.
    }
  }

  /** Runs on the reconciler thread only (or in close, after it stopped). */
  private void setOwned(String table, boolean owned, String why) {
    Boolean was = tables.computeIfPresent(table, (key, previous) -> previous);
    if (was == null || was == owned) {
      return;
    }
    tables.put(table, owned);
    changes.incrementAndGet();
    LOG.info("Replica {} {} table {}: {}", replicaId, owned ? "owns" : "no longer owns", table, why);
    for (Listener listener : listeners) {
      try {
        if (owned) {
          listener.gained(table);
        } else {
          listener.lost(table);
        }
      } catch (RuntimeException e) {
        LOG.warn("Ownership listener failed for table {}", table, e);
      }
    }
  }

  /** On Curator's event thread: the listeners hear it on theirs, after any ownership change heard before it. */
  private void pollRequestArrived(String table) {
    onListenerThread(() -> {
      if (owns(table)) {
        for (Listener listener : listeners) {
          try {
            listener.pollRequested(table);
          } catch (RuntimeException e) {
            LOG.warn("Ownership listener failed on a poll request for table {}", table, e);
          }
        }
      } else {
        LOG.debug("Replica {} ignores a poll request for table {}: it does not own it", replicaId, table);
      }
    });
  }

  private void onListenerThread(Runnable task) {
    if (state.get() != State.STARTED) {
      return;
    }
    try {
      reconciler.execute(task);
    } catch (RejectedExecutionException e) {
      // Closing meanwhile: nobody is left to poll.
    }
  }

  /** The live member with the highest rendezvous score for {@code table}. */
  static String preferredOwner(String table, Set<String> live) {
    String best = null;
    long bestScore = Long.MIN_VALUE;
    for (String candidate : live) {
      long score = score(table, candidate);
      if (best == null || score > bestScore || (score == bestScore && candidate.compareTo(best) < 0)) {
        best = candidate;
        bestScore = score;
      }
    }
    return best;
  }

  private static long score(String table, String replica) {
    try {
      MessageDigest digest = MessageDigest.getInstance("SHA-256");
      digest.update(table.getBytes(StandardCharsets.UTF_8));
      digest.update((byte) 0);
      digest.update(replica.getBytes(StandardCharsets.UTF_8));
      return ByteBuffer.wrap(digest.digest()).getLong();
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  private static String ownerOf(ChildData node) {
    return node.getData() == null ? "?" : new String(node.getData(), StandardCharsets.UTF_8);
  }

  /** The client, for tests that expire its session. */
  CuratorFramework client() {
    return client;
  }

  @Override
  public String replicaId() {
    return replicaId;
  }

  @Override
  public boolean owns(String tableId) {
    return connected && Boolean.TRUE.equals(tables.get(tableId));
  }

  @Override
  public Optional<String> owner(String tableId) {
    if (state.get() != State.STARTED) {
      return Optional.empty();
    }
    return owners.get(ZKPaths.makePath(ownersPath, tableId)).map(ZookeeperOwnership::ownerOf);
  }

  @Override
  public void track(String tableId) {
    tables.putIfAbsent(tableId, false);
    reconcileSoon();
  }

  @Override
  public void untrack(String tableId) {
    if (state.get() != State.STARTED) {
      tables.remove(tableId);
      return;
    }
    reconciler.execute(() -> {
      boolean owned = Boolean.TRUE.equals(tables.get(tableId));
      setOwned(tableId, false, "no longer serviced here");
      tables.remove(tableId);
      unownedSince.remove(tableId);
      if (owned) {
        try {
          release(tableId);
        } catch (Exception e) {
          LOG.warn("Cannot release table {}; it is freed when this replica's session ends", tableId, e);
        }
      }
    });
  }

  /**
   * Writes {@code polls/<tableId>} in the background, for the owner to hear. A request for a table this replica
   * owns itself goes straight to its own listeners, without ZooKeeper (ownership may have come here since the
   * caller looked). A request for a table nobody owns is heard by nobody; one that cannot be written is dropped
   * with a WARN (once per failure streak). Before start and after close it does nothing.
   */
  @Override
  public void requestPoll(String tableId) {
    Objects.requireNonNull(tableId, "tableId is null");
    if (state.get() != State.STARTED) {
      LOG.debug("Replica {} drops a poll request for table {}: its table ownership is {}", replicaId, tableId,
          state.get());
      return;
    }
    if (owns(tableId)) {
      pollRequestArrived(tableId);
      return;
    }
    polls.request(tableId);
  }

  @Override
  public long changes() {
    return changes.get();
  }

  @Override
  public void addListener(Listener listener) {
    listeners.add(listener);
  }

  /** Releases every table this replica owns, so the others take them over at once, and leaves. */
  @Override
  public void close() {
    if (!state.compareAndSet(State.STARTED, State.CLOSED)) {
      state.set(State.CLOSED);
      return;
    }
    // First, so that no request arrives for a listener thread that is going away.
    polls.close();
    reconciler.shutdown();
    try {
      reconciler.awaitTermination(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    List<String> owned = new ArrayList<>();
    tables.forEach((table, mine) -> {
      if (mine) {
        owned.add(table);
      }
    });
    for (String table : owned) {
      tables.put(table, false);
      try {
        release(table);
      } catch (Exception e) {
        LOG.debug("Cannot release table {} on close", table, e);
      }
    }
    try {
      member.close();
    } catch (Exception e) {
      LOG.debug("Cannot remove member node of replica {}", replicaId, e);
    }
    owners.close();
    members.close();
    client.close();
    LOG.info("Replica {} left; released {} tables", replicaId, owned.size());
  }
}
