package io.huditsd.scheduler;

import io.huditsd.config.ServicedTables;
import io.huditsd.config.TablePaths;
import io.huditsd.config.TableSpec;
import io.huditsd.config.TsdConfiguration;
import io.huditsd.executors.HudiTables;
import io.huditsd.executors.LocalTables;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import org.apache.hudi.common.model.HoodieTableType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

class TestDiscoveryService {
  private final LocalTables localTables = new LocalTables();
  private final TableRegistry registry = new TableRegistry();
  private final List<String> events = Collections.synchronizedList(new ArrayList<>());
  private final List<DiscoveryService> services = new ArrayList<>();
  private final DiscoveryMetrics metrics = new DiscoveryMetrics(new PrometheusRegistry());
  private final FaultInjectingFileSystem fileSystem = FaultInjectingFileSystem.create();

  @TempDir
  Path directory;

  @AfterEach
  void close() {
    services.forEach(DiscoveryService::close);
  }

  private DiscoveryService discoveryOf(TsdConfiguration configuration, Path root) {
    return discoveryOf(configuration, root, new TableDiscovery(HudiTables.defaultHadoopConfiguration(), 3));
  }

  private DiscoveryService discoveryOf(TsdConfiguration configuration, Path root, TableDiscovery tableDiscovery) {
    registry.addListener(new TableRegistry.Listener() {
      @Override
      public void added(TableState state) {
        events.add("added " + state.table().basePath());
      }

      @Override
      public void removed(TableState state) {
        events.add("removed " + state.table().basePath());
      }
    });
    DiscoveryService service = new DiscoveryService(tableDiscovery, List.of(root.toString()),
        new ServicedTables(configuration), registry, Duration.ofMillis(200), metrics);
    services.add(service);
    return service;
  }

  private String table(Path path) throws IOException {
    return localTables.create(path, HoodieTableType.COPY_ON_WRITE, 9, Map.of()).basePath();
  }

  private Set<String> registered() {
    return registry.all().stream().map(state -> state.table().basePath()).collect(Collectors.toSet());
  }

  @Test
  void registersTablesFoundAndDropsThoseThatTwoCompleteScansMissed() throws IOException {
    Path root = directory.resolve("lake");
    String orders = table(root.resolve("orders"));
    String customers = table(root.resolve("crm/customers"));
    DiscoveryService discovery = discoveryOf(new TsdConfiguration(), root);

    assertThat(discovery.scan()).isEqualTo(2);
    assertThat(registered()).containsExactlyInAnyOrder(orders, customers);

    Directories.delete(root.resolve("orders"));
    assertThat(discovery.scan()).isEqualTo(1);
    // One complete scan missed it: a listing that lags must not drop a table.
    assertThat(registered()).containsExactlyInAnyOrder(orders, customers);
    assertThat(discovery.scan()).isEqualTo(1);

    assertThat(registered()).containsExactly(customers);
    assertThat(events).containsExactlyInAnyOrder("added " + orders, "added " + customers, "removed " + orders);
  }

  @Test
  void aTableFoundAgainAfterOneMissIsKept() throws IOException {
    Path root = directory.resolve("lake");
    String orders = table(root.resolve("orders"));
    DiscoveryService discovery = discoveryOf(new TsdConfiguration(), root);
    discovery.scan();

    Path moved = directory.resolve("orders-moved-away");
    Files.move(root.resolve("orders"), moved);
    discovery.scan();
    Files.move(moved, root.resolve("orders"));
    discovery.scan();
    Files.move(root.resolve("orders"), moved);
    discovery.scan();

    // Two misses, but not in a row.
    assertThat(registered()).containsExactly(orders);
    assertThat(events).containsExactly("added " + orders);
  }

  @Test
  void aFailedListingOfTheRootKeepsEveryKnownTable() throws IOException {
    Path root = directory.resolve("lake");
    String orders = table(root.resolve("orders"));
    String customers = table(root.resolve("crm/customers"));
    DiscoveryService discovery = discoveryOf(new TsdConfiguration(), root, new TableDiscovery(path -> fileSystem, 3));
    discovery.scan();
    String rootLabel = TablePaths.normalize(root.toString());
    assertThat(metrics.scanFailures(rootLabel)).isZero();

    fileSystem.beforeListing(listed -> {
      if (listed.getName().equals("lake")) {
        throw new IOException("503 SlowDown");
      }
    });
    Directories.delete(root.resolve("orders"));
    for (int scan = 0; scan < 3; scan++) {
      discovery.scan();
    }

    assertThat(registered()).containsExactlyInAnyOrder(orders, customers);
    assertThat(metrics.scanFailures(rootLabel)).isEqualTo(3);

    // Incomplete scans neither count as misses nor reset them: two complete ones still decide.
    fileSystem.heal();
    discovery.scan();
    assertThat(registered()).containsExactlyInAnyOrder(orders, customers);
    discovery.scan();
    assertThat(registered()).containsExactly(customers);
  }

