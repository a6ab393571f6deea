package io.huditsd.scheduler.view;

import org.apache.hudi.avro.model.HoodieCompactionOperation;
import org.apache.hudi.avro.model.HoodieCompactionPlan;
import org.apache.hudi.common.config.HoodieMetadataConfig;
import org.apache.hudi.common.engine.HoodieEngineContext;
import org.apache.hudi.common.fs.FSUtils;
import org.apache.hudi.common.model.FileSlice;
import org.apache.hudi.common.model.HoodieBaseFile;
import org.apache.hudi.common.model.HoodieLogFile;
import org.apache.hudi.common.table.HoodieTableMetaClient;
import org.apache.hudi.common.table.timeline.HoodieInstant;
import org.apache.hudi.common.table.view.FileSystemViewManager;
import org.apache.hudi.common.table.view.HoodieTableFileSystemView;
import org.apache.hudi.common.util.CompactionUtils;
import org.apache.hudi.common.util.collection.Pair;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Computes {@link FileSliceRow}s the way operators need them.
 *
 * <p>Rows are those of Hudi's {@code hudi_filesystem_view}: every file slice of every file group over the write
 * timeline (pending instants included), listed from storage rather than from the metadata table. Scheduled and
 * unscheduled differ from Hudi 1.2.0's function, which calls a log "scheduled" when its instant equals the slice's
 * base instant; on table version 8+ log names carry the writing instant, so Hudi reports nearly every log byte as
 * unscheduled even under a pending plan. Here a log file is scheduled exactly when a pending compaction plan lists
 * it. With no compaction pending both agree: every log byte is unscheduled.
 *
 * <p>By default only live slices are listed: per file group, the latest slice with a base file and every slice
 * after it (the one a pending compaction will produce). Earlier slices were compacted already and only wait for
 * the cleaner; their logs are no backlog. {@code allSlices} lists them too, as Hudi's function does.
 */
public final class FileSliceRows {
  private FileSliceRows() {
  }

  public static List<FileSliceRow> read(HoodieEngineContext context, HoodieTableMetaClient metaClient,
                                        Optional<String> partition, boolean allSlices) {
    Set<String> scheduledLogs = scheduledLogFileNames(metaClient);
    HoodieMetadataConfig listFromStorage = HoodieMetadataConfig.newBuilder().enable(false).build();
    List<String> partitions = partition.map(List::of)
        .orElseGet(() -> FSUtils.getAllPartitionPaths(context, metaClient, false));
    List<FileSliceRow> rows = new ArrayList<>();
    try (HoodieTableFileSystemView view = FileSystemViewManager.createInMemoryFileSystemViewWithTimeline(context,
        metaClient, listFromStorage, metaClient.getActiveTimeline().getWriteTimeline())) {
      for (String partitionPath : partitions) {
        view.getAllFileGroups(partitionPath).forEach(group -> {
          List<FileSlice> slices = group.getAllFileSlices()
              .sorted(Comparator.comparing(FileSlice::getBaseInstantTime)).toList();
          int first = allSlices ? 0 : firstLiveSlice(slices);
          for (int i = first; i < slices.size(); i++) {
            rows.add(row(slices.get(i), scheduledLogs));
          }
        });
      }
    }
    rows.sort(Comparator.comparing(FileSliceRow::partitionPath).thenComparing(FileSliceRow::fileId)
        .thenComparing(FileSliceRow::baseInstantTime));
    return rows;
  }

  /** Index of the latest slice that has a base file, or 0 when none has (a log-only file group). */
  static int firstLiveSlice(List<FileSlice> slicesByBaseInstant) {
    for (int i = slicesByBaseInstant.size() - 1; i >= 0; i--) {
      if (slicesByBaseInstant.get(i).getBaseFile().isPresent()) {
        return i;
      }
    }
    return 0;
  }

  static FileSliceRow row(FileSlice slice, Set<String> scheduledLogs) {
    long logSize = 0;
    long scheduled = 0;
    int logCount = 0;
    for (HoodieLogFile log : (Iterable<HoodieLogFile>) slice.getLogFiles()::iterator) {
      long size = Math.max(0, log.getFileSize());
      logSize += size;
      logCount++;
      if (scheduledLogs.contains(log.getFileName())) {
        scheduled += size;
      }
    }
    Optional<HoodieBaseFile> base = slice.getBaseFile().isPresent()
        ? Optional.of(slice.getBaseFile().get()) : Optional.empty();
    return new FileSliceRow(slice.getFileId(), slice.getPartitionPath(), slice.getBaseInstantTime(),
        base.map(HoodieBaseFile::getPath).orElse(null), base.map(HoodieBaseFile::getFileSize).orElse(0L),
        logCount, logSize, scheduled, logSize - scheduled);
  }

  /** Names of the log files that pending compaction plans will compact. */
  static Set<String> scheduledLogFileNames(HoodieTableMetaClient metaClient) {
    Set<String> names = new HashSet<>();
    for (Pair<HoodieInstant, HoodieCompactionPlan> plan : CompactionUtils.getAllPendingCompactionPlans(metaClient)) {
      List<HoodieCompactionOperation> operations = plan.getRight().getOperations();
      if (operations == null) {
        continue;
      }
      for (HoodieCompactionOperation operation : operations) {
        if (operation.getDeltaFilePaths() != null) {
          for (String path : operation.getDeltaFilePaths()) {
            names.add(path.substring(path.lastIndexOf('/') + 1));
          }
        }
      }
    }
    return names;
  }
}
