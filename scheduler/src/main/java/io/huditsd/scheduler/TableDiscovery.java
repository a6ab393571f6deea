package io.huditsd.scheduler;

import io.huditsd.config.TablePaths;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

import static java.util.Objects.requireNonNull;

/**
 * Finds Hudi tables under discovery roots: every directory holding {@code .hoodie/hoodie.properties}, up to
 * {@code maxDepth} levels down. A table's own subtree (partitions, the metadata table) is not descended into. Each
 * root's scan says whether it is complete, so that a failed listing is never read as tables having gone.
 */
public final class TableDiscovery {
  private static final Logger LOG = LoggerFactory.getLogger(TableDiscovery.class);

  private final FileSystems fileSystems;
  private final int maxDepth;

  public TableDiscovery(Configuration hadoopConfiguration, int maxDepth) {
    this(path -> path.getFileSystem(requireNonNull(hadoopConfiguration, "hadoopConfiguration is null")), maxDepth);
  }

  TableDiscovery(FileSystems fileSystems, int maxDepth) {
    this.fileSystems = requireNonNull(fileSystems, "fileSystems is null");
    this.maxDepth = maxDepth;
  }

  /** How discovery reaches a root's file system; a seam for tests that make listings fail or directories vanish. */
  @FunctionalInterface
  interface FileSystems {
    FileSystem of(Path path) throws IOException;
  }

  /**
   * What a scan of one root found. A complete scan saw every directory it meant to (one that vanished while the walk
   * was under way is gone, and so are its tables); an incomplete one stopped at a failure (a listing refused,
   * throttled, timed out) and says nothing about the tables it did not reach.
   *
   * @param root the root as configured, normalized
   * @param tables normalized base paths of the tables found
   * @param failure why the scan is incomplete; empty when it is complete
   */
  public record RootScan(String root, Set<String> tables, Optional<String> failure) {
    public RootScan {
      requireNonNull(root, "root is null");
      tables = Collections.unmodifiableSet(new TreeSet<>(requireNonNull(tables, "tables is null")));
      requireNonNull(failure, "failure is null");
    }

    public boolean complete() {
      return failure.isEmpty();
    }
  }

  /** One scan of each root, in the order of {@code roots}. */
  public List<RootScan> scan(List<String> roots) {
    List<RootScan> scans = new ArrayList<>();
    for (String root : roots) {
      scans.add(scanRoot(TablePaths.normalize(root)));
    }
    return scans;
  }

  /** The tables every scan in {@code scans} found, each once. */
  public static Set<String> tablesOf(List<RootScan> scans) {
    Set<String> found = new TreeSet<>();
    scans.forEach(scan -> found.addAll(scan.tables()));
    return found;
  }

  private RootScan scanRoot(String root) {
    Path path = new Path(root);
    Set<String> found = new TreeSet<>();
    List<String> failures = new ArrayList<>();
    try {
      FileSystem fileSystem = fileSystems.of(path);
      try {
        fileSystem.getFileStatus(path);
      } catch (FileNotFoundException e) {
        // Nothing there is a complete answer: the tables that were under it are gone (or the root is misspelt).
        LOG.warn("Discovery root {} does not exist", root);
        return new RootScan(root, found, Optional.empty());
      }
      walk(fileSystem, path, 0, found, failures);
    } catch (IOException | RuntimeException e) {
      failures.add(0, describe(path, e));
    }
    if (failures.isEmpty()) {
      return new RootScan(root, found, Optional.empty());
    }
    String failure = failures.size() == 1 ? failures.get(0)
        : failures.size() + " listings failed, the first: " + failures.get(0);
    return new RootScan(root, found, Optional.of(failure));
  }

  private static String describe(Path directory, Exception e) {
    return directory + ": " + e.getClass().getSimpleName() + ": " + e.getMessage();
  }

  /**
   * The table at {@code basePath}, normalized and written with its root's scheme, when a scan of {@code roots} would
   * find it: a Hudi table at most {@code maxDepth} levels under a root, through no hidden ({@code .}, {@code _})
   * directory and no other table. Lets a table be registered when a writer first names it, before the next scan.
   */
  public Optional<String> find(List<String> roots, String basePath) {
    String path = TablePaths.normalize(basePath);
    for (String root : roots) {
      String normalizedRoot = TablePaths.normalize(root);
      Optional<String> relative = relative(normalizedRoot, path);
      if (relative.isEmpty()) {
        continue;
      }
      List<String> segments = relative.get().isEmpty() ? List.of() : List.of(relative.get().split("/"));
      if (segments.size() > maxDepth
          || segments.stream().anyMatch(name -> name.startsWith(".") || name.startsWith("_"))) {
        continue;
      }
      try {
        Path directory = new Path(normalizedRoot);
        FileSystem fileSystem = fileSystems.of(directory);
        boolean underAnotherTable = false;
        for (String segment : segments) {
          if (isTable(fileSystem, directory)) {
            underAnotherTable = true;
            break;
          }
          directory = new Path(directory, segment);
        }
        if (!underAnotherTable && isTable(fileSystem, directory)) {
          return Optional.of(TablePaths.normalize(directory.toString()));
        }
      } catch (IOException e) {
        LOG.warn("Table {} under discovery root {} cannot be checked: {}", basePath, root, e.getMessage());
      }
    }
    return Optional.empty();
  }

  /** {@code path} relative to {@code root} ("" for the root itself); S3's schemes name the same locations. */
  private static Optional<String> relative(String root, String path) {
    if (path.equals(root)) {
      return Optional.of("");
    }
    if (path.startsWith(root + "/")) {
      return Optional.of(path.substring(root.length() + 1));
    }
    int rootScheme = root.indexOf("://");
    int pathScheme = path.indexOf("://");
    if (rootScheme > 0 && pathScheme > 0) {
      String inRootScheme = root.substring(0, rootScheme) + path.substring(pathScheme);
      if (!inRootScheme.equals(path) && TablePaths.sameLocation(inRootScheme, path)) {
        return relative(root, inRootScheme);
      }
    }
    return Optional.empty();
  }

  private static boolean isTable(FileSystem fileSystem, Path directory) throws IOException {
    return fileSystem.exists(new Path(new Path(directory, ".hoodie"), "hoodie.properties"));
  }

  /**
   * Adds the tables under {@code directory} to {@code found}. A subdirectory that cannot be read is added to
   * {@code failures} and the walk goes on with its siblings, so that one failed listing hides only its own subtree;
   * a failure to read {@code directory} itself is thrown.
   */
  private void walk(FileSystem fileSystem, Path directory, int depth, Set<String> found, List<String> failures)
      throws IOException {
    if (isTable(fileSystem, directory)) {
      found.add(TablePaths.normalize(directory.toString()));
      return;
    }
    if (depth >= maxDepth) {
      return;
    }
    FileStatus[] children;
    try {
      children = fileSystem.listStatus(directory);
    } catch (FileNotFoundException e) {
      if (depth == 0) {
        // The root itself went away after it was seen: not a listing to trust as empty.
        throw e;
      }
      // Removed between its parent's listing and this one: it and its tables are gone, the rest of the walk stands.
      LOG.debug("Directory {} vanished during the discovery scan; skipped", directory);
      return;
    }
    for (FileStatus child : children) {
      String name = child.getPath().getName();
      if (child.isDirectory() && !name.startsWith(".") && !name.startsWith("_")) {
        try {
          walk(fileSystem, child.getPath(), depth + 1, found, failures);
        } catch (IOException | RuntimeException e) {
          failures.add(describe(child.getPath(), e));
        }
      }
    }
  }
}
