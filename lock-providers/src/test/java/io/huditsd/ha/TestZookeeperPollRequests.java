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
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

/**
 * Replicas asking a table's owner to poll it through a real ZooKeeper server: only the owner hears a request, and
 * only for the table asked about; the request follows the table when it moves; the owner keeps hearing requests after
 * its session expired; a request while ZooKeeper is down is dropped without holding up or failing the caller, and
 * requests get through again once it is back.
 *
 * <p>"Did not hear" is checked without waiting for a while: a replica hears requests in the order its cache sees
 * them, so once it heard a later request for a table of its own, it has passed over the earlier ones.
 */
class TestZookeeperPollRequests {
  private static final List<String> TABLES = IntStream.range(0, 12).mapToObj(i -> "table-" + i).toList();
  private static final Duration SESSION = Duration.ofSeconds(2);
  private static final Duration SETTLE = Duration.ofSeconds(30);

  private TestingServer server;
  private final List<ZookeeperOwnership> replicas = new ArrayList<>();
  /** Tables each replica's listener was asked to poll, in order. */
  private final Map<String, List<String>> heard = new ConcurrentHashMap<>();
  /** Tables each replica lost. */
  private final Map<String, Set<String>> lost = new ConcurrentHashMap<>();

  @BeforeEach
  void startServer() throws Exception {
    server = new TestingServer(new InstanceSpec(null, -1, -1, -1, true, -1, 500, -1), true);
  }

  @AfterEach
  void stop() throws Exception {
    replicas.forEach(ZookeeperOwnership::close);
    server.close();
  }

  private ZookeeperOwnership replica(String id) throws Exception {
    ZookeeperOwnership replica = new ZookeeperOwnership(server.getConnectString(), "/hudi-tsd", id, SESSION);
    List<String> tables = heard.computeIfAbsent(id, key -> new CopyOnWriteArrayList<>());
    replica.addListener(new TableOwnership.Listener() {
      @Override
      public void gained(String tableId) {
      }

      @Override
      public void lost(String tableId) {
        lost.computeIfAbsent(id, key -> ConcurrentHashMap.newKeySet()).add(tableId);
      }

      @Override
      public void pollRequested(String tableId) {
        tables.add(tableId);
      }
    });
    replica.start(table -> false);
    TABLES.forEach(replica::track);
    replicas.add(replica);
    return replica;
  }

  private void awaitEveryTableOwnedBy(Set<String> expectedOwners) {
    await().atMost(SETTLE).untilAsserted(() -> {
      for (String table : TABLES) {
        List<String> owning = replicas.stream().filter(replica -> replica.owns(table))
            .map(ZookeeperOwnership::replicaId).toList();
        assertThat(owning).as("replicas owning %s", table).hasSize(1);
        assertThat(expectedOwners).contains(owning.get(0));
        for (ZookeeperOwnership replica : replicas) {
          assertThat(replica.owner(table)).as("owner of %s as %s sees it", table, replica.replicaId())
              .contains(owning.get(0));
        }
      }
    });
  }

  private static List<String> ownedBy(ZookeeperOwnership replica) {
    return TABLES.stream().filter(replica::owns).toList();
  }

  private void awaitHeard(String replicaId, String... tables) {
    await(replicaId + " hears poll requests for " + List.of(tables)).atMost(SETTLE)
        .until(() -> heard.get(replicaId).size() >= tables.length);
    assertThat(heard.get(replicaId)).as("poll requests %s heard", replicaId).containsExactly(tables);
  }

