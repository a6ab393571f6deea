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

    assertThat(discovery.scan(List.of(root.toString()))).containsExactly(shallow, nested);
  }

  @Test
  void doesNotDescendIntoATable() throws IOException {
    String outer = table("orders");
    // A table directory inside a table (a stray copy, or the metadata table under .hoodie) is part of the outer one.
    table("orders/eu/copy_of_orders");

    assertThat(discovery.scan(List.of(root.toString()))).containsExactly(outer);
  }

  @Test
  void skipsHiddenAndUnderscoreDirectories() throws IOException {
    String visible = table("orders");
    table(".trash/orders");
    table("_temporary/orders");

    assertThat(discovery.scan(List.of(root.toString()))).containsExactly(visible);
  }

  @Test
  void ignoresMissingRootsAndScansTheOthers() throws IOException {
    String found = table("lake/orders");

    assertThat(discovery.scan(List.of(root.resolve("missing").toString(), root.resolve("lake").toString())))
        .containsExactly(found);
  }

  @Test
  void aRootThatIsItselfATableIsFound() throws IOException {
    String table = table("orders");

    assertThat(discovery.scan(List.of(root.resolve("orders").toString()))).containsExactly(table);
  }

  @Test
  void findsTablesWhoseDirectoriesHaveSpaces() throws IOException {
    String spaced = table("my tables/orders 2026");
    String plain = table("orders");

    assertThat(discovery.scan(List.of(root.toString()))).containsExactly(spaced, plain);
    assertThat(spaced).isEqualTo(TablePaths.normalize(root.resolve("my tables/orders 2026").toString()));
  }

  @Test
  void rootsGivenTwiceOrAsUrisFindEachTableOnce() throws IOException {
    String table = table("orders");

    assertThat(discovery.scan(List.of(root.toString(), "file://" + root + "/", root + "/./")))
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
    assertThat(discovery.scan(roots)).contains(shallow, nested).doesNotContain(tooDeep, hidden, inside);
  }
}
