package io.huditsd.executors;

import org.apache.hudi.client.WriteStatus;
import org.apache.hudi.common.model.HoodieWriteStat;
import org.apache.hudi.table.action.HoodieWriteMetadata;

import java.util.List;

/** Sums of the write statistics of a compaction or clustering commit. */
record WriteStatsTotals(long fileGroups, long bytesWritten) {
  static WriteStatsTotals of(HoodieWriteMetadata<List<WriteStatus>> metadata) {
    List<HoodieWriteStat> stats = metadata.getWriteStats().isPresent()
        ? metadata.getWriteStats().get()
        : metadata.getWriteStatuses() == null ? List.of()
            : metadata.getWriteStatuses().stream().map(WriteStatus::getStat).toList();
    long written = 0;
    for (HoodieWriteStat stat : stats) {
      written += stat.getTotalWriteBytes();
    }
    return new WriteStatsTotals(stats.size(), written);
  }
}
