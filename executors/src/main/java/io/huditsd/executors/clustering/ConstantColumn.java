package io.huditsd.executors.clustering;

import org.apache.parquet.bytes.BytesInput;
import org.apache.parquet.bytes.BytesUtils;
import org.apache.parquet.bytes.HeapByteBufferAllocator;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.Encoding;
import org.apache.parquet.column.page.DictionaryPage;
import org.apache.parquet.column.statistics.Statistics;
import org.apache.parquet.column.values.rle.RunLengthBitPackingHybridEncoder;
import org.apache.parquet.hadoop.CodecFactory;
import org.apache.parquet.hadoop.ParquetFileWriter;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.schema.MessageType;

import java.io.ByteArrayOutputStream;
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
  /** The fewest repeats the RLE encoder writes as a run ({@code RunLengthBitPackingHybridEncoder}: 8). */
  private static final int MIN_RUN = 8;
  /** The most repeats whose run header ({@code count << 1}) fits the encoder's int. */
  private static final int MAX_RUN = Integer.MAX_VALUE >> 1;

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

    BytesInput definitionLevels = BytesInput.empty();
    int maxDefinition = column.getMaxDefinitionLevel();
    if (maxDefinition > 0) {
      // As RunLengthBitPackingHybridValuesWriter writes levels: their length, then their encoding.
      byte[] levels = repeated(maxDefinition, BytesUtils.getWidthFromMaxInt(maxDefinition), count);
      definitionLevels = BytesInput.concat(BytesInput.fromInt(levels.length), BytesInput.from(levels));
    }
    // One dictionary entry: ids are 0 bits wide, and the page holds one run of zeros.
    byte[] page = BytesInput.concat(definitionLevels, BytesInput.from(new byte[] {0}),
        BytesInput.from(repeated(0, 0, count))).toByteArray();
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

  /**
   * Parquet's RLE/bit-packed hybrid encoding of {@code count} copies of {@code value}, byte for byte as
   * {@link RunLengthBitPackingHybridEncoder} writes it, without handing it every copy (in a short-lived process
   * that loop runs before the JIT compiler has compiled it: two loops of a row group's rows took most of the 15-22 ms
   * of the first chunk). From {@link #MIN_RUN} copies on the encoder writes a single RLE run: the count shifted left
   * a bit as an unsigned varint, then the value in the whole bytes its width needs. Fewer copies go through the
   * encoder, which packs them.
   */
  static byte[] repeated(int value, int bitWidth, int count) throws IOException {
    if (count < MIN_RUN || count > MAX_RUN) {
      RunLengthBitPackingHybridEncoder encoder = new RunLengthBitPackingHybridEncoder(bitWidth, INITIAL_CAPACITY,
          PAGE_SIZE, HeapByteBufferAllocator.getInstance());
      try {
        for (int i = 0; i < count; i++) {
          encoder.writeInt(value);
        }
        return encoder.toBytes().toByteArray();
      } finally {
        encoder.close();
      }
    }
    ByteArrayOutputStream run = new ByteArrayOutputStream(9);
    BytesUtils.writeUnsignedVarInt(count << 1, run);
    BytesUtils.writeIntLittleEndianPaddedOnBitWidth(run, value, bitWidth);
    return run.toByteArray();
  }

  /** What a chunk's bytes depend on besides the value. */
  private record Shape(long rows, CompressionCodecName codec) {
  }
}
