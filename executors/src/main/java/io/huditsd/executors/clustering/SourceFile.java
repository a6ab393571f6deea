package io.huditsd.executors.clustering;

import org.apache.hadoop.fs.Path;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;

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
 */
record SourceFile(Path path, long footerOffset, ParquetMetadata footer) {
  SourceFile {
    Objects.requireNonNull(path, "path is null");
    Objects.requireNonNull(footer, "footer is null");
    if (footerOffset < 0) {
      throw new IllegalArgumentException("footerOffset " + footerOffset + " is negative: " + path);
    }
  }
}
