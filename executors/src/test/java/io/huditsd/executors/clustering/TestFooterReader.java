package io.huditsd.executors.clustering;

import io.huditsd.config.ServicedTable;
import org.apache.hadoop.fs.Path;
import org.apache.hudi.common.model.HoodieTableType;
import org.apache.parquet.format.converter.ParquetMetadataConverter;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.apache.parquet.hadoop.util.HadoopInputFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The copy's footer reader gives what Parquet's own reader gives, on base files Hudi wrote, and fails as it does. */
class TestFooterReader {
  private final CopyTables tables = new CopyTables();

  @TempDir
  java.nio.file.Path directory;

  @Test
  void readsHudiBaseFilesAsParquetDoes() throws IOException {
    ServicedTable table = tables.create(directory.resolve("orders"), HoodieTableType.COPY_ON_WRITE, CopyTables.V2,
        Map.of());
    tables.upsert(table, CopyTables.V2, 0, 300, 1, 3);
    List<Path> files = tables.latestBaseFiles(table);
    assertThat(files).isNotEmpty();

    for (Path file : files) {
      HadoopInputFile input = HadoopInputFile.fromPath(file, tables.hadoop());
      ParquetMetadata parquets = ParquetFileReader.readFooter(input, ParquetMetadataConverter.NO_FILTER);

      ParquetMetadata ours = FooterReader.read(input);

      assertThat(ours.getFileMetaData().getKeyValueMetaData()).as("footer entries of %s", file)
          .containsKey(GroupLayout.BLOOM_FILTER_KEY)
          .isEqualTo(parquets.getFileMetaData().getKeyValueMetaData());
      assertThat(ParquetMetadata.toJSON(ours)).as("footer of %s", file).isEqualTo(ParquetMetadata.toJSON(parquets));
    }
  }

  @Test
  void aFileThatIsNotParquetFailsNamingIt() throws IOException {
    java.nio.file.Path text = Files.writeString(directory.resolve("notes.parquet"), "not a parquet file at all");
    HadoopInputFile input = HadoopInputFile.fromPath(new Path(text.toUri()), tables.hadoop());

    assertThatThrownBy(() -> FooterReader.read(input)).isInstanceOf(RuntimeException.class)
        .hasMessageContaining("notes.parquet");
    java.nio.file.Path tiny = Files.write(directory.resolve("tiny.parquet"), new byte[] {'P', 'A', 'R', '1'});
    assertThatThrownBy(() -> FooterReader.read(HadoopInputFile.fromPath(new Path(tiny.toUri()), tables.hadoop())))
        .isInstanceOf(IOException.class).hasMessageContaining("tiny.parquet is not a Parquet file (too small: 4 bytes)");
  }
}
