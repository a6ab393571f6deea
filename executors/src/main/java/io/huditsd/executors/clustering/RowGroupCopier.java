package io.huditsd.executors.clustering;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.LocalFileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hudi.common.model.HoodieRecord;
import org.apache.hudi.parquet.io.ByteArraySeekableInputStream;
import org.apache.parquet.Version;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.ColumnWriteStore;
import org.apache.parquet.column.ColumnWriter;
import org.apache.parquet.column.ParquetProperties;
import org.apache.parquet.format.ColumnChunk;
import org.apache.parquet.hadoop.CodecFactory;
import org.apache.parquet.hadoop.ColumnChunkPageWriteStore;
import org.apache.parquet.hadoop.ParquetFileWriter;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.hadoop.metadata.ColumnPath;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.hadoop.metadata.FileMetaData;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.apache.parquet.hadoop.util.HadoopOutputFile;
import org.apache.parquet.hadoop.util.HadoopStreams;
import org.apache.parquet.io.OutputFile;
import org.apache.parquet.io.PositionOutputStream;
import org.apache.parquet.io.SeekableInputStream;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.Type;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Pass two of copying a clustering group: writes one output base file from whole row groups of the sources. Column
 * chunks are appended as they are stored (compressed pages, dictionary, statistics, page indexes) by
 * {@link SplicedParquetWriter}, without decompressing or decoding a value. Only two kinds of chunk are written anew,
 * one per row group, by Parquet's writer into a file in memory ({@link WrittenChunk}) and spliced from there: Hudi's
 * {@code _hoodie_file_name}, which must name the new file (a single value, dictionary-encoded), and a column the
 * source lacks, written as nulls.
 */
final class RowGroupCopier {
  /**
   * A source file up to this size is read whole with one call into a reused buffer, and its chunks and page
   * indexes are served from memory; a larger one is read a row group at a time (up to this size too) or streamed.
   */
  // Package-private: CopyHeap sizes a copy by it.
  static final int MAX_BUFFERED = 64 * 1024 * 1024;
  private static final ColumnPath FILE_NAME_COLUMN = ColumnPath.get(HoodieRecord.FILENAME_METADATA_FIELD);
  /** How much of a streamed chunk is read at a time. */
  private static final int STREAM_CHUNK = 1024 * 1024;

  private final Configuration conf;
  /** {@link #MAX_BUFFERED}, smaller in tests of the streamed path. */
  private final int maxBuffered;
  /** Holds a whole small source file, or one row group of a large one. Reused: memory follows the largest. */
  private byte[] buffer = new byte[0];

  RowGroupCopier(Configuration conf) {
    this(conf, MAX_BUFFERED);
  }

  RowGroupCopier(Configuration conf, int maxBuffered) {
    this.conf = Objects.requireNonNull(conf, "conf is null");
    if (maxBuffered < 0) {
      throw new IllegalArgumentException("maxBuffered must not be negative: " + maxBuffered);
    }
    this.maxBuffered = maxBuffered;
  }

  /**
   * What was written: the footer as written (for column statistics) and the number of rows, with where the time
   * went besides copying row groups, for the log.
   *
   * @param readNanos opening the sources and reading (and checking) the bytes held in memory
   * @param tailNanos writing the page indexes, bloom filters and footer after the row groups
   */
  record Written(ParquetMetadata footer, long rows, long readNanos, long tailNanos) {
  }

  Written write(Path target, MessageType schema, Map<String, String> keyValueMetadata, PlannedOutput output)
      throws IOException {
    CodecFactory codecs = new CodecFactory(conf, ParquetProperties.DEFAULT_PAGE_SIZE);
    PositionOutputStream out = outputFile(target).create(ParquetWriterDefaults.ROW_GROUP_SIZE);
    try {
      return write(new SplicedParquetWriter(out, schema), codecs, target, schema, keyValueMetadata, output);
    } catch (IOException | RuntimeException | Error e) {
      try {
        out.close();
      } catch (IOException suppressed) {
        e.addSuppressed(suppressed);
      }
      throw e;
    } finally {
      codecs.release();
    }
  }

