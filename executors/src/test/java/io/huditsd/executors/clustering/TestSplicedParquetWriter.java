package io.huditsd.executors.clustering;

import org.apache.avro.generic.GenericRecord;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.hudi.parquet.io.ByteArraySeekableInputStream;
import org.apache.parquet.avro.AvroParquetReader;
import org.apache.parquet.column.values.bloomfilter.BloomFilter;
import org.apache.parquet.filter2.compat.FilterCompat;
import org.apache.parquet.filter2.predicate.FilterApi;
import org.apache.parquet.format.ColumnChunk;
import org.apache.parquet.format.RowGroup;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.ParquetReader;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.hadoop.util.HadoopInputFile;
import org.apache.parquet.hadoop.util.HadoopOutputFile;
import org.apache.parquet.io.PositionOutputStream;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.schema.MessageType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A spliced file is what its sources stored, moved: rows, chunk metadata, page indexes and Parquet bloom filters
 * read back through Parquet's own reader as the sources have them, and a reader that skips pages by the moved
 * offset indexes finds each row it looks for. Sources written by {@link PagedSources}: many pages a chunk, several
 * row groups, a dictionary-encoded column, an optional one and a bloom filter on the key.
 */
class TestSplicedParquetWriter {
  private final Configuration conf = new Configuration();

  @TempDir
  java.nio.file.Path directory;

  @Test
  void aSplicedFileReadsBackAsItsSourcesStoredIt() throws IOException {
    Path first = source("first.parquet", 0, 3000);
    Path second = source("second.parquet", 3000, 1200);
    Path spliced = new Path(directory.resolve("spliced.parquet").toUri());
    // The second source first: every chunk moves, some towards the start of the file, some away from it.
    List<Path> order = List.of(second, first);
    splice(order, spliced);

    List<String> expected = new ArrayList<>();
    for (Path source : order) {
      expected.addAll(rows(source));
    }
    assertThat(rows(spliced)).as("rows of the spliced file").isEqualTo(expected);

    try (ParquetFileReader copy = open(spliced)) {
      List<BlockMetaData> blocks = copy.getFooter().getBlocks();
      int block = 0;
      int bloomFilters = 0;
      for (Path source : order) {
        try (ParquetFileReader original = open(source)) {
          assertThat(original.getFooter().getBlocks()).as("row groups of %s", source).hasSizeGreaterThan(1);
          for (BlockMetaData sourceBlock : original.getFooter().getBlocks()) {
            BlockMetaData copied = blocks.get(block++);
            assertThat(copied.getRowCount()).isEqualTo(sourceBlock.getRowCount());
            assertThat(copied.getTotalByteSize()).isEqualTo(sourceBlock.getTotalByteSize());
            assertThat(copied.getCompressedSize()).isEqualTo(sourceBlock.getCompressedSize());
            for (int column = 0; column < copied.getColumns().size(); column++) {
              bloomFilters += assertMoved(original, sourceBlock.getColumns().get(column), copy,
                  copied.getColumns().get(column));
            }
          }
        }
      }
      assertThat(block).as("row groups of the spliced file").isEqualTo(blocks.size());
      assertThat(bloomFilters).as("bloom filters carried over").isEqualTo(blocks.size());
      assertThat(copy.getFooter().getFileMetaData().getKeyValueMetaData()).containsEntry("origin", "spliced");
      assertThat(copy.getFooter().getFileMetaData().getSchema()).isEqualTo(schemaOf(first));
    }

    // Page skipping by the column and offset indexes: a wrong page offset reads garbage or the wrong rows.
    for (int key : new int[] {0, 1, 777, 2999, 3000, 3599, 4199}) {
      assertThat(rowsWhereKeyIs(spliced, key(key))).as("rows with key %s", key(key)).hasSize(1)
          .allMatch(row -> row.contains("\"key\": \"" + key(key) + "\""));
    }
  }

  @Test
  void aChunkOutOfSchemaOrderOrStoredInAnotherFileIsRefused() throws IOException {
    Path source = source("source.parquet", 0, 100);
    byte[] bytes = Files.readAllBytes(java.nio.file.Path.of(source.toUri()));
    StoredRowGroup stored = WrittenChunk.storedRowGroupsOf(bytes).get(0);
    RowGroup rowGroup = stored.rowGroup();
    PositionOutputStream out = HadoopOutputFile.fromPath(new Path(directory.resolve("refused.parquet").toUri()), conf)
        .create(0);
    try (out) {
      SplicedParquetWriter writer = new SplicedParquetWriter(out, schemaOf(source));
      writer.startRowGroup(rowGroup.getNum_rows());
      assertThatThrownBy(() -> writer.append(rowGroup.getColumns().get(1), stored.chunkBytes().get(1), bytes(bytes),
          new ByteArraySeekableInputStream(bytes))).isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("amount").hasMessageContaining("key");
      ColumnChunk elsewhere = rowGroup.getColumns().get(0).deepCopy();
      elsewhere.setFile_path("other.parquet");
      assertThatThrownBy(() -> writer.append(elsewhere, stored.chunkBytes().get(0), bytes(bytes),
          new ByteArraySeekableInputStream(bytes)))
          .isInstanceOf(IOException.class).hasMessageContaining("stored in another file: other.parquet");
      writer.append(rowGroup.getColumns().get(0), stored.chunkBytes().get(0), bytes(bytes),
          new ByteArraySeekableInputStream(bytes));
      assertThatThrownBy(writer::endRowGroup).isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("needs 4 columns, has 1");
    }
  }

