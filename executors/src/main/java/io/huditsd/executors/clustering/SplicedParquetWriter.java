package io.huditsd.executors.clustering;

import org.apache.parquet.Version;
import org.apache.parquet.bytes.BytesUtils;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.format.BloomFilterHeader;
import org.apache.parquet.format.ColumnChunk;
import org.apache.parquet.format.ColumnMetaData;
import org.apache.parquet.format.ColumnOrder;
import org.apache.parquet.format.FileMetaData;
import org.apache.parquet.format.KeyValue;
import org.apache.parquet.format.OffsetIndex;
import org.apache.parquet.format.RowGroup;
import org.apache.parquet.format.SchemaElement;
import org.apache.parquet.format.Util;
import org.apache.parquet.format.converter.ParquetMetadataConverter;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.apache.parquet.io.PositionOutputStream;
import org.apache.parquet.io.SeekableInputStream;
import org.apache.parquet.schema.MessageType;
import shaded.parquet.org.apache.thrift.TException;
import shaded.parquet.org.apache.thrift.protocol.TProtocol;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Writes a Parquet file out of column chunks stored in other Parquet files. Each chunk's bytes, its metadata as its
 * footer stores it (encodings, statistics, sizes), its column index and its Parquet bloom filter are carried over as
 * stored; only offsets are moved: the chunk's page offsets in its metadata and the page locations of its offset
 * index. The output's layout is the one Parquet's own writer gives a file: the row groups, then every column index,
 * every offset index, every bloom filter, and the footer, with the same format version, writer name, schema and
 * column orders.
 *
 * <p>Parquet's {@code ParquetFileWriter} can append stored chunks as well, but converts each chunk's metadata and page
 * indexes into its object model on the way in and back into Thrift structures at the end, and copies the bytes eight
 * kilobytes at a time; for a copy of many small files those conversions cost more than the bytes (see
 * docs/benchmarks.md). Here a chunk's metadata and offset index are moved in their stored bytes
 * ({@link CompactMetadata}), without Thrift objects for them. Chunks whose bytes must be written anew (Hudi's
 * file-name column, a column a source lacks) are written by Parquet's writer into a file in memory and spliced from
 * there ({@link WrittenChunk}).
 *
 * <p>Unencrypted files only: an encrypted chunk's metadata and indexes are bound to its position (module AADs).
 */
final class SplicedParquetWriter {
  private static final byte[] MAGIC = "PAR1".getBytes(StandardCharsets.US_ASCII);
  /** The format version Parquet's writer writes ({@code ParquetFileWriter.CURRENT_VERSION}). */
  private static final int FORMAT_VERSION = 1;
  /** Parquet's own limit for a bloom filter's bitset ({@code BlockSplitBloomFilter.UPPER_BOUND_BYTES}). */
  private static final int MAX_BLOOM_FILTER_BYTES = 128 * 1024 * 1024;
  /** A page index larger than this is taken for a corrupt length rather than read into memory. */
  private static final int MAX_INDEX_BYTES = 64 * 1024 * 1024;

  private final PositionOutputStream out;
  private final List<ColumnDescriptor> columns;
  private final List<SchemaElement> schemaElements;
  private final List<ColumnOrder> columnOrders;
  private final List<RowGroupWritten> rowGroups = new ArrayList<>();
  /** Every chunk written, in file order, with what goes after the row groups. */
  private final List<Moved> moved = new ArrayList<>();
  /** Chunks appended and not yet written: one run of consecutive bytes of one source. */
  private final Run pending = new Run();
  private List<ColumnChunk> currentChunks;
  private long currentRows;
  private long currentStart;
  private long rows;

  /**
   * Writes the magic that starts a Parquet file.
   *
   * @param out where the file goes; closed by {@link #end}
   */
  SplicedParquetWriter(PositionOutputStream out, MessageType schema) throws IOException {
    this.out = Objects.requireNonNull(out, "out is null");
    this.columns = schema.getColumns();
    // Schema elements and column orders as Parquet's writer derives them from the schema.
    FileMetaData empty = new ParquetMetadataConverter().toParquetMetadata(FORMAT_VERSION, new ParquetMetadata(
        new org.apache.parquet.hadoop.metadata.FileMetaData(schema, Map.of(), Version.FULL_VERSION), List.of()));
    this.schemaElements = empty.getSchema();
    this.columnOrders = empty.getColumn_orders();
    out.write(MAGIC);
  }