  @Test
  void onlyTheOwnerHearsARequestAndOnlyForTheTableAskedAbout() throws Exception {
    ZookeeperOwnership a = replica("a");
    ZookeeperOwnership b = replica("b");
    awaitEveryTableOwnedBy(Set.of("a", "b"));
    List<String> ofA = ownedBy(a);
    List<String> ofB = ownedBy(b);
    assertThat(ofA).hasSizeGreaterThanOrEqualTo(2);
    assertThat(ofB).isNotEmpty();

    b.requestPoll(ofA.get(0));
    awaitHeard("a", ofA.get(0));

    // b saw the same node written; it hears a's request for one of its own tables and nothing before it.
    a.requestPoll(ofB.get(0));
    awaitHeard("b", ofB.get(0));
    // a table nobody owns is heard by nobody, and a's next request for another of a's tables comes in order.
    b.requestPoll("not-serviced");
    b.requestPoll(ofA.get(1));
    awaitHeard("a", ofA.get(0), ofA.get(1));
    a.requestPoll(ofB.get(0));
    awaitHeard("b", ofB.get(0), ofB.get(0));
  }

  @Test
  void aRequestOfTheOwnerItselfReachesItsOwnListeners() throws Exception {
    ZookeeperOwnership a = replica("a");
    awaitEveryTableOwnedBy(Set.of("a"));

    a.requestPoll(TABLES.get(3));
    awaitHeard("a", TABLES.get(3));
  }

  @Test
  void aRequestReachesTheNewOwnerOnceTheTableMoved() throws Exception {
    ZookeeperOwnership a = replica("a");
    ZookeeperOwnership b = replica("b");
    ZookeeperOwnership c = replica("c");
    awaitEveryTableOwnedBy(Set.of("a", "b", "c"));
    // A table of a that goes to b when a leaves, so that c's requests cross ZooKeeper before and after.
    String table = ownedBy(a).stream()
        .filter(candidate -> ZookeeperOwnership.preferredOwner(candidate, Set.of("b", "c")).equals("b"))
        .findFirst().orElseThrow();

    c.requestPoll(table);
    awaitHeard("a", table);

    a.close();
    replicas.remove(a);
    await("b owns " + table).atMost(SETTLE).until(() -> b.owns(table) && c.owner(table).equals(
Optional.of("b")));
    c.requestPoll(table);
    awaitHeard("b", table);
    // Closed, a hears nothing more.
    assertThat(heard.get("a")).containsExactly(table);
  }

  @Test
  void theOwnerStillHearsRequestsAfterItsSessionExpired() throws Exception {
    ZookeeperOwnership a = replica("a");
    ZookeeperOwnership b = replica("b");
    awaitEveryTableOwnedBy(Set.of("a", "b"));
    List<String> ofA = ownedBy(a);

    // a's session ends: its owner nodes and its watches go with it; it reconnects with a new session.
    lost.remove("a");
    KillSession.kill(a.client().getZookeeperClient().getZooKeeper());
    await("a gives up its tables").atMost(SETTLE)
        .until(() -> lost.getOrDefault("a", Set.of()).containsAll(ofA));
    awaitEveryTableOwnedBy(Set.of("a", "b"));
    String table = ownedBy(a).get(0);
    b.requestPoll(table);
    awaitHeard("a", table);
  }

  @Test
  void aRequestWhileZookeeperIsDownReturnsAtOnceAndRequestsGetThroughOnceItIsBack() throws Exception {
    ZookeeperOwnership a = replica("a");
    ZookeeperOwnership b = replica("b");
    awaitEveryTableOwnedBy(Set.of("a", "b"));
    String table = ownedBy(a).get(0);

    server.stop();
    await("b notices ZooKeeper is gone").atMost(SETTLE).until(() -> !b.client().getZookeeperClient().isConnected());
    // Far below what a write waiting for ZooKeeper would take (its retries run for minutes): not a speed check.
    assertTimeoutPreemptively(Duration.ofSeconds(10), () -> {
      for (int i = 0; i < 100; i++) {
        assertThatCode(() -> b.requestPoll(table)).doesNotThrowAnyException();
      }
    });

    server.restart();
    awaitEveryTableOwnedBy(Set.of("a", "b"));
    String owned = ownedBy(a).get(0);
    b.requestPoll(owned);
    await("a hears a request made after ZooKeeper came back").atMost(SETTLE)
        .until(() -> heard.get("a").contains(owned));
  }
}
