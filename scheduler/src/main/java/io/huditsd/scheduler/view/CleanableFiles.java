package io.huditsd.scheduler.view;

import org.apache.hudi.common.engine.HoodieEngineContext;
import org.apache.hudi.common.model.CleanFileInfo;
import org.apache.hudi.common.model.FileSlice;
import org.apache.hudi.common.model.HoodieFileGroup;
import org.apache.hudi.common.table.HoodieTableMetaClient;
import org.apache.hudi.common.table.view.SyncableFileSystemView;
import org.apache.hudi.config.HoodieWriteConfig;
import org.apache.hudi.table.HoodieJavaTable;
import org.apache.hudi.table.HoodieTable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * What the table's next clean would delete if it ran now (see {@link CleanCandidates}): file versions that only
 * take storage, and grow while cleaning lags behind or a pending instant holds its boundary back.
 *
 * @param files base and log files the clean would delete
 * @param bytes their size, as the table's file-system view lists them (a bootstrap base file counts 0)
 */
public record CleanableFiles(long files, long bytes) {
  private static final Logger LOG = LoggerFactory.getLogger(CleanableFiles.class);

  /**
   * Reads the figures with the table's own write config (its clean policy and retention). Costs what planning a
   * clean costs (the commit metadata since the last clean, the file groups of the partitions it touched); a table
   * whose figures cannot be computed gets none rather than a failed poll, since servicing it does not depend on them.
   */
  public static Optional<CleanableFiles> read(HoodieEngineContext context, HoodieTableMetaClient metaClient,
                                              HoodieWriteConfig config) {
    HoodieTable<?, ?, ?, ?> table = null;
    try {
      table = HoodieJavaTable.create(config, context, metaClient);
      CleanCandidates candidates = CleanCandidates.of(context, table, config);
      return Optional.of(sum(table.getHoodieView(), candidates));
    } catch (IOException | RuntimeException e) {
      LOG.warn("Could not compute the cleanable files of {}: {}", metaClient.getBasePath(), e.toString());
      return Optional.empty();
    } finally {
      if (table != null) {
        table.getHoodieView().close();
      }
    }
  }

  private static CleanableFiles sum(SyncableFileSystemView view, CleanCandidates candidates) {
    long files = 0;
    long bytes = 0;
    for (Map.Entry<String, List<CleanFileInfo>> partition : candidates.filesByPartition().entrySet()) {
      // The planner has just loaded these partitions into the view, replaced file groups included.
      Map<String, Long> sizes = new HashMap<>();
      Stream.concat(view.getAllFileGroups(partition.getKey()), view.getAllReplacedFileGroups(partition.getKey()))
          .flatMap(HoodieFileGroup::getAllRawFileSlices)
          .forEach(slice -> addSizes(slice, sizes));
      for (CleanFileInfo file : partition.getValue()) {
        files++;
        bytes += sizes.getOrDefault(file.getFilePath(), 0L);
      }
    }
    return new CleanableFiles(files, bytes);
  }

  private static void addSizes(FileSlice slice, Map<String, Long> sizes) {
    slice.getBaseFile().ifPresent(base -> sizes.put(base.getPath(), Math.max(base.getFileSize(), 0)));
    slice.getLogFiles().forEach(log -> sizes.put(log.getPath().toString(), Math.max(log.getFileSize(), 0)));
  }
}