  /**
   * Where a chunk's bytes are copied from. The bytes may be written only when the row group ends: chunks that lie
   * one after the other in the same source are written with one call, which takes a row group's chunks past the
   * output stream's buffer instead of through it (a copy of every byte less).
   */
  @FunctionalInterface
  interface ChunkBytes {
    /** Writes {@code length} bytes of the stored file, from {@code position} on, to {@code to}. */
    void copyTo(OutputStream to, long position, long length) throws IOException;
  }

  void startRowGroup(long rowCount) {
    if (currentChunks != null) {
      throw new IllegalStateException("a row group is already started");
    }
    currentChunks = new ArrayList<>(columns.size());
    currentRows = rowCount;
  }

  /**
   * Appends the next column of the current row group.
   *
   * @param stored the chunk as its file's footer stores it, read; not changed
   * @param storedBytes the same chunk's bytes in its footer ({@link CompactMetadata#columnChunks}), which the new
   *     footer carries over with its positions moved
   * @param bytes its file's bytes, from which the chunk's ({@code stored.meta_data.total_compressed_size} bytes
   *     from its {@link #start}) are copied, at the latest when the row group ends: they must stay as they are
   *     until then
   * @param file a stream on its file, from which its page indexes and bloom filter are read now
   * @return where the chunk starts in the output
   */
  long append(ColumnChunk stored, byte[] storedBytes, ChunkBytes bytes, SeekableInputStream file)
      throws IOException {
    if (currentChunks == null) {
      throw new IllegalStateException("no row group started");
    }
    if (currentChunks.size() == columns.size()) {
      throw new IllegalStateException("the row group already has every column");
    }
    Objects.requireNonNull(storedBytes, "storedBytes is null");
    ColumnDescriptor column = columns.get(currentChunks.size());
    ColumnMetaData storedMeta = stored.getMeta_data();
    if (storedMeta == null || stored.isSetCrypto_metadata() || stored.isSetEncrypted_column_metadata()) {
      throw new IOException("column chunk of " + Arrays.toString(column.getPath()) + " has no plain metadata"
          + " (encrypted?)");
    }
    if (stored.isSetFile_path()) {
      // Parquet lets a footer point at chunks in another file; no writer Hudi or Spark uses does, and the bytes
      // handed here are those of the footer's own file.
      throw new IOException("column chunk of " + Arrays.toString(column.getPath()) + " is stored in another file: "
          + stored.getFile_path());
    }
    if (!storedMeta.getPath_in_schema().equals(Arrays.asList(column.getPath()))) {
      throw new IllegalStateException("chunk of " + storedMeta.getPath_in_schema() + " where "
          + Arrays.toString(column.getPath()) + " comes");
    }
    long start = start(storedMeta);
    long length = storedMeta.getTotal_compressed_size();
    byte[] columnIndex = columnIndex(stored, file);
    byte[] offsetIndex = offsetIndex(stored, file);
    byte[] bloomFilter = bloomFilter(storedMeta, file);

    // Where the output is once the chunks before this one are written.
    long newStart = out.getPos() + pending.length;
    pending.add(out, bytes, start, length);
    if (currentChunks.isEmpty()) {
      currentStart = newStart;
    }
    currentChunks.add(stored);
    moved.add(new Moved(stored, storedBytes, newStart - start, columnIndex, offsetIndex, bloomFilter));
    return newStart;
  }

  /** Writes the row group's chunks not yet written. */
  void endRowGroup() throws IOException {
    if (currentChunks == null || currentChunks.size() != columns.size()) {
      throw new IllegalStateException("a row group needs " + columns.size() + " columns, has "
          + (currentChunks == null ? "none started" : currentChunks.size()));
    }
    pending.write(out);
    long uncompressed = 0;
    long compressed = 0;
    for (ColumnChunk chunk : currentChunks) {
      uncompressed += chunk.getMeta_data().getTotal_uncompressed_size();
      compressed += chunk.getMeta_data().getTotal_compressed_size();
    }
    rowGroups.add(new RowGroupWritten(currentChunks.size(), currentRows, currentStart, uncompressed, compressed));
    rows += currentRows;
    currentChunks = null;
  }

