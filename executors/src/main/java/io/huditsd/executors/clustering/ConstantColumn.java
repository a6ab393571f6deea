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
import org.apache.parquet.schema.MessageType;

import java.io.IOException;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;

/**
 * The column chunks of a column that holds one value in every row, written as Parquet's own dictionary writer would
 * (a one-entry PLAIN dictionary page, then one data page of run-length-encoded definition levels and dictionary ids)
 * but without hashing and comparing the value once per row: that cost most of the CPU of writing
 * {@code _hoodie_file_name} anew for every copied row group. One instance serves one output file (one value). A chunk
 * depends only on its row count and codec, and the row groups of an output mostly have the same number of rows (the
 * sources were written with the same settings), so each shape's chunk is written once, into a file in memory
 * ({@link WrittenChunk}), and the same chunk is spliced into every row group of that shape.
 */
final class ConstantColumn {
  private static final int INITIAL_CAPACITY = 64;
  private static final int PAGE_SIZE = 64 * 1024;

  private final MessageType schema;
  private final ColumnDescriptor column;
  private final Binary value;
  private final Map<Shape, WrittenChunk> written = new HashMap<>();

  /**
   * @param schema a schema of the column alone, as in the file the chunks go into
   * @param column the column whose chunks these are: a top-level one ({@link #supports})
   */
  ConstantColumn(MessageType schema, ColumnDescriptor column, Binary value) {
    if (!supports(column)) {
      throw new IllegalArgumentException("not a top-level, non-repeated column: " + column);
    }
    this.schema = Objects.requireNonNull(schema, "schema is null");
    this.column = column;
    this.value = Objects.requireNonNull(value, "value is null");
  }

  /** Whether a {@code ConstantColumn} can write {@code column}: a top-level (non-repeated) column. */
  static boolean supports(ColumnDescriptor column) {
    return column.getMaxRepetitionLevel() == 0 && column.getPath().length == 1;
  }

  /** The chunk of {@code rows} rows, compressed by {@code compressor}: written at the first call of its shape. */
  WrittenChunk chunk(CodecFactory.BytesCompressor compressor, long rows) throws IOException {
    Shape shape = new Shape(rows, compressor.getCodecName());
    WrittenChunk chunk = written.get(shape);
    if (chunk == null) {
      chunk = WrittenChunk.write(schema, rows, writer -> write(writer, compressor, Math.toIntExact(rows)));
      written.put(shape, chunk);
    }
    return chunk;
  }

  private void write(ParquetFileWriter writer, CodecFactory.BytesCompressor compressor, int count)
      throws IOException {
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
    // The compressor reuses its output buffer: each page is written before the next is compressed.
    writer.startColumn(column, count, compressor.getCodecName());
    writer.writeDictionaryPage(new DictionaryPage(compressor.compress(BytesInput.from(dictionary)),
        dictionary.length, 1, Encoding.PLAIN_DICTIONARY));
    writer.writeDataPage(count, page.length, compressor.compress(BytesInput.from(page)), statistics, count,
        Encoding.RLE, Encoding.RLE, Encoding.PLAIN_DICTIONARY);
    writer.endColumn();
  }

  /** What a chunk's bytes depend on besides the value. */
  private record Shape(long rows, CompressionCodecName codec) {
  }
}