  private Written write(SplicedParquetWriter writer, CodecFactory codecs, Path target, MessageType schema,
                        Map<String, String> keyValueMetadata, PlannedOutput output) throws IOException {
    Binary fileName = Binary.fromString(target.getName());
    ColumnDescriptor fileNameColumn = schema.getColumns().stream()
        .filter(column -> ColumnPath.get(column.getPath()).equals(FILE_NAME_COLUMN)).findFirst().orElse(null);
    // Written once per shape of row group (rows, codec) and spliced into each row group of that shape.
    ConstantColumn fileNames = fileNameColumn != null && ConstantColumn.supports(fileNameColumn)
        ? new ConstantColumn(singleColumn(schema, fileNameColumn), fileNameColumn, fileName) : null;
    List<BlockMetaData> blocks = new ArrayList<>(output.rowGroups().size());
    long rows = 0;
    long readNanos = 0;
    OpenSource open = null;
    try {
      for (PlannedOutput.RowGroup rowGroup : output.rowGroups()) {
        if (open == null || open.source != rowGroup.source()) {
          if (open != null) {
            open.close();
          }
          long start = System.nanoTime();
          open = open(rowGroup.source());
          readNanos += System.nanoTime() - start;
        }
        blocks.add(copyRowGroup(writer, codecs, schema, open, rowGroup.block(), fileName, fileNames));
        rows += rowGroup.block().getRowCount();
      }
    } finally {
      if (open != null) {
        open.close();
      }
    }
    Map<String, String> footerEntries = new LinkedHashMap<>(keyValueMetadata);
    output.bloomFilter().ifPresent(filter -> {
      footerEntries.put(GroupLayout.BLOOM_FILTER_KEY, filter.serialized());
      footerEntries.put(GroupLayout.BLOOM_TYPE_KEY, filter.typeCode());
    });
    output.minRecordKey().ifPresent(key -> footerEntries.put(GroupLayout.MIN_KEY, key));
    output.maxRecordKey().ifPresent(key -> footerEntries.put(GroupLayout.MAX_KEY, key));
    long tailStart = System.nanoTime();
    writer.end(footerEntries);
    long tailNanos = System.nanoTime() - tailStart;
    // The footer in Parquet's object model, as Parquet's writer keeps it, without converting the stored one back.
    return new Written(new ParquetMetadata(new FileMetaData(schema, footerEntries, Version.FULL_VERSION), blocks),
        rows, readNanos, tailNanos);
  }

  /** Copies a row group; returns it as written. */
  private BlockMetaData copyRowGroup(SplicedParquetWriter writer, CodecFactory codecs, MessageType schema,
                                     OpenSource open, BlockMetaData block, Binary fileName, ConstantColumn fileNames)
      throws IOException {
    // The footer's converter keeps the stored chunks' order: a chunk's position finds both of its forms.
    StoredRowGroup stored = open.source.stored(block);
    List<ColumnChunk> storedChunks = stored.rowGroup().getColumns();
    Map<ColumnPath, Integer> positions = new HashMap<>();
    long first = Long.MAX_VALUE;
    long end = Long.MIN_VALUE;
    for (int i = 0; i < block.getColumns().size(); i++) {
      ColumnChunkMetaData chunk = block.getColumns().get(i);
      positions.put(chunk.getPath(), i);
      first = Math.min(first, chunk.getStartingPos());
      end = Math.max(end, chunk.getStartingPos() + chunk.getTotalSize());
    }
    SplicedParquetWriter.ChunkBytes bytes = open.bytes;
    long length = end - first;
    if (!open.inMemory && length <= maxBuffered) {
      bytes = inMemory(fill(open.data, first, (int) length), first, (int) length);
    }
    CompressionCodecName codec = block.getColumns().get(0).getCodec();
    long rows = block.getRowCount();
    BlockMetaData written = new BlockMetaData();
    written.setRowCount(rows);
    writer.startRowGroup(rows);
    for (ColumnDescriptor column : schema.getColumns()) {
      ColumnPath path = ColumnPath.get(column.getPath());
      Integer position = positions.get(path);
      ColumnChunkMetaData chunk = position == null ? null : block.getColumns().get(position);
      CompressionCodecName chunkCodec = chunk == null ? codec : chunk.getCodec();
      WrittenChunk anew = null;
      if (path.equals(FILE_NAME_COLUMN) && fileNames != null) {
        anew = fileNames.chunk(codecs.getCompressor(chunkCodec), rows);
      } else if (path.equals(FILE_NAME_COLUMN)) {
        anew = WrittenChunk.write(singleColumn(schema, column), rows,
            pages -> writeColumn(pages, codecs, schema, column, chunkCodec, rows, fileName));
      } else if (chunk == null) {
        anew = WrittenChunk.write(singleColumn(schema, column), rows,
            pages -> writeColumn(pages, codecs, schema, column, chunkCodec, rows, null));
      }
      if (anew != null) {
        written.addColumn(moved(anew.metadata(), writer.append(anew.stored(), anew.storedBytes(), anew.bytes(),
            anew.stream())));
      } else {
        // Page indexes and Parquet's own bloom filters sit outside the row group: read from the file's stream.
        written.addColumn(moved(chunk, writer.append(storedChunks.get(position),
            stored.chunkBytes().get(position), bytes, open.data)));
      }
    }
    writer.endRowGroup();
    written.setTotalByteSize(written.getColumns().stream()
        .mapToLong(ColumnChunkMetaData::getTotalUncompressedSize).sum());
    return written;
  }

