package io.huditsd.executors.clustering;

import org.apache.parquet.column.values.bloomfilter.BlockSplitBloomFilter;
import org.apache.parquet.column.values.bloomfilter.BloomFilter;
import org.apache.parquet.format.BloomFilterHeader;
import org.apache.parquet.format.Util;
import org.apache.parquet.format.converter.ParquetMetadataConverter;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.internal.column.columnindex.ColumnIndex;
import org.apache.parquet.internal.column.columnindex.OffsetIndex;
import org.apache.parquet.internal.hadoop.metadata.IndexReference;
import org.apache.parquet.io.SeekableInputStream;

import java.io.IOException;

/**
 * Reads a column chunk's page indexes and Parquet bloom filter from a stream on its file, as Parquet's file reader
 * does, so that a file read once into memory serves them too (the reader would open the file again). Each is
 * absent (null) when the writer wrote none.
 */
final class PageIndexes {
  private PageIndexes() {
  }

  static ColumnIndex columnIndex(SeekableInputStream in, ColumnChunkMetaData chunk) throws IOException {
    IndexReference reference = chunk.getColumnIndexReference();
    if (reference == null) {
      return null;
    }
    in.seek(reference.getOffset());
    return ParquetMetadataConverter.fromParquetColumnIndex(chunk.getPrimitiveType(), Util.readColumnIndex(in));
  }

  static OffsetIndex offsetIndex(SeekableInputStream in, ColumnChunkMetaData chunk) throws IOException {
    IndexReference reference = chunk.getOffsetIndexReference();
    if (reference == null) {
      return null;
    }
    in.seek(reference.getOffset());
    return ParquetMetadataConverter.fromParquetOffsetIndex(Util.readOffsetIndex(in));
  }

  /** Parquet's split-block bloom filter (not Hudi's, which lives in the footer); null for another kind. */
  static BloomFilter bloomFilter(SeekableInputStream in, ColumnChunkMetaData chunk) throws IOException {
    long offset = chunk.getBloomFilterOffset();
    if (offset < 0) {
      return null;
    }
    in.seek(offset);
    BloomFilterHeader header = Util.readBloomFilterHeader(in);
    if (!header.getAlgorithm().isSetBLOCK() || !header.getHash().isSetXXHASH()
        || !header.getCompression().isSetUNCOMPRESSED() || header.getNumBytes() <= 0) {
      return null;
    }
    byte[] bitset = new byte[header.getNumBytes()];
    in.readFully(bitset);
    return new BlockSplitBloomFilter(bitset);
  }
}
