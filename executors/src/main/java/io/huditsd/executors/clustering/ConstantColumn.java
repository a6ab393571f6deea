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
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.io.api.Binary;

import java.io.IOException;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;

/**
 * Writes column chunks that hold one value in every row, as Parquet's own dictionary writer would (a one-entry
 * PLAIN dictionary page, then one data page of run-length-encoded definition levels and dictionary ids), but without
 * hashing and comparing the value once per row: that cost most of the CPU of writing {@code _hoodie_file_name} anew
 * for every copied row group. One instance serves one output file (one value): a chunk depends only on its row count
 * and codec, and the row groups of an output mostly have the same number of rows (the sources were written with the
 * same settings), so each chunk is encoded and compressed once and its bytes written again for the row groups after.
 */
final class ConstantColumn {
  private static final int INITIAL_CAPACITY = 64;
  private static final int PAGE_SIZE = 64 * 1024;

  private final ColumnDescriptor column;
  private final Binary value;
  private final Map<Shape, Chunk> encoded = new HashMap<>();

  ConstantColumn(ColumnDescriptor column, Binary value) {
    if (!supports(column)) {
      throw new IllegalArgumentException("not a top-level, non-repeated column: " + column);
    }
    this.column = column;
    this.value = Objects.requireNonNull(value, "value is null");
  }

  /** Whether a {@code ConstantColumn} can write {@code column}: a top-level (non-repeated) column. */
  static boolean supports(ColumnDescriptor column) {
    return column.getMaxRepetitionLevel() == 0 && column.getPath().length == 1;
  }

  /** Writes the chunk of {@code rows} rows into the writer's current row group. */
  void write(ParquetFileWriter writer, CodecFactory.BytesCompressor compressor, long rows) throws IOException {
    int count = Math.toIntExact(rows);
    Shape shape = new Shape(count, compressor.getCodecName());
    Chunk chunk = encoded.get(shape);
    if (chunk == null) {
      chunk = encode(compressor, count);
      encoded.put(shape, chunk);
    }
    writer.startColumn(column, count, shape.codec());
    writer.writeDictionaryPage(new DictionaryPage(BytesInput.from(chunk.dictionary()), chunk.dictionarySize(), 1,
        Encoding.PLAIN_DICTIONARY));
    writer.writeDataPage(count, chunk.pageSize(), BytesInput.from(chunk.page()), chunk.statistics(), count,
        Encoding.RLE, Encoding.RLE, Encoding.PLAIN_DICTIONARY);
    writer.endColumn();
  }

  private Chunk encode(CodecFactory.BytesCompressor compressor, int count) throws IOException {
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
    // The compressor reuses its output buffer: each page is copied out before the next is compressed.
    byte[] compressedDictionary = compressor.compress(BytesInput.from(dictionary)).toByteArray();
    byte[] compressedPage = compressor.compress(BytesInput.from(page)).toByteArray();
    return new Chunk(compressedDictionary, dictionary.length, compressedPage, page.length, statistics);
  }

  /** What a chunk's bytes depend on besides the value. */
  private record Shape(int rows, CompressionCodecName codec) {
  }

  /**
   * A chunk's pages, compressed with its shape's codec, with their uncompressed sizes. The arrays are never handed
   * out: each write wraps them in a new {@link BytesInput}, which the writer only reads. The statistics are only read
   * too (the writer copies or merges them into its own).
   */
  private record Chunk(byte[] dictionary, int dictionarySize, byte[] page, int pageSize, Statistics<?> statistics) {
  }
}
