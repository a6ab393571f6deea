package io.huditsd.executors.clustering;

import org.apache.parquet.bytes.BytesInput;
import org.apache.parquet.bytes.BytesUtils;
import org.apache.parquet.bytes.HeapByteBufferAllocator;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.Encoding;
import org.apache.parquet.column.page.DictionaryPage;
import org.apache.parquet.column.statistics.Statistics;
import org.apache.parquet.column.values.rle.RunLengthBitPackingHybridEncoder;
import org.apache.parquet.column.values.rle.RunLengthBitPackingHybridValuesWriter;
import org.apache.parquet.hadoop.CodecFactory;
import org.apache.parquet.hadoop.ParquetFileWriter;
import org.apache.parquet.io.api.Binary;

import java.io.IOException;

/**
 * Writes a column chunk that holds the same value in every row, as Parquet's own dictionary writer would (a
 * one-entry PLAIN dictionary page, then one data page of run-length-encoded definition levels and dictionary ids),
 * but without hashing and comparing the value once per row: that cost most of the CPU of writing
 * {@code _hoodie_file_name} anew for every copied row group.
 */
final class ConstantColumn {
  private static final int INITIAL_CAPACITY = 64;
  private static final int PAGE_SIZE = 64 * 1024;

  private ConstantColumn() {
  }

  /** Whether {@link #write} can write {@code column}: a top-level (non-repeated) column. */
  static boolean supports(ColumnDescriptor column) {
    return column.getMaxRepetitionLevel() == 0 && column.getPath().length == 1;
  }

  static void write(ParquetFileWriter writer, CodecFactory.BytesCompressor compressor, ColumnDescriptor column,
                    long rows, Binary value) throws IOException {
    int count = Math.toIntExact(rows);
    byte[] bytes = value.getBytes();
    HeapByteBufferAllocator allocator = HeapByteBufferAllocator.getInstance();

    BytesInput definitionLevels = BytesInput.empty();
    RunLengthBitPackingHybridValuesWriter levels = null;
    int maxDefinition = column.getMaxDefinitionLevel();
    if (maxDefinition > 0) {
      levels = new RunLengthBitPackingHybridValuesWriter(BytesUtils.getWidthFromMaxInt(maxDefinition),
          INITIAL_CAPACITY, PAGE_SIZE, allocator);
      for (int row = 0; row < count; row++) {
        levels.writeInteger(maxDefinition);
      }
      definitionLevels = levels.getBytes();
    }
    // One dictionary entry: ids are 0 bits wide, and the page holds one run of zeros.
    RunLengthBitPackingHybridEncoder ids = new RunLengthBitPackingHybridEncoder(0, INITIAL_CAPACITY, PAGE_SIZE,
        allocator);
    for (int row = 0; row < count; row++) {
      ids.writeInt(0);
    }
    byte[] page = BytesInput.concat(definitionLevels, BytesInput.from(new byte[] {0}), ids.toBytes()).toByteArray();
    ids.close();
    if (levels != null) {
      levels.close();
    }
    byte[] dictionary = BytesInput.concat(BytesInput.fromInt(bytes.length), BytesInput.from(bytes)).toByteArray();
    Statistics<?> statistics = Statistics.getBuilderForReading(column.getPrimitiveType())
        .withMin(bytes).withMax(bytes).withNumNulls(0).build();

    writer.startColumn(column, count, compressor.getCodecName());
    // The compressor reuses its output buffer: each page is written before the next is compressed.
    writer.writeDictionaryPage(new DictionaryPage(compressor.compress(BytesInput.from(dictionary)), dictionary.length,
        1, Encoding.PLAIN_DICTIONARY));
    writer.writeDataPage(count, page.length, compressor.compress(BytesInput.from(page)), statistics, count,
        Encoding.RLE, Encoding.RLE, Encoding.PLAIN_DICTIONARY);
    writer.endColumn();
  }
}