  @Test
  void aFailedListingBelowTheRootKeepsTheTablesItDidNotReachAndAddsTheOnesItFound() throws IOException {
    Path root = directory.resolve("lake");
    String customers = table(root.resolve("crm/customers"));
    DiscoveryService discovery = discoveryOf(new TsdConfiguration(), root, new TableDiscovery(path -> fileSystem, 3));
    discovery.scan();

    String orders = table(root.resolve("sales/orders"));
    fileSystem.beforeListing(listed -> {
      if (listed.getName().equals("crm")) {
        throw new IOException("connection reset");
      }
    });
    discovery.scan();
    discovery.scan();

    assertThat(registered()).containsExactlyInAnyOrder(orders, customers);
  }

  @Test
  void aDirectoryRemovedDuringAScanDropsOnlyItsOwnTables() throws IOException {
    Path root = directory.resolve("lake");
    String orders = table(root.resolve("orders"));
    String euOrders = table(root.resolve("sales/eu/orders"));
    String customers = table(root.resolve("crm/customers"));
    DiscoveryService discovery = discoveryOf(new TsdConfiguration(), root, new TableDiscovery(path -> fileSystem, 3));
    discovery.scan();

    fileSystem.afterListing(listed -> {
      if (listed.getName().equals("lake") && Files.exists(root.resolve("sales"))) {
        Directories.delete(root.resolve("sales"));
      }
    });
    discovery.scan();
    assertThat(registered()).containsExactlyInAnyOrder(orders, euOrders, customers);
    discovery.scan();

    assertThat(registered()).containsExactlyInAnyOrder(orders, customers);
    assertThat(metrics.scanFailures(TablePaths.normalize(root.toString()))).isZero();
  }

  @Test
  void aRescanAddsNewTablesAndLeavesKnownOnesAlone() throws IOException {
    Path root = directory.resolve("lake");
    String orders = table(root.resolve("orders"));
    DiscoveryService discovery = discoveryOf(new TsdConfiguration(), root);
    discovery.scan();
    TableState ordersState = registry.all().iterator().next();

    String customers = table(root.resolve("customers"));
    discovery.scan();

    assertThat(registry.all()).extracting(state -> state.table().basePath())
        .containsExactlyInAnyOrder(orders, customers);
    assertThat(registry.get(ordersState.table().id())).containsSame(ordersState);
    assertThat(events).containsExactly("added " + orders, "added " + customers);
  }

  @Test
  void explicitlyListedTablesAreNeverDropped() throws IOException {
    Path root = directory.resolve("lake");
    String elsewhere = table(directory.resolve("elsewhere/orders"));
    TsdConfiguration configuration = new TsdConfiguration();
    configuration.setTables(List.of(new TableSpec(elsewhere, "orders", null, null, null)));
    registry.add(new ServicedTables(configuration).explicit(configuration.getTables().get(0)));
    DiscoveryService discovery = discoveryOf(configuration, root);

    assertThat(discovery.scan()).isZero();

    assertThat(registry.get("orders")).isPresent();
  }

  @Test
  void aTableListedWithItsOwnIdIsNotRegisteredAgainWhenDiscovered() throws IOException {
    Path root = directory.resolve("lake");
    String orders = table(root.resolve("orders"));
    TsdConfiguration configuration = new TsdConfiguration();
    configuration.setTables(List.of(new TableSpec(orders, "orders", null, null,
        Map.of("hoodie.compact.inline.max.delta.commits", "2"))));
    // As the daemon starts: explicit tables first, then discovery.
    registry.add(new ServicedTables(configuration).explicit(configuration.getTables().get(0)));
    DiscoveryService discovery = discoveryOf(configuration, root);

    discovery.scan();

    // Two registrations of one path would poll, plan and run its services twice, under two ids.
    assertThat(registry.all()).extracting(state -> state.table().id()).containsExactly("orders");
    assertThat(registry.get("orders").map(state -> state.table().hoodieKeys()))
        .isEqualTo(Optional.of(Map.of("hoodie.compact.inline.max.delta.commits", "2")));
  }

  @Test
  void startScansOnItsInterval() throws IOException {
    Path root = directory.resolve("lake");
    table(root.resolve("orders"));
    DiscoveryService discovery = discoveryOf(new TsdConfiguration(), root);

    discovery.start();
    await().atMost(Duration.ofSeconds(10)).until(() -> registry.size() == 1);
    table(root.resolve("customers"));

    await().atMost(Duration.ofSeconds(10)).until(() -> registry.size() == 2);
  }
}