  /**
   * Writes the page indexes, bloom filters and footer, and closes the stream.
   */
  void end(Map<String, String> keyValueMetadata) throws IOException {
    if (currentChunks != null) {
      throw new IllegalStateException("a row group is not ended");
    }
    long[] columnIndexOffsets = new long[moved.size()];
    for (int i = 0; i < moved.size(); i++) {
      columnIndexOffsets[i] = writeIfPresent(moved.get(i).columnIndex());
    }
    long[] offsetIndexOffsets = new long[moved.size()];
    int[] offsetIndexLengths = new int[moved.size()];
    for (int i = 0; i < moved.size(); i++) {
      Moved chunk = moved.get(i);
      byte[] offsetIndex = chunk.offsetIndex() == null ? null
          : CompactMetadata.movedOffsetIndex(chunk.offsetIndex(), chunk.delta());
      offsetIndexOffsets[i] = writeIfPresent(offsetIndex);
      offsetIndexLengths[i] = offsetIndex == null ? 0 : offsetIndex.length;
    }
    long[] bloomFilterOffsets = new long[moved.size()];
    for (int i = 0; i < moved.size(); i++) {
      bloomFilterOffsets[i] = writeIfPresent(moved.get(i).bloomFilter());
    }
    // The footer's chunks, moved as bytes (CompactMetadata) now that their page indexes have their places.
    List<RowGroup> footerRowGroups = new ArrayList<>(rowGroups.size());
    int next = 0;
    for (RowGroupWritten written : rowGroups) {
      List<ColumnChunk> chunks = new ArrayList<>(written.columns());
      for (int i = 0; i < written.columns(); i++, next++) {
        Moved chunk = moved.get(next);
        byte[] columnIndex = chunk.columnIndex();
        CompactMetadata.IndexPositions positions = new CompactMetadata.IndexPositions(columnIndexOffsets[next],
            columnIndex == null ? -1 : columnIndex.length, offsetIndexOffsets[next], offsetIndexLengths[next],
            bloomFilterOffsets[next]);
        chunks.add(new MovedBytes(CompactMetadata.movedColumnChunk(chunk.storedBytes(), chunk.delta(),
            chunk.stored().getMeta_data().getData_page_offset() + chunk.delta(), positions)));
      }
      RowGroup rowGroup = new RowGroup(chunks, written.totalByteSize(), written.rows());
      rowGroup.setFile_offset(written.fileOffset());
      rowGroup.setTotal_compressed_size(written.compressedSize());
      // As Parquet's writer numbers them.
      rowGroup.setOrdinal((short) footerRowGroups.size());
      footerRowGroups.add(rowGroup);
    }
    FileMetaData footer = new FileMetaData(FORMAT_VERSION, schemaElements, rows, footerRowGroups);
    for (Map.Entry<String, String> entry : keyValueMetadata.entrySet()) {
      KeyValue keyValue = new KeyValue(entry.getKey());
      keyValue.setValue(entry.getValue());
      footer.addToKey_value_metadata(keyValue);
    }
    footer.setCreated_by(Version.FULL_VERSION);
    footer.setColumn_orders(columnOrders);
    long footerStart = out.getPos();
    Util.writeFileMetaData(footer, out);
    BytesUtils.writeIntLittleEndian(out, Math.toIntExact(out.getPos() - footerStart));
    out.write(MAGIC);
    out.close();
  }

  /** Writes {@code bytes} when there are any: where they start in the output, or -1 when there are none. */
  private long writeIfPresent(byte[] bytes) throws IOException {
    if (bytes == null) {
      return -1;
    }
    long offset = out.getPos();
    out.write(bytes);
    return offset;
  }

  /**
   * Where a chunk's first page starts in its file, as Parquet's reader takes it
   * ({@code ColumnChunkMetaData.getStartingPos}): its dictionary page when the offset of one is set and before the
   * first data page, otherwise the first data page.
   */
  static long start(ColumnMetaData meta) {
    long dictionary = meta.isSetDictionary_page_offset() ? meta.getDictionary_page_offset() : 0;
    return dictionary > 0 && dictionary < meta.getData_page_offset() ? dictionary : meta.getData_page_offset();
  }

