package io.huditsd.executors.clustering;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.hudi.client.WriteStatus;
import org.apache.hudi.common.fs.FSUtils;
import org.apache.hudi.common.model.HoodieWriteStat;
import org.apache.hudi.common.model.IOType;
import org.apache.hudi.common.util.HoodieTimer;
import org.apache.hudi.config.HoodieWriteConfig;
import org.apache.hudi.exception.HoodieIOException;
import org.apache.hudi.storage.HoodieStorage;
import org.apache.hudi.storage.StoragePath;
import org.apache.hudi.table.marker.WriteMarkers;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

/**
 * Writes the output files of one copyable clustering group, each under a new file group id, with a marker first
 * (so that a failed attempt is rolled back like any other write), and returns their write statuses.
 */
final class GroupCopier {
  private static final Logger LOG = LoggerFactory.getLogger(GroupCopier.class);

  private final HoodieWriteConfig config;
  private final HoodieStorage storage;
  private final WriteMarkers markers;
  private final RowGroupCopier copier;
  private final CopiedFileStats columnStats;
  private final String instantTime;
  private final String extension;

  GroupCopier(HoodieWriteConfig config, HoodieStorage storage, Configuration conf, WriteMarkers markers,
              CopiedFileStats columnStats, String instantTime, String extension) {
    this.config = Objects.requireNonNull(config, "config is null");
    this.storage = Objects.requireNonNull(storage, "storage is null");
    this.markers = Objects.requireNonNull(markers, "markers is null");
    this.copier = new RowGroupCopier(conf);
    this.columnStats = Objects.requireNonNull(columnStats, "columnStats is null");
    this.instantTime = Objects.requireNonNull(instantTime, "instantTime is null");
    this.extension = Objects.requireNonNull(extension, "extension is null");
  }

  List<WriteStatus> copy(String partitionPath, GroupLayout.Layout layout) {
    List<WriteStatus> statuses = new ArrayList<>(layout.outputs().size());
    StoragePath basePath = new StoragePath(config.getBasePath());
    StoragePath partition = FSUtils.constructAbsolutePath(basePath, partitionPath);
    for (PlannedOutput output : layout.outputs()) {
      HoodieTimer timer = HoodieTimer.start();
      String fileId = FSUtils.createNewFileId(FSUtils.createNewFileIdPfx(), 0);
      String fileName = FSUtils.makeBaseFileName(instantTime, FSUtils.makeWriteToken(0, 0, 0), fileId, extension);
      StoragePath target = new StoragePath(partition, fileName);
      markers.create(partitionPath, fileName, IOType.CREATE);
      RowGroupCopier.Written written;
      long size;
      try {
        written = copier.write(new Path(target.toUri()), layout.schema(), layout.keyValueMetadata(), output);
        size = storage.getPathInfo(target).getLength();
      } catch (IOException e) {
        throw new HoodieIOException("Cannot copy row groups into " + target + ": " + e.getMessage(), e);
      }
      HoodieWriteStat stat = new HoodieWriteStat();
      stat.setPartitionPath(partitionPath);
      stat.setFileId(fileId);
      stat.setPath(basePath, target);
      stat.setPrevCommit(HoodieWriteStat.NULL_COMMIT);
      stat.setNumWrites(written.rows());
      stat.setNumInserts(written.rows());
      stat.setTotalWriteErrors(0);
      stat.setTotalWriteBytes(size);
      stat.setFileSizeInBytes(size);
      long statsStart = System.nanoTime();
      columnStats.of(written.footer(), fileName).ifPresent(stat::putRecordsStats);
      long statsNanos = System.nanoTime() - statsStart;
      HoodieWriteStat.RuntimeStats runtime = new HoodieWriteStat.RuntimeStats();
      runtime.setTotalCreateTime(timer.endTimer());
      stat.setRuntimeStats(runtime);
      WriteStatus status = new WriteStatus(false, 0.0);
      status.setFileId(fileId);
      status.setPartitionPath(partitionPath);
      status.setTotalRecords(written.rows());
      status.setStat(stat);
      statuses.add(status);
      BinaryCopyMetrics.COPIED_BYTES.inc(size);
      // Where the time went besides the row groups' bytes, so that a slow copy shows which part is slow.
      LOG.info("Copied {} row groups ({} rows) into {} ({} bytes; reading sources {} ms, page indexes and footer {} ms,"
          + " column statistics {} ms) in {} ms", output.rowGroups().size(), written.rows(), target, size,
          TimeUnit.NANOSECONDS.toMillis(written.readNanos()), TimeUnit.NANOSECONDS.toMillis(written.tailNanos()),
          TimeUnit.NANOSECONDS.toMillis(statsNanos), runtime.getTotalCreateTime());
    }
    BinaryCopyMetrics.COPIED_GROUPS.inc();
    return statuses;
  }
}
