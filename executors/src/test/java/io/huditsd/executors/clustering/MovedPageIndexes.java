package io.huditsd.executors.clustering;

import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.internal.column.columnindex.ColumnIndex;
import org.apache.parquet.internal.column.columnindex.OffsetIndex;

import java.io.IOException;

import static org.assertj.core.api.Assertions.assertThat;

/** Asserts a copied chunk's page indexes are its source's: the column index as stored, the offset index moved. */
final class MovedPageIndexes {
  private MovedPageIndexes() {
  }

  /**
   * Asserts {@code copied}'s column index equals {@code source}'s, and its offset index lists the same pages, each
   * moved by as much as the chunk moved.
   */
  static void assertMoved(ParquetFileReader original, ColumnChunkMetaData source, ParquetFileReader copy,
                          ColumnChunkMetaData copied) throws IOException {
    String path = copied.getPath().toDotString();
    ColumnIndex columnIndex = copy.readColumnIndex(copied);
    ColumnIndex sourceIndex = original.readColumnIndex(source);
    assertThat(columnIndex).as("column index of %s", path).isNotNull();
    assertThat(columnIndex.getBoundaryOrder()).as(path).isEqualTo(sourceIndex.getBoundaryOrder());
    assertThat(columnIndex.getNullPages()).as(path).isEqualTo(sourceIndex.getNullPages());
    assertThat(columnIndex.getNullCounts()).as(path).isEqualTo(sourceIndex.getNullCounts());
    assertThat(columnIndex.getMinValues()).as(path).isEqualTo(sourceIndex.getMinValues());
    assertThat(columnIndex.getMaxValues()).as(path).isEqualTo(sourceIndex.getMaxValues());
    OffsetIndex offsets = copy.readOffsetIndex(copied);
    OffsetIndex sourceOffsets = original.readOffsetIndex(source);
    long moved = copied.getStartingPos() - source.getStartingPos();
    assertThat(offsets).as("offset index of %s", path).isNotNull();
    assertThat(offsets.getPageCount()).as("pages of %s", path).isEqualTo(sourceOffsets.getPageCount());
    for (int page = 0; page < offsets.getPageCount(); page++) {
      assertThat(offsets.getOffset(page)).as("page %s of %s", page, path)
          .isEqualTo(sourceOffsets.getOffset(page) + moved);
      assertThat(offsets.getCompressedPageSize(page)).as("page %s of %s", page, path)
          .isEqualTo(sourceOffsets.getCompressedPageSize(page));
      assertThat(offsets.getFirstRowIndex(page)).as("page %s of %s", page, path)
          .isEqualTo(sourceOffsets.getFirstRowIndex(page));
    }
  }
}