  /** {@code chunk}'s metadata with its pages' offsets moved to {@code start}, as Parquet's writer moves them. */
  private static ColumnChunkMetaData moved(ColumnChunkMetaData chunk, long start) {
    long delta = start - chunk.getStartingPos();
    return ColumnChunkMetaData.get(chunk.getPath(), chunk.getPrimitiveType(), chunk.getCodec(),
        chunk.getEncodingStats(), chunk.getEncodings(), chunk.getStatistics(), chunk.getFirstDataPageOffset() + delta,
        chunk.getDictionaryPageOffset() > 0 ? chunk.getDictionaryPageOffset() + delta : 0, chunk.getValueCount(),
        chunk.getTotalSize(), chunk.getTotalUncompressedSize());
  }

  /** The bytes of {@code file}'s positions {@code base} to {@code base + length}, held in {@code bytes}. */
  private static SplicedParquetWriter.ChunkBytes inMemory(byte[] bytes, long base, int length) {
    return (to, position, count) -> {
      if (position < base || count < 0 || position + count > base + length) {
        throw new IOException("a column chunk at " + position + " of " + count + " bytes lies outside the bytes"
            + " read (" + base + " to " + (base + length) + "): corrupt footer");
      }
      to.write(bytes, (int) (position - base), (int) count);
    };
  }

  /** The bytes of the file behind {@code in}, read through {@link #buffer}'s first part at a time. */
  private SplicedParquetWriter.ChunkBytes streamed(SeekableInputStream in) {
    return (to, position, count) -> {
      if (buffer.length < STREAM_CHUNK) {
        buffer = new byte[STREAM_CHUNK];
      }
      in.seek(position);
      long left = count;
      while (left > 0) {
        int read = (int) Math.min(left, buffer.length);
        in.readFully(buffer, 0, read);
        to.write(buffer, 0, read);
        left -= read;
      }
    };
  }

  /**
   * Where an output is written. On a local disk, through Hadoop's raw local file system: the checksummed one
   * computes a CRC of every 512 bytes into a {@code .crc} file beside the output, which doubled the cost of reading
   * and writing the bytes (about 190 ms more CPU for 230 MB; bench/LocalChecksumCost.java). That file is Hadoop's
   * own (HDFS keeps block checksums of its own, object stores have none); Hudi and Spark read a file without one.
   * Sources are still verified against their checksum files (by {@link LocalChecksummedRead}, or Hadoop's checksummed
   * stream for a large one), so a corrupt source fails the copy instead of being carried into the output. Elsewhere
   * the path's own file system, as Parquet's {@code HadoopOutputFile}.
   */
  private OutputFile outputFile(Path target) throws IOException {
    FileSystem fileSystem = target.getFileSystem(conf);
    if (fileSystem instanceof LocalFileSystem local) {
      return new RawOutputFile(local.getRawFileSystem(), target);
    }
    return HadoopOutputFile.fromPath(target, conf);
  }

  /** Parquet's {@code HadoopOutputFile} on a file system given, not the one the path's scheme resolves to. */
  private record RawOutputFile(FileSystem fileSystem, Path path) implements OutputFile {
    private static final int BUFFER_SIZE = 64 * 1024;

    @Override
    public PositionOutputStream create(long blockSizeHint) throws IOException {
      return create(blockSizeHint, false);
    }

    @Override
    public PositionOutputStream createOrOverwrite(long blockSizeHint) throws IOException {
      return create(blockSizeHint, true);
    }