  /** The chunk's column index as stored, or null when it has none. */
  private static byte[] columnIndex(ColumnChunk chunk, SeekableInputStream file) throws IOException {
    if (!chunk.isSetColumn_index_offset()) {
      return null;
    }
    return read(file, chunk.getColumn_index_offset(), chunk.getColumn_index_length(), MAX_INDEX_BYTES,
        "column index");
  }

  /** The chunk's offset index as stored (its page locations still where the source has them), or null. */
  private static byte[] offsetIndex(ColumnChunk chunk, SeekableInputStream file) throws IOException {
    if (!chunk.isSetOffset_index_offset()) {
      return null;
    }
    if (chunk.isSetOffset_index_length()) {
      return read(file, chunk.getOffset_index_offset(), chunk.getOffset_index_length(), MAX_INDEX_BYTES,
          "offset index");
    }
    // No writer we know leaves the length out; Thrift's reader finds the end, and its writer gives the bytes.
    file.seek(chunk.getOffset_index_offset());
    OffsetIndex index = Util.readOffsetIndex(file);
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    Util.writeOffsetIndex(index, bytes);
    return bytes.toByteArray();
  }

  /** The chunk's Parquet bloom filter as stored, header and bitset, or null when it has none. */
  private static byte[] bloomFilter(ColumnMetaData meta, SeekableInputStream file) throws IOException {
    if (!meta.isSetBloom_filter_offset() || meta.getBloom_filter_offset() < 0) {
      return null;
    }
    long offset = meta.getBloom_filter_offset();
    file.seek(offset);
    BloomFilterHeader header = Util.readBloomFilterHeader(file);
    long headerLength = file.getPos() - offset;
    if (header.getNumBytes() <= 0 || header.getNumBytes() > MAX_BLOOM_FILTER_BYTES) {
      throw new IOException("corrupt bloom filter of " + meta.getPath_in_schema() + " at " + offset + ": "
          + header.getNumBytes() + " bytes");
    }
    return read(file, offset, Math.toIntExact(headerLength + header.getNumBytes()),
        MAX_INDEX_BYTES + MAX_BLOOM_FILTER_BYTES, "bloom filter");
  }

  private static byte[] read(SeekableInputStream file, long offset, int length, int max, String what)
      throws IOException {
    if (offset < 0 || length < 0 || length > max) {
      throw new IOException("corrupt " + what + " reference: offset " + offset + ", length " + length);
    }
    byte[] bytes = new byte[length];
    file.seek(offset);
    file.readFully(bytes);
    return bytes;
  }

  /** Consecutive bytes of one source, to be written with one call. */
  private static final class Run {
    private ChunkBytes bytes;
    private long start;
    private long length;

    /** Adds a chunk, after writing the run so far to {@code out} if the chunk does not continue it. */
    void add(OutputStream out, ChunkBytes chunkBytes, long chunkStart, long chunkLength) throws IOException {
      if (length > 0 && (bytes != chunkBytes || start + length != chunkStart)) {
        write(out);
      }
      if (length == 0) {
        bytes = chunkBytes;
        start = chunkStart;
      }
      length += chunkLength;
    }

    void write(OutputStream out) throws IOException {
      if (length > 0) {
        bytes.copyTo(out, start, length);
      }
      bytes = null;
      length = 0;
    }
  }

  /** A row group as its chunks were written: what its footer entry gives besides the chunks. */
  private record RowGroupWritten(int columns, long rows, long fileOffset, long totalByteSize, long compressedSize) {
  }

  /**
   * A chunk as appended: its stored form, how far its pages move, and what goes after the row groups (page indexes
   * as stored, offset index not yet moved).
   */
  private record Moved(ColumnChunk stored, byte[] storedBytes, long delta, byte[] columnIndex, byte[] offsetIndex,
                       byte[] bloomFilter) {
  }

  /**
   * A row group's chunk in the footer Thrift writes: its moved bytes, written as they are where Thrift's writer
   * would serialize a ColumnChunk object field by field (what this writer exists to avoid; see
   * {@link CompactMetadata}). Only Thrift's writer sees these; their fields are unset.
   */
  private static final class MovedBytes extends ColumnChunk {
    private final byte[] bytes;

    MovedBytes(byte[] bytes) {
      this.bytes = bytes;
    }

    @Override
    public void write(TProtocol protocol) throws TException {
      protocol.getTransport().write(bytes);
    }
  }
}
