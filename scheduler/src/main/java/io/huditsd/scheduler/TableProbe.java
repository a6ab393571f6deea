package io.huditsd.scheduler;

import io.huditsd.executors.CorruptInstantException;
import io.huditsd.executors.HudiTables;
import io.huditsd.executors.InstantFileCheck;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hudi.common.table.HoodieTableMetaClient;
import org.apache.hudi.common.table.HoodieTableVersion;
import org.apache.hudi.metadata.HoodieTableMetadataUtil;

import java.io.IOException;
import java.util.List;
import java.util.Set;

/** Checks that a path is a Hudi table the daemon can service, failing with a message that names the path. */
public final class TableProbe {
  /** Table versions serviced: 6 (Hudi 0.14-0.16), 8 (1.0) and 9 (1.1+). */
  public static final Set<Integer> SUPPORTED_VERSIONS = Set.of(6, 8, 9);
  private static final String UNTIL_RESTORED = " (the table is not serviced until the file is restored)";

  private final Configuration hadoopConfiguration;

  public TableProbe(Configuration hadoopConfiguration) {
    this.hadoopConfiguration = hadoopConfiguration;
  }

  /** Cheap checks that need no Hudi client: the path exists and holds {@code .hoodie/hoodie.properties}. */
  public void requireTableLayout(String basePath) {
    Path base = new Path(basePath);
    try {
      FileSystem fileSystem = base.getFileSystem(hadoopConfiguration);
      if (!fileSystem.exists(base)) {
        throw new TableProblem(basePath + ": path does not exist");
      }
      if (!fileSystem.getFileStatus(base).isDirectory()) {
        throw new TableProblem(basePath + ": is a file, not a Hudi table directory");
      }
      if (!fileSystem.exists(new Path(new Path(base, ".hoodie"), "hoodie.properties"))) {
        throw new TableProblem(basePath + ": not a Hudi table (no .hoodie/hoodie.properties)");
      }
    } catch (IOException e) {
      throw new TableProblem(basePath + ": cannot be read: " + e.getMessage(), e);
    }
  }

  /**
   * Refuses tables the daemon must not write: versions other than 6, 8 and 9 (it never upgrades), and tables with
   * expression indexes, which Hudi's Java engine cannot update, so a compaction committed by the daemon would
   * leave them stale.
   */
  public static void requireSupportedVersion(HoodieTableMetaClient metaClient) {
    HoodieTableVersion version = metaClient.getTableConfig().getTableVersion();
    if (!SUPPORTED_VERSIONS.contains(version.versionCode())) {
      throw new TableProblem(metaClient.getBasePath() + ": unsupported table version " + version.versionCode()
          + " (hudi-tsd services table versions 6, 8 and 9 and never upgrades a table)");
    }
    List<String> expressionIndexes = metaClient.getTableConfig().getMetadataPartitions().stream()
        .filter(partition -> partition.startsWith(HoodieTableMetadataUtil.PARTITION_NAME_EXPRESSION_INDEX_PREFIX))
        .sorted().toList();
    if (!expressionIndexes.isEmpty()) {
      throw new TableProblem(metaClient.getBasePath() + ": has expression indexes " + expressionIndexes
          + ", which Hudi's Java engine cannot update; hudi-tsd leaves this table to its Spark or Flink writers");
    }
  }

  /**
   * The table's meta client, its {@code hoodie.properties} read now. Hudi answers a file it cannot read with a bare
   * {@code HoodieIOException} (after about five seconds of retries), or, where no checksum file catches the garbage,
   * with "table not found"; both are refused here, naming the file.
   *
   * @throws TableProblem naming {@code hoodie.properties} and what is wrong with it
   */
  public static HoodieTableMetaClient load(HudiTables tables, String basePath) {
    String properties = basePath + "/.hoodie/hoodie.properties";
    try {
      return tables.metaClient(basePath);
    } catch (RuntimeException e) {
      throw new TableProblem(basePath + ": table config " + properties + " cannot be read: " + rootCause(e)
          + UNTIL_RESTORED, e);
    }
  }

  /**
   * What an operation that plans, previews, executes or lists a table opens: {@link #load} and then
   * {@link #requireReadableInstants}, so that it answers the same problem a poll or a run would.
   *
   * @throws TableProblem naming the file Hudi cannot read
   */
  public static HoodieTableMetaClient openReadable(HudiTables tables, String basePath) {
    HoodieTableMetaClient metaClient = load(tables, basePath);
    requireReadableInstants(tables.instantFiles(), metaClient);
    return metaClient;
  }

  /** The innermost cause's type and the first line of its message. */
  private static String rootCause(Throwable error) {
    Throwable root = error;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    String message = root.getMessage() == null ? "" : root.getMessage().lines().findFirst().orElse("");
    return root.getClass().getSimpleName() + (message.isEmpty() ? "" : ": " + message);
  }

  /** Refuses a table with an instant file that Hudi cannot read, naming the file (see {@link InstantFileCheck}). */
  public static void requireReadableInstants(InstantFileCheck check, HoodieTableMetaClient metaClient) {
    try {
      check.verify(metaClient);
    } catch (CorruptInstantException e) {
      throw new TableProblem(e.getMessage(), e);
    }
  }
}
