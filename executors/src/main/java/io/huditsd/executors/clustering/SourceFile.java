package io.huditsd.executors.clustering;

import org.apache.hadoop.fs.Path;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;

import java.util.List;
import java.util.Objects;

/**
 * A base file to copy from, with its footer as read once during layout. The footer kept here has no Hudi bloom
 * filter in its key-value metadata (the largest part of a small file's footer): holding one per file would make
 * memory grow with the group.
 *
 * @param path the file
 * @param footerOffset where its footer starts (within the file: the footer's reader checks it): every row group,
 *     page index and Parquet bloom filter lies before, so a copy reads no further
 * @param footer its footer without the bloom filter entries
 * @param storedRowGroups its row groups as the footer stores them, in the order of {@code footer}'s blocks: what a
 *     copy writes into the new footer, offsets moved
 */
record SourceFile(Path path, long footerOffset, ParquetMetadata footer, List<StoredRowGroup> storedRowGroups) {
  SourceFile {
    Objects.requireNonNull(path, "path is null");
    Objects.requireNonNull(footer, "footer is null");
    storedRowGroups = List.copyOf(storedRowGroups);
    if (footerOffset < 0) {
      throw new IllegalArgumentException("footerOffset " + footerOffset + " is negative: " + path);
    }
    if (storedRowGroups.size() != footer.getBlocks().size()) {
      throw new IllegalArgumentException(storedRowGroups.size() + " stored row groups for "
          + footer.getBlocks().size() + " blocks: " + path);
    }
  }

  /** The stored form of one of {@link #footer}'s blocks. */
  StoredRowGroup stored(BlockMetaData block) {
    List<BlockMetaData> blocks = footer.getBlocks();
    for (int i = 0; i < blocks.size(); i++) {
      if (blocks.get(i) == block) {
        return storedRowGroups.get(i);
      }
    }
    throw new IllegalArgumentException("not a row group of " + path + ": " + block);
  }
}
