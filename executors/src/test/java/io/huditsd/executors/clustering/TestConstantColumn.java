package io.huditsd.executors.clustering;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.ParquetProperties;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.hadoop.CodecFactory;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.ParquetFileWriter;
import org.apache.parquet.hadoop.ParquetReader;
import org.apache.parquet.hadoop.example.GroupReadSupport;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.hadoop.util.HadoopInputFile;
import org.apache.parquet.hadoop.util.HadoopOutputFile;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.MessageTypeParser;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.IOException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A chunk encoded once and written again for later row groups of as many rows is the chunk a fresh encoding would
 * write, and row groups of other sizes get chunks of their own.
 */
class TestConstantColumn {
  private static final MessageType SCHEMA = MessageTypeParser.parseMessageType(
      "message hoodie_record { optional binary _hoodie_file_name (STRING); }");
  private static final ColumnDescriptor COLUMN = SCHEMA.getColumns().get(0);
  private static final Binary VALUE = Binary.fromString("1f2e3d4c-0_0-0-0_20261205233618628.parquet");
  private static final int[] ROW_GROUPS = {500, 700, 500, 500, 3, 700, 500};

  private final Configuration conf = new Configuration();

  @TempDir
  java.nio.file.Path directory;

  @ParameterizedTest
  @EnumSource(value = CompressionCodecName.class, names = {"UNCOMPRESSED", "GZIP", "SNAPPY"})
  void chunksWrittenAgainEqualFreshOnesAndReadBack(CompressionCodecName codec) throws IOException {
    ConstantColumn shared = new ConstantColumn(COLUMN, VALUE);
    Path again = write("again", codec, rows -> shared);
    Path fresh = write("fresh", codec, rows -> new ConstantColumn(COLUMN, VALUE));

    assertThat(Files.readAllBytes(local(again))).as("chunks written again").isEqualTo(Files.readAllBytes(local(fresh)));
    try (ParquetFileReader reader = ParquetFileReader.open(HadoopInputFile.fromPath(again, conf))) {
      assertThat(reader.getFooter().getBlocks()).extracting(BlockMetaData::getRowCount)
          .containsExactly(500L, 700L, 500L, 500L, 3L, 700L, 500L);
    }
    List<String> values = new ArrayList<>();
    try (ParquetReader<Group> reader = ParquetReader.builder(new GroupReadSupport(), again).withConf(conf).build()) {
      for (Group row = reader.read(); row != null; row = reader.read()) {
        values.add(row.getString("_hoodie_file_name", 0));
      }
    }
    assertThat(values).hasSize(3403).containsOnly(VALUE.toStringUsingUTF8());
  }

  private interface Writers {
    ConstantColumn forRowGroup(int rows);
  }

  private Path write(String name, CompressionCodecName codec, Writers writers) throws IOException {
    Path path = new Path(directory.resolve(name + ".parquet").toUri());
    ParquetFileWriter writer = new ParquetFileWriter(HadoopOutputFile.fromPath(path, conf), SCHEMA,
        ParquetFileWriter.Mode.CREATE, ParquetWriterDefaults.ROW_GROUP_SIZE, 0,
        ParquetProperties.DEFAULT_COLUMN_INDEX_TRUNCATE_LENGTH, ParquetProperties.DEFAULT_STATISTICS_TRUNCATE_LENGTH,
        ParquetProperties.DEFAULT_PAGE_WRITE_CHECKSUM_ENABLED);
    CodecFactory codecs = new CodecFactory(conf, ParquetProperties.DEFAULT_PAGE_SIZE);
    try {
      writer.start();
      for (int rows : ROW_GROUPS) {
        writer.startBlock(rows);
        writers.forRowGroup(rows).write(writer, codecs.getCompressor(codec), rows);
        writer.endBlock();
      }
      writer.end(Map.of());
    } finally {
      codecs.release();
    }
    return path;
  }

  private static java.nio.file.Path local(Path path) {
    return java.nio.file.Path.of(path.toUri());
  }
}
