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
    ZookeeperOwnership replica = new ZookeeperOwnership(server.getConnectString(), "/hudi-tsd", id, SESSION,
        table -> false);
    replica.addListener(new TableOwnership.Listener() {
      @Override
      public void gained(String tableId) {
      }

      @Override
      public void lost(String tableId) {
        lost.computeIfAbsent(id, key -> ConcurrentHashMap.newKeySet()).add(tableId);
      }
    });
    replica.start();
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
