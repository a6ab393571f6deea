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
