package io.huditsd.executors.clustering;

import org.apache.parquet.format.RowGroup;

import java.util.List;
import java.util.Objects;

/**
 * A row group as its file's footer stores it: Parquet's Thrift structure, read, and each of its column chunks' bytes
 * in the footer, which a copy carries into its own footer with only their positions moved ({@link CompactMetadata}).
 *
 * @param rowGroup the row group read; not to be changed
 * @param chunkBytes each column chunk's bytes, in the order of {@code rowGroup}'s columns
 */
record StoredRowGroup(RowGroup rowGroup, List<byte[]> chunkBytes) {
  StoredRowGroup {
    Objects.requireNonNull(rowGroup, "rowGroup is null");
    chunkBytes = List.copyOf(chunkBytes);
    if (chunkBytes.size() != rowGroup.getColumnsSize()) {
      throw new IllegalArgumentException(chunkBytes.size() + " stored chunks for " + rowGroup.getColumnsSize()
          + " columns");
    }
  }

  /** Pairs each row group with its chunks' bytes ({@link CompactMetadata#columnChunks}). */
  static List<StoredRowGroup> of(List<RowGroup> rowGroups, List<List<byte[]>> chunkBytes) {
    if (rowGroups.size() != chunkBytes.size()) {
      throw new IllegalArgumentException(chunkBytes.size() + " stored row groups for " + rowGroups.size());
    }
    StoredRowGroup[] stored = new StoredRowGroup[rowGroups.size()];
    for (int i = 0; i < stored.length; i++) {
      stored[i] = new StoredRowGroup(rowGroups.get(i), chunkBytes.get(i));
    }
    return List.of(stored);
  }
}