  /** Asserts the copied chunk is the source's moved; 1 when it has a bloom filter (checked against its keys). */
  private int assertMoved(ParquetFileReader original, ColumnChunkMetaData source, ParquetFileReader copy,
                          ColumnChunkMetaData copied) throws IOException {
    String path = copied.getPath().toDotString();
    long moved = copied.getStartingPos() - source.getStartingPos();
    assertThat(copied.getPath()).isEqualTo(source.getPath());
    assertThat(copied.getCodec()).as(path).isEqualTo(source.getCodec());
    assertThat(copied.getEncodings()).as(path).isEqualTo(source.getEncodings());
    assertThat(copied.getEncodingStats().getDataEncodings()).as(path)
        .isEqualTo(source.getEncodingStats().getDataEncodings());
    assertThat(copied.getStatistics()).as(path).isEqualTo(source.getStatistics());
    assertThat(copied.getValueCount()).as(path).isEqualTo(source.getValueCount());
    assertThat(copied.getTotalSize()).as(path).isEqualTo(source.getTotalSize());
    assertThat(copied.getTotalUncompressedSize()).as(path).isEqualTo(source.getTotalUncompressedSize());
    assertThat(copied.getFirstDataPageOffset()).as(path).isEqualTo(source.getFirstDataPageOffset() + moved);
    assertThat(copied.getDictionaryPageOffset()).as(path)
        .isEqualTo(source.hasDictionaryPage() ? source.getDictionaryPageOffset() + moved : 0);

    MovedPageIndexes.assertMoved(original, source, copy, copied);

    BloomFilter sourceFilter = original.readBloomFilter(source);
    BloomFilter filter = copy.readBloomFilter(copied);
    if (sourceFilter == null) {
      assertThat(filter).as("bloom filter of %s", path).isNull();
      return 0;
    }
    assertThat(filter).as("bloom filter of %s", path).isNotNull();
    assertThat(filter.getBitsetSize()).isEqualTo(sourceFilter.getBitsetSize());
    return 1;
  }

  /** Splices every row group of the sources, in order, as the copier does. */
  private void splice(List<Path> sources, Path target) throws IOException {
    PositionOutputStream out = HadoopOutputFile.fromPath(target, conf).create(0);
    SplicedParquetWriter writer = new SplicedParquetWriter(out, schemaOf(sources.get(0)));
    for (Path source : sources) {
      byte[] bytes = Files.readAllBytes(java.nio.file.Path.of(source.toUri()));
      for (StoredRowGroup stored : WrittenChunk.storedRowGroupsOf(bytes)) {
        writer.startRowGroup(stored.rowGroup().getNum_rows());
        List<ColumnChunk> chunks = stored.rowGroup().getColumns();
        for (int i = 0; i < chunks.size(); i++) {
          writer.append(chunks.get(i), stored.chunkBytes().get(i), bytes(bytes), new ByteArraySeekableInputStream(bytes));
        }
        writer.endRowGroup();
      }
    }
    writer.end(Map.of("origin", "spliced"));
    assertThat(WrittenChunk.footerOf(Files.readAllBytes(java.nio.file.Path.of(target.toUri()))).getNum_rows())
        .isEqualTo(sources.stream().mapToLong(this::rowCount).sum());
  }

  private static SplicedParquetWriter.ChunkBytes bytes(byte[] file) {
    return (to, position, length) -> to.write(file, Math.toIntExact(position), Math.toIntExact(length));
  }

  /** A source of {@code count} rows from key {@code first} on ({@link PagedSources}). */
  private Path source(String name, int first, int count) throws IOException {
    return PagedSources.write(new Path(directory.resolve(name).toUri()), first, count, conf);
  }

  private static String key(int i) {
    return PagedSources.key(i);
  }

  private long rowCount(Path file) {
    try (ParquetFileReader reader = open(file)) {
      return reader.getRecordCount();
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  private MessageType schemaOf(Path file) throws IOException {
    try (ParquetFileReader reader = open(file)) {
      return reader.getFooter().getFileMetaData().getSchema();
    }
  }

  private ParquetFileReader open(Path file) throws IOException {
    return ParquetFileReader.open(HadoopInputFile.fromPath(file, conf));
  }

  private List<String> rows(Path file) throws IOException {
    return read(AvroParquetReader.<GenericRecord>builder(HadoopInputFile.fromPath(file, conf)).withConf(conf)
        .build());
  }

  private List<String> rowsWhereKeyIs(Path file, String key) throws IOException {
    return read(AvroParquetReader.<GenericRecord>builder(HadoopInputFile.fromPath(file, conf)).withConf(conf)
        .withFilter(FilterCompat.get(FilterApi.eq(FilterApi.binaryColumn("key"), Binary.fromString(key))))
        .useColumnIndexFilter(true).useBloomFilter(true).useRecordFilter(true).build());
  }

  private static List<String> read(ParquetReader<GenericRecord> reader) throws IOException {
    List<String> rows = new ArrayList<>();
    try (reader) {
      for (GenericRecord row = reader.read(); row != null; row = reader.read()) {
        rows.add(row.toString());
      }
    }
    return rows;
  }
}
