package io.huditsd.executors.clustering;

import org.apache.parquet.hadoop.metadata.BlockMetaData;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * One output base file: the row groups it receives, in order, and the footer entries Hudi's readers and index
 * need, merged from the files those row groups come from.
 *
 * @param rowGroups the row groups, each with its source file
 * @param bloomFilter the OR of the sources' bloom filters, if they have one
 * @param minRecordKey the least record key of the sources, if they record one
 * @param maxRecordKey the greatest record key of the sources, if they record one
 */
record PlannedOutput(List<RowGroup> rowGroups, Optional<BloomFilterUnion> bloomFilter, Optional<String> minRecordKey,
                     Optional<String> maxRecordKey) {
  PlannedOutput {
    rowGroups = List.copyOf(rowGroups);
    Objects.requireNonNull(bloomFilter, "bloomFilter is null");
    Objects.requireNonNull(minRecordKey, "minRecordKey is null");
    Objects.requireNonNull(maxRecordKey, "maxRecordKey is null");
  }

  long rowCount() {
    return rowGroups.stream().mapToLong(rowGroup -> rowGroup.block().getRowCount()).sum();
  }

  /** A row group of a source file; never split. */
  record RowGroup(SourceFile source, BlockMetaData block) {
    RowGroup {
      Objects.requireNonNull(source, "source is null");
      Objects.requireNonNull(block, "block is null");
    }
  }
}
