package io.huditsd.executors.clustering;

import org.apache.hudi.parquet.io.ByteArraySeekableInputStream;
import org.apache.parquet.column.ParquetProperties;
import org.apache.parquet.format.ColumnChunk;
import org.apache.parquet.format.FileMetaData;
import org.apache.parquet.format.Util;
import org.apache.parquet.format.converter.ParquetMetadataConverter;
import org.apache.parquet.hadoop.ParquetFileWriter;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.io.OutputFile;
import org.apache.parquet.io.PositionOutputStream;
import org.apache.parquet.io.SeekableInputStream;
import org.apache.parquet.schema.MessageType;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;
import java.util.Map;

/**
 * A column chunk that Parquet's own writer wrote, as the only chunk of a one-row-group file in memory, so that
 * {@link SplicedParquetWriter} splices it into a copy like a chunk of a source: its pages, metadata and page indexes
 * are all Parquet's. Used for the chunks a copy writes anew (Hudi's file-name column, a column a source lacks).
 */
final class WrittenChunk {
  /** The footer's length (4 bytes, little-endian) and the magic that end a file. */
  private static final int TAIL = 8;

  private static final ParquetMetadataConverter CONVERTER = new ParquetMetadataConverter();

  private final byte[] file;
  private final ColumnChunk stored;
  private final byte[] storedBytes;
  private final ColumnChunkMetaData metadata;

  private WrittenChunk(byte[] file, ColumnChunk stored, byte[] storedBytes, ColumnChunkMetaData metadata) {
    this.file = file;
    this.stored = stored;
    this.storedBytes = storedBytes;
    this.metadata = metadata;
  }

  /** What writes the chunk: its column's pages, into the writer's one row group. */
  @FunctionalInterface
  interface Pages {
    void write(ParquetFileWriter writer) throws IOException;
  }

  /**
   * Writes one row group of {@code rows} rows of the schema's only column.
   *
   * @param schema a schema of one column (the column's path, as in the file the chunk goes into)
   */
  static WrittenChunk write(MessageType schema, long rows, Pages pages) throws IOException {
    if (schema.getColumns().size() != 1) {
      throw new IllegalArgumentException("a schema of one column, not " + schema);
    }
    Memory memory = new Memory();
    ParquetFileWriter writer = new ParquetFileWriter(memory, schema, ParquetFileWriter.Mode.CREATE,
        ParquetWriterDefaults.ROW_GROUP_SIZE, 0, ParquetProperties.DEFAULT_COLUMN_INDEX_TRUNCATE_LENGTH,
        ParquetProperties.DEFAULT_STATISTICS_TRUNCATE_LENGTH, ParquetProperties.DEFAULT_PAGE_WRITE_CHECKSUM_ENABLED);
    writer.start();
    writer.startBlock(rows);
    pages.write(writer);
    writer.endBlock();
    writer.end(Map.of());
    byte[] file = memory.bytes.toByteArray();
    FileMetaData footer = footerOf(file);
    return new WrittenChunk(file, footer.getRow_groups().get(0).getColumns().get(0),
        storedRowGroupsOf(file, footer).get(0).chunkBytes().get(0),
        CONVERTER.fromParquetMetadata(footer).getBlocks().get(0).getColumns().get(0));
  }

  /** The footer of a whole plaintext Parquet file in memory, as stored. */
  static FileMetaData footerOf(byte[] file) throws IOException {
    int footerLength = footerLength(file);
    return Util.readFileMetaData(new ByteArrayInputStream(file, file.length - TAIL - footerLength, footerLength));
  }

  /** The row groups of a whole plaintext Parquet file in memory, as its footer stores them. */
  static List<StoredRowGroup> storedRowGroupsOf(byte[] file) throws IOException {
    return storedRowGroupsOf(file, footerOf(file));
  }

  /** As {@link #storedRowGroupsOf(byte[])}, with the file's footer already parsed. */
  private static List<StoredRowGroup> storedRowGroupsOf(byte[] file, FileMetaData footer) throws IOException {
    int footerLength = footerLength(file);
    return StoredRowGroup.of(footer.getRow_groups(),
        CompactMetadata.columnChunks(file, file.length - TAIL - footerLength, footerLength));
  }

  private static int footerLength(byte[] file) {
    return ByteBuffer.wrap(file, file.length - TAIL, 4).order(ByteOrder.LITTLE_ENDIAN).getInt();
  }

  /** The chunk in Parquet's object model, where it lies in the file in memory. */
  ColumnChunkMetaData metadata() {
    return metadata;
  }

  /** The chunk as the footer stores it; not to be changed. */
  ColumnChunk stored() {
    return stored;
  }

  /** The chunk's bytes in the footer, which the copy's footer carries over moved. */
  byte[] storedBytes() {
    return storedBytes;
  }

  /** The file's bytes, from which the chunk is copied. */
  SplicedParquetWriter.ChunkBytes bytes() {
    return (to, position, length) -> to.write(file, Math.toIntExact(position), Math.toIntExact(length));
  }

  /** A stream on the file, from which the chunk's page indexes are read. */
  SeekableInputStream stream() {
    return new ByteArraySeekableInputStream(file);
  }

  /** An output file in memory. */
  private static final class Memory implements OutputFile {
    private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();

    @Override
    public PositionOutputStream create(long blockSizeHint) {
      return new PositionOutputStream() {
        @Override
        public long getPos() {
          return bytes.size();
        }

        @Override
        public void write(int b) {
          bytes.write(b);
        }

        @Override
        public void write(byte[] b, int off, int len) {
          bytes.write(b, off, len);
        }
      };
    }

    @Override
    public PositionOutputStream createOrOverwrite(long blockSizeHint) {
      return create(blockSizeHint);
    }

    @Override
    public boolean supportsBlockSize() {
      return false;
    }

    @Override
    public long defaultBlockSize() {
      return 0;
    }
  }
}
