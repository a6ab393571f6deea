package io.huditsd.executors.clustering;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.parquet.bytes.HeapByteBufferAllocator;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.ParquetProperties;
import org.apache.parquet.column.values.rle.RunLengthBitPackingHybridEncoder;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.hadoop.CodecFactory;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.ParquetReader;
import org.apache.parquet.hadoop.example.GroupReadSupport;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.hadoop.util.HadoopInputFile;
import org.apache.parquet.hadoop.util.HadoopOutputFile;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.MessageTypeParser;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.IOException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A chunk written once and spliced again into later row groups of as many rows is the chunk a fresh writing would
 * splice, and row groups of other sizes or codecs get chunks of their own; the levels and ids of its page are
 * encoded as Parquet's encoder encodes them.
 */
class TestConstantColumn {
  private static final MessageType FILE_NAME_ONLY = MessageTypeParser.parseMessageType(
      "message hoodie_record { optional binary _hoodie_file_name (STRING); }");
  private static final ColumnDescriptor COLUMN = FILE_NAME_ONLY.getColumns().get(0);
  private static final Binary VALUE = Binary.fromString("1f2e3d4c-0_0-0-0_20261205233618628.parquet");
  private static final int[] ROW_GROUPS = {500, 700, 500, 500, 3, 700, 500};

  private final Configuration conf = new Configuration();

  @TempDir
  java.nio.file.Path directory;

  @ParameterizedTest
  @EnumSource(value = CompressionCodecName.class, names = {"UNCOMPRESSED", "GZIP", "SNAPPY"})
  void chunksWrittenAgainEqualFreshOnesAndReadBack(CompressionCodecName codec) throws IOException {
    CodecFactory codecs = new CodecFactory(conf, ParquetProperties.DEFAULT_PAGE_SIZE);
    try {
      CodecFactory.BytesCompressor compressor = codecs.getCompressor(codec);
      ConstantColumn shared = new ConstantColumn(FILE_NAME_ONLY, COLUMN, VALUE);
      Path again = splice("again", rows -> shared.chunk(compressor, rows));
      Path fresh = splice("fresh", rows -> new ConstantColumn(FILE_NAME_ONLY, COLUMN, VALUE).chunk(compressor, rows));

      assertThat(shared.chunk(compressor, 500)).as("the chunk of a shape written before")
          .isSameAs(shared.chunk(compressor, 500)).isNotSameAs(shared.chunk(compressor, 700));
      if (codec != CompressionCodecName.UNCOMPRESSED) {
        assertThat(shared.chunk(codecs.getCompressor(CompressionCodecName.UNCOMPRESSED), 500).stored())
            .as("the chunk of another codec").isNotEqualTo(shared.chunk(compressor, 500).stored());
      }
      assertThat(Files.readAllBytes(local(again))).as("chunks written again")
          .isEqualTo(Files.readAllBytes(local(fresh)));
      try (ParquetFileReader reader = ParquetFileReader.open(HadoopInputFile.fromPath(again, conf))) {
        assertThat(reader.getFooter().getBlocks()).extracting(BlockMetaData::getRowCount)
            .containsExactly(500L, 700L, 500L, 500L, 3L, 700L, 500L);
        assertThat(reader.getFooter().getBlocks()).allSatisfy(block ->
            assertThat(block.getColumns().get(0).getCodec()).isEqualTo(codec));
      }
      List<String> values = new ArrayList<>();
      try (ParquetReader<Group> reader = ParquetReader.builder(new GroupReadSupport(), again).withConf(conf)
          .build()) {
        for (Group row = reader.read(); row != null; row = reader.read()) {
          values.add(row.getString("_hoodie_file_name", 0));
        }
      }
      assertThat(values).hasSize(3403).containsOnly(VALUE.toStringUsingUTF8());
    } finally {
      codecs.release();
    }
  }

  @Test
  void repeatedValuesAreEncodedByteForByteAsParquetsEncoderEncodesThem() throws IOException {
    int[] counts = IntStream.concat(IntStream.rangeClosed(0, 40), IntStream.of(63, 64, 65, 500, 15_000, 1 << 20))
        .toArray();
    for (int bitWidth : new int[] {0, 1, 2, 3, 7, 8, 9, 16, 17, 24, 25, 32}) {
      // The largest value of the width: every byte of the run's value is written.
      int value = (int) ((1L << bitWidth) - 1);
      for (int count : counts) {
        assertThat(ConstantColumn.repeated(value, bitWidth, count))
            .as("%d copies of %d, %d bits wide", count, value, bitWidth)
            .isEqualTo(encodedByParquet(value, bitWidth, count));
      }
    }
  }

  private static byte[] encodedByParquet(int value, int bitWidth, int count) throws IOException {
    RunLengthBitPackingHybridEncoder encoder = new RunLengthBitPackingHybridEncoder(bitWidth, 64, 64 * 1024,
        HeapByteBufferAllocator.getInstance());
    for (int i = 0; i < count; i++) {
      encoder.writeInt(value);
    }
    byte[] encoded = encoder.toBytes().toByteArray();
    encoder.close();
    return encoded;
  }

  private interface Chunks {
    WrittenChunk forRowGroup(int rows) throws IOException;
  }

  /** A file of the column alone, each row group's chunk spliced as the copier splices it. */
  private Path splice(String name, Chunks chunks) throws IOException {
    Path path = new Path(directory.resolve(name + ".parquet").toUri());
    SplicedParquetWriter writer = new SplicedParquetWriter(HadoopOutputFile.fromPath(path, conf).create(0),
        FILE_NAME_ONLY);
    for (int rows : ROW_GROUPS) {
      WrittenChunk chunk = chunks.forRowGroup(rows);
      writer.startRowGroup(rows);
      writer.append(chunk.stored(), chunk.storedBytes(), chunk.bytes(), chunk.stream());
      writer.endRowGroup();
    }
    writer.end(Map.of());
    return path;
  }

  private static java.nio.file.Path local(Path path) {
    return java.nio.file.Path.of(path.toUri());
  }
}
