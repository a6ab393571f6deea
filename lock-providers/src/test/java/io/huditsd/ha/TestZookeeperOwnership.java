package io.huditsd.ha;

import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.KillSession;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Three replicas sharing twelve tables on a real ZooKeeper server: every table gets exactly one owner and all
 * replicas get some; a replica that leaves hands its tables over; one whose session expires stops owning at once
 * and its tables move only after its session ended; it gets its share back once it is a member again.
 */
class TestZookeeperOwnership {
  private static final List<String> TABLES = IntStream.range(0, 12).mapToObj(i -> "table-" + i).toList();
  private static final Duration SESSION = Duration.ofSeconds(2);
  private static final Duration SETTLE = Duration.ofSeconds(30);

  private TestingServer server;
  private final List<ZookeeperOwnership> replicas = new ArrayList<>();
  private final Map<String, Set<String>> lost = new ConcurrentHashMap<>();

  @BeforeEach
  void start() throws Exception {
    server = new TestingServer(new InstanceSpec(null, -1, -1, -1, true, -1, 500, -1), true);
    for (String id : List.of("a", "b", "c")) {
      replicas.add(replica(id));
    }
  }

  private ZookeeperOwnership replica(String id) throws Exception {
    return replica(id, table -> false);
  }

  private ZookeeperOwnership replica(String id, Predicate<String> busy) throws Exception {
    ZookeeperOwnership replica = new ZookeeperOwnership(server.getConnectString(), "/hudi-tsd", id, SESSION);
    replica.addListener(new TableOwnership.Listener() {
      @Override
      public void gained(String tableId) {
      }

      @Override
      public void lost(String tableId) {
        lost.computeIfAbsent(id, key -> ConcurrentHashMap.newKeySet()).add(tableId);
      }
    });
    replica.start(busy);
    TABLES.forEach(replica::track);
    return replica;
  }

  @AfterEach
  void stop() throws Exception {
    replicas.forEach(ZookeeperOwnership::close);
    server.close();
  }

  /** Owners by table, failing if a table has two. */
  private Map<String, String> owners(List<ZookeeperOwnership> among) {
    Map<String, String> owners = new ConcurrentHashMap<>();
    for (String table : TABLES) {
      List<String> owning = among.stream().filter(replica -> replica.owns(table))
          .map(ZookeeperOwnership::replicaId).toList();
      assertThat(owning).as("replicas owning %s", table).hasSizeLessThanOrEqualTo(1);
      owning.forEach(owner -> owners.put(table, owner));
    }
    return owners;
  }

  private void awaitEveryTableOwnedBy(List<ZookeeperOwnership> among, Set<String> expectedOwners) {
    await().atMost(SETTLE).pollInterval(Duration.ofMillis(100)).untilAsserted(() -> {
      Map<String, String> owners = owners(among);
      assertThat(owners).as("owned tables").hasSize(TABLES.size());
      assertThat(Set.copyOf(owners.values())).as("replicas owning tables").isEqualTo(expectedOwners);
      for (ZookeeperOwnership replica : among) {
        for (String table : TABLES) {
          assertThat(replica.owner(table)).as("owner of %s as replica %s sees it", table, replica.replicaId())
              .contains(owners.get(table));
        }
      }
    });
  }

  /**
   * What the daemon's pool tells the ownership: a table whose work still runs here stays here when a replica that
   * should own it joins, and moves once its work is done.
   */
  @Test
  void aTableIsHandedOverOnlyOnceItsWorkHereIsDone() throws Exception {
    replicas.forEach(ZookeeperOwnership::close);
    replicas.clear();
    Set<String> running = ConcurrentHashMap.newKeySet();
    Set<String> askedAbout = ConcurrentHashMap.newKeySet();
    running.addAll(TABLES);
    ZookeeperOwnership a = replica("a", table -> {
      askedAbout.add(table);
      return running.contains(table);
    });
    replicas.add(a);
    awaitEveryTableOwnedBy(replicas, Set.of("a"));

    ZookeeperOwnership b = replica("b");
    replicas.add(b);
    await("a considers handing a table to b").atMost(SETTLE).until(() -> !askedAbout.isEmpty());
    String table = askedAbout.iterator().next();
    assertThat(a.owns(table)).as("a keeps %s while its work runs", table).isTrue();
    assertThat(b.owns(table)).isFalse();

    running.clear();
    await("b owns " + table).atMost(SETTLE).until(() -> b.owns(table));
    awaitEveryTableOwnedBy(replicas, Set.of("a", "b"));
  }

  @Test
  void everyTableHasOneOwnerAndOwnershipMovesWhenAReplicaLeavesOrItsSessionExpires() throws Exception {
    awaitEveryTableOwnedBy(replicas, Set.of("a", "b", "c"));
    ZookeeperOwnership a = replicas.get(0);
    ZookeeperOwnership b = replicas.get(1);
    ZookeeperOwnership c = replicas.get(2);

    // b leaves: its tables go to a and c.
    b.close();
    awaitEveryTableOwnedBy(List.of(a, c), Set.of("a", "c"));

    // c's session expires: c stops owning its tables at once (it reconnects with a new session right after, as
    // the server is up, and claims them again once the old session's nodes are gone).
    Set<String> ownedByC = TABLES.stream().filter(c::owns).collect(Collectors.toSet());
    assertThat(ownedByC).isNotEmpty();
    lost.remove("c");
    KillSession.kill(c.client().getZookeeperClient().getZooKeeper());
    await().atMost(SETTLE).untilAsserted(() -> assertThat(lost.get("c")).as("tables c gave up").isNotNull()
        .containsAll(ownedByC));
    // No table ever had two owners (owners() checks at every poll).
    awaitEveryTableOwnedBy(List.of(a, c), Set.of("a", "c"));
    assertThat(a.changes()).as("ownership changes counted by a").isPositive();
  }

  @Test
  void aReplicaStartedWhileZookeeperIsDownOwnsNothingUntilItIsBack() throws Exception {
    awaitEveryTableOwnedBy(replicas, Set.of("a", "b", "c"));
    replicas.forEach(ZookeeperOwnership::close);
    replicas.clear();
    server.stop();
    ZookeeperOwnership late = replica("late");
    replicas.add(late);
    assertThat(TABLES.stream().filter(late::owns).toList()).as("tables owned without ZooKeeper").isEmpty();
    server.restart();
    awaitEveryTableOwnedBy(replicas, Set.of("late"));
  }
}
