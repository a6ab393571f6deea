package io.huditsd.scheduler;

import io.huditsd.config.TablePaths;
import io.huditsd.executors.HudiTables;
import io.huditsd.executors.LocalTables;
import org.apache.hudi.common.model.HoodieTableType;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

class TestTableDiscovery {
  private final LocalTables localTables = new LocalTables();
  private final TableDiscovery discovery = new TableDiscovery(HudiTables.defaultHadoopConfiguration(), 3);

  @TempDir
  Path root;

  private String table(String relativePath) throws IOException {
    Path directory = root.resolve(relativePath);
    Files.createDirectories(directory.getParent());
    return localTables.create(directory, HoodieTableType.COPY_ON_WRITE, 9, Map.of()).basePath();
  }

  private Set<String> found(List<String> roots) {
    return TableDiscovery.tablesOf(discovery.scan(roots));
  }

  @BeforeEach
  void emptyDirectoriesAndStrayFiles() throws IOException {
    Files.createDirectories(root.resolve("empty/deeper"));
    Files.writeString(root.resolve("README.txt"), "not a table");
  }

  @Test
  void findsTablesUpToTheMaximumDepth() throws IOException {
    String shallow = table("orders");
    String nested = table("sales/eu/orders");
    table("a/b/c/too_deep");

    assertThat(found(List.of(root.toString()))).containsExactly(shallow, nested);
  }

  @Test
  void doesNotDescendIntoATable() throws IOException {
    String outer = table("orders");
    // A table directory inside a table (a stray copy, or the metadata table under .hoodie) is part of the outer one.
    table("orders/eu/copy_of_orders");

    assertThat(found(List.of(root.toString()))).containsExactly(outer);
  }

  @Test
  void skipsHiddenAndUnderscoreDirectories() throws IOException {
    String visible = table("orders");
    table(".trash/orders");
    table("_temporary/orders");

    assertThat(found(List.of(root.toString()))).containsExactly(visible);
  }

  @Test
  void aMissingRootIsACompleteScanThatFindsNothing() throws IOException {
    String found = table("lake/orders");

    List<TableDiscovery.RootScan> scans = discovery.scan(List.of(root.resolve("missing").toString(),
        root.resolve("lake").toString()));

    // Nothing there is an answer: the tables that were under it are gone.
    assertThat(scans).extracting(TableDiscovery.RootScan::complete).containsExactly(true, true);
    assertThat(TableDiscovery.tablesOf(scans)).containsExactly(found);
  }

  @Test
  void aDirectoryRemovedDuringTheWalkTakesOnlyItsOwnTables() throws IOException {
    String orders = table("orders");
    table("sales/eu/orders");
    table("sales/us/orders");
    String customers = table("crm/customers");
    FaultInjectingFileSystem fileSystem = FaultInjectingFileSystem.create();
    // rm -rf of sales after the root's listing named it, before the walk reaches it.
    fileSystem.afterListing(directory -> {
      if (directory.getName().equals(root.getFileName().toString())) {
        Directories.delete(root.resolve("sales"));
      }
    });

    List<TableDiscovery.RootScan> scans = new TableDiscovery(path -> fileSystem, 3).scan(List.of(root.toString()));

    assertThat(scans).singleElement().satisfies(scan -> {
      assertThat(scan.complete()).as(scan.failure().orElse("")).isTrue();
      assertThat(scan.tables()).containsExactly(customers, orders);
    });
  }

  @Test
  void aFailedListingMakesTheRootsScanIncompleteNamingTheCauseAndTheWalkGoesOn() throws IOException {
    String orders = table("orders");
    table("crm/customers");
    String euOrders = table("sales/eu/orders");
    FaultInjectingFileSystem fileSystem = FaultInjectingFileSystem.create();
    fileSystem.beforeListing(directory -> {
      if (directory.getName().equals("crm")) {
        throw new IOException("503 SlowDown: Please reduce your request rate");
      }
    });

    List<TableDiscovery.RootScan> scans = new TableDiscovery(path -> fileSystem, 3).scan(List.of(root.toString()));

    assertThat(scans).singleElement().satisfies(scan -> {
      assertThat(scan.complete()).isFalse();
      assertThat(scan.root()).isEqualTo(TablePaths.normalize(root.toString()));
      assertThat(scan.failure()).contains(TablePaths.normalize(root.resolve("crm").toString())
          + ": IOException: 503 SlowDown: Please reduce your request rate");
      // The failure hides only its own subtree: the walk went on with the others.
      assertThat(scan.tables()).containsExactly(orders, euOrders);
    });
  }

  @Test
  void aRootThatIsItselfATableIsFound() throws IOException {
    String table = table("orders");

    assertThat(found(List.of(root.resolve("orders").toString()))).containsExactly(table);
  }

  @Test
  void findsTablesWhoseDirectoriesHaveSpaces() throws IOException {
    String spaced = table("my tables/orders 2026");
    String plain = table("orders");

    assertThat(found(List.of(root.toString()))).containsExactly(spaced, plain);
    assertThat(spaced).isEqualTo(TablePaths.normalize(root.resolve("my tables/orders 2026").toString()));
  }

  @Test
  void rootsGivenTwiceOrAsUrisFindEachTableOnce() throws IOException {
    String table = table("orders");

    assertThat(found(List.of(root.toString(), "file://" + root + "/", root + "/./")))
        .containsExactly(table);
  }

  @Test
  void findsOneTableExactlyWhenAScanWould() throws IOException {
    String shallow = table("orders");
    String nested = table("sales/eu/orders");
    String tooDeep = table("a/b/c/too_deep");
    String hidden = table(".trash/orders");
    table("inner/outer");
    String inside = table("inner/outer/eu/copy");
    List<String> roots = List.of(root.toString());

    assertThat(discovery.find(roots, shallow)).contains(shallow);
    assertThat(discovery.find(roots, nested + "/")).contains(nested);
    assertThat(discovery.find(roots, nested.substring("file:".length()))).contains(nested);
    assertThat(discovery.find(roots, tooDeep)).isEmpty();
    assertThat(discovery.find(roots, hidden)).isEmpty();
    assertThat(discovery.find(roots, inside)).isEmpty();
    assertThat(discovery.find(roots, root.resolve("empty").toString())).isEmpty();
    assertThat(discovery.find(roots, "/elsewhere/orders")).isEmpty();
    assertThat(discovery.find(List.of(root.resolve("sales").toString()), shallow)).isEmpty();
    // Every path find accepts, a scan finds.
    assertThat(found(roots)).contains(shallow, nested).doesNotContain(tooDeep, hidden, inside);
  }
}
