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
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * Finds Hudi tables under discovery roots: every directory holding {@code .hoodie/hoodie.properties}, up to
 * {@code maxDepth} levels down. A table's own subtree (partitions, the metadata table) is not descended into.
 */
public final class TableDiscovery {
  private static final Logger LOG = LoggerFactory.getLogger(TableDiscovery.class);

  private final Configuration hadoopConfiguration;
  private final int maxDepth;

  public TableDiscovery(Configuration hadoopConfiguration, int maxDepth) {
    this.hadoopConfiguration = hadoopConfiguration;
    this.maxDepth = maxDepth;
  }

  /** Normalized base paths of the tables under {@code roots}; a root that cannot be read is logged and skipped. */
  public Set<String> scan(List<String> roots) {
    Set<String> found = new TreeSet<>();
    for (String root : roots) {
      Path path = new Path(TablePaths.normalize(root));
      try {
        FileSystem fileSystem = path.getFileSystem(hadoopConfiguration);
        walk(fileSystem, path, 0, found);
      } catch (FileNotFoundException e) {
        LOG.warn("Discovery root {} does not exist", root);
      } catch (IOException e) {
        LOG.warn("Discovery root {} cannot be read: {}", root, e.getMessage());
      }
    }
    return found;
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
        FileSystem fileSystem = directory.getFileSystem(hadoopConfiguration);
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

  private void walk(FileSystem fileSystem, Path directory, int depth, Set<String> found) throws IOException {
    if (fileSystem.exists(new Path(new Path(directory, ".hoodie"), "hoodie.properties"))) {
      found.add(TablePaths.normalize(directory.toString()));
      return;
    }
    if (depth >= maxDepth) {
      return;
    }
    for (FileStatus child : fileSystem.listStatus(directory)) {
      String name = child.getPath().getName();
      if (child.isDirectory() && !name.startsWith(".") && !name.startsWith("_")) {
        walk(fileSystem, child.getPath(), depth + 1, found);
      }
    }
  }
}