    private PositionOutputStream create(long blockSizeHint, boolean overwrite) throws IOException {
      return HadoopStreams.wrap(fileSystem.create(path, overwrite, BUFFER_SIZE, fileSystem.getDefaultReplication(path),
          Math.max(fileSystem.getDefaultBlockSize(path), blockSizeHint)));
    }

    @Override
    public boolean supportsBlockSize() {
      return true;
    }

    @Override
    public long defaultBlockSize() {
      return fileSystem.getDefaultBlockSize(path);
    }

    @Override
    public String getPath() {
      return path.toString();
    }
  }

  /** Writes a chunk of {@code rows} copies of {@code value}, or of nulls when it is null. */
  private static void writeColumn(ParquetFileWriter writer, CodecFactory codecs, MessageType schema,
                                  ColumnDescriptor column, CompressionCodecName codec, long rows, Binary value)
      throws IOException {
    ParquetProperties properties = ParquetProperties.builder().build();
    MessageType columnSchema = singleColumn(schema, column);
    ColumnChunkPageWriteStore pages = new ColumnChunkPageWriteStore(codecs.getCompressor(codec), columnSchema,
        properties.getAllocator(), properties.getColumnIndexTruncateLength());
    ColumnWriteStore store = properties.newColumnWriteStore(columnSchema, pages);
    ColumnWriter columnWriter = store.getColumnWriter(column);
    int definedLevel = column.getMaxDefinitionLevel();
    for (long row = 0; row < rows; row++) {
      if (value == null) {
        // Null at the top level: the column's top-level field was added after the source was written.
        columnWriter.writeNull(0, 0);
      } else {
        columnWriter.write(value, 0, definedLevel);
      }
      store.endRecord();
    }
    store.flush();
    pages.flushToFileWriter(writer);
    store.close();
  }

  /** The schema holding only {@code column}'s path, which a single-column write store needs. */
  private static MessageType singleColumn(MessageType schema, ColumnDescriptor column) {
    String[] path = column.getPath();
    Type type = schema.getType(path[0]);
    if (path.length == 1) {
      return new MessageType(schema.getName(), type);
    }
    return new MessageType(schema.getName(), prune(type, path, 0));
  }

  private static Type prune(Type type, String[] path, int depth) {
    if (type.isPrimitive() || depth == path.length - 1) {
      return type;
    }
    Type child = type.asGroupType().getType(path[depth + 1]);
    return type.asGroupType().withNewFields(List.of(prune(child, path, depth + 1)));
  }

  /**
   * Opens a source: everything before its footer read into the buffer when small enough, otherwise as a stream.
   * The footer was read during layout; Hudi's bloom filter makes it a third of a small base file.
   */
  private OpenSource open(SourceFile source) throws IOException {
    FileSystem fileSystem = source.path().getFileSystem(conf);
    if (source.footerOffset() > maxBuffered) {
      SeekableInputStream in = HadoopStreams.wrap(fileSystem.open(source.path()));
      return new OpenSource(source, in, streamed(in), false);
    }
    int length = (int) source.footerOffset();
    byte[] bytes;
    if (fileSystem instanceof LocalFileSystem local) {
      // Verified against the file's .crc as Hadoop's checksummed stream would, with a fraction of its calls.
      bytes = LocalChecksummedRead.read(local, source.path(), length, this::bufferOf);
    } else {
      try (FSDataInputStream stream = fileSystem.open(source.path())) {
        bytes = fill(HadoopStreams.wrap(stream), 0, length);
      }
    }
    return new OpenSource(source, new ByteArraySeekableInputStream(bytes, 0, length), inMemory(bytes, 0, length),
        true);
  }

  private byte[] fill(SeekableInputStream in, long position, int length) throws IOException {
    bufferOf(length);
    in.seek(position);
    in.readFully(buffer, 0, length);
    return buffer;
  }

  /** {@link #buffer}, grown to at least {@code length} bytes. */
  private byte[] bufferOf(int length) {
    if (buffer.length < length) {
      buffer = new byte[length];
    }
    return buffer;
  }

  /**
   * A source file opened for copying: its bytes in memory, or a stream on it.
   *
   * @param data a stream on the file (on its bytes in memory, when they are)
   * @param bytes the file's bytes for copying chunks: from memory or from {@code data}
   */
  private record OpenSource(SourceFile source, SeekableInputStream data, SplicedParquetWriter.ChunkBytes bytes,
                            boolean inMemory) implements AutoCloseable {
    @Override
    public void close() throws IOException {
      data.close();
    }
  }
}
