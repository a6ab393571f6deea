package io.huditsd.executors.clustering;

import io.huditsd.config.ServicedTable;
import org.apache.hadoop.fs.Path;
import org.apache.hudi.common.model.HoodieTableType;
import org.apache.parquet.format.converter.ParquetMetadataConverter;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.apache.parquet.hadoop.util.HadoopInputFile;
import org.apache.parquet.io.InputFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The copy's footer reader gives what Parquet's own reader gives, on base files Hudi wrote, with the bloom filter held
 * apart as bytes, and fails as it does.
 */
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
      Map<String, String> parquetsEntries = parquets.getFileMetaData().getKeyValueMetaData();
      assertThat(parquetsEntries).as("footer entries of %s", file).containsKey(GroupLayout.BLOOM_FILTER_KEY);

      FooterReader.Footer<ByteBuffer> ours = read(input, GroupLayout.BLOOM_FILTER_KEY);

      Map<String, String> withoutBloomFilter = new HashMap<>(parquetsEntries);
      String bloomFilter = withoutBloomFilter.remove(GroupLayout.BLOOM_FILTER_KEY);
      assertThat(ours.metadata().getFileMetaData().getKeyValueMetaData()).as("footer entries of %s", file)
          .isEqualTo(withoutBloomFilter);
      assertThat(StandardCharsets.UTF_8.decode(ours.heldValue()).toString()).as("bloom filter of %s", file)
          .isEqualTo(bloomFilter);
      assertThat(ParquetMetadata.toJSON(ours.metadata())).as("footer of %s", file)
          .isEqualTo(ParquetMetadata.toJSON(FooterReader.withKeyValues(parquets, withoutBloomFilter)));
      assertThat(ours.offset()).as("footer offset of %s", file).isEqualTo(footerOffset(file));
      for (BlockMetaData block : ours.metadata().getBlocks()) {
        for (ColumnChunkMetaData chunk : block.getColumns()) {
          assertThat(chunk.getStartingPos() + chunk.getTotalSize()).isLessThanOrEqualTo(ours.offset());
          assertThat(chunk.getColumnIndexReference().getOffset() + chunk.getColumnIndexReference().getLength())
              .isLessThanOrEqualTo(ours.offset());
          assertThat(chunk.getOffsetIndexReference().getOffset() + chunk.getOffsetIndexReference().getLength())
              .isLessThanOrEqualTo(ours.offset());
        }
      }

      FooterReader.Footer<ByteBuffer> absentKey = read(input, "no.such.key");
      assertThat(absentKey.heldValue()).isNull();
      assertThat(ParquetMetadata.toJSON(absentKey.metadata())).isEqualTo(ParquetMetadata.toJSON(parquets));
    }
  }

  @Test
  void footersReadIntoOneLentArrayAfterAnotherReadAsIntoNewOnes() throws IOException {
    ServicedTable table = tables.create(directory.resolve("orders"), HoodieTableType.COPY_ON_WRITE, CopyTables.V2,
        Map.of());
    // Files of different sizes, so that a later footer may be longer or shorter than the array it is read into.
    tables.upsert(table, CopyTables.V2, 0, 300, 1, 3);
    tables.upsert(table, CopyTables.V2, 300, 40, 1, 1);
    List<Path> files = tables.latestBaseFiles(table);
    assertThat(files).hasSizeGreaterThan(1);
    ScratchArrays footerArrays = new ScratchArrays(1);

    for (int round = 0; round < 2; round++) {
      for (Path file : files) {
        HadoopInputFile input = HadoopInputFile.fromPath(file, tables.hadoop());
        FooterReader.Footer<String> fresh = FooterReader.read(input, GroupLayout.BLOOM_FILTER_KEY,
            view -> StandardCharsets.UTF_8.decode(view).toString(), null);
        FooterReader.Footer<String> lent = FooterReader.read(input, GroupLayout.BLOOM_FILTER_KEY,
            view -> StandardCharsets.UTF_8.decode(view).toString(), footerArrays);

        assertThat(lent.heldValue()).as("bloom filter of %s", file).isEqualTo(fresh.heldValue()).isNotEmpty();
        assertThat(ParquetMetadata.toJSON(lent.metadata())).as("footer of %s", file)
            .isEqualTo(ParquetMetadata.toJSON(fresh.metadata()));
        assertThat(lent.offset()).isEqualTo(fresh.offset());
        // The array came back: the next request of no more than its length is served with it.
        byte[] spare = footerArrays.atLeast(1);
        assertThat(spare.length).as("the lent array, at least the footer's length")
            .isGreaterThanOrEqualTo((int) (Files.size(java.nio.file.Path.of(file.toUri())) - 8 - lent.offset()));
        footerArrays.giveBack(spare);
      }
    }
  }

  @Test
  void aFooterWhoseLengthsRunPastItsBytesFailsNamingTheFile() throws IOException {
    ServicedTable table = tables.create(directory.resolve("orders"), HoodieTableType.COPY_ON_WRITE, CopyTables.V2,
        Map.of());
    tables.upsert(table, CopyTables.V2, 0, 50, 1, 1);
    Path file = tables.latestBaseFiles(table).get(0);
    java.nio.file.Path local = java.nio.file.Path.of(file.toUri());
    byte[] bytes = Files.readAllBytes(local);
    // Cut the footer's end off: its structure now claims more bytes (the bloom filter's string) than are left.
    int footerLength = ByteBuffer.wrap(bytes, bytes.length - 8, 4).order(ByteOrder.LITTLE_ENDIAN).getInt();
    int cut = footerLength / 2;
    byte[] truncated = new byte[bytes.length - cut];
    System.arraycopy(bytes, 0, truncated, 0, bytes.length - 8 - cut);
    ByteBuffer.wrap(truncated, truncated.length - 8, 4).order(ByteOrder.LITTLE_ENDIAN).putInt(footerLength - cut);
    System.arraycopy(bytes, bytes.length - 4, truncated, truncated.length - 4, 4);
    java.nio.file.Path corrupt = Files.write(directory.resolve("corrupt.parquet"), truncated);

    assertThatThrownBy(() -> read(HadoopInputFile.fromPath(new Path(corrupt.toUri()), tables.hadoop()),
        GroupLayout.BLOOM_FILTER_KEY)).isInstanceOf(IOException.class)
        .hasMessageContaining("corrupt.parquet");
  }

  /** The footer read into a new array, its held value a view of that array. */
  private static FooterReader.Footer<ByteBuffer> read(InputFile input, String heldKey) throws IOException {
    return FooterReader.read(input, heldKey, view -> view, null);
  }

  /** The footer's start, from the file's last 8 bytes (the footer's length and the magic). */
  private static long footerOffset(Path file) throws IOException {
    byte[] bytes = Files.readAllBytes(java.nio.file.Path.of(file.toUri()));
    return bytes.length - 8L - ByteBuffer.wrap(bytes, bytes.length - 8, 4).order(ByteOrder.LITTLE_ENDIAN).getInt();
  }

  @Test
  void aFileThatIsNotParquetFailsNamingIt() throws IOException {
    java.nio.file.Path text = Files.writeString(directory.resolve("notes.parquet"), "not a parquet file at all");
    HadoopInputFile input = HadoopInputFile.fromPath(new Path(text.toUri()), tables.hadoop());

    assertThatThrownBy(() -> read(input, GroupLayout.BLOOM_FILTER_KEY))
        .isInstanceOf(RuntimeException.class).hasMessageContaining("notes.parquet");
    java.nio.file.Path tiny = Files.write(directory.resolve("tiny.parquet"), new byte[] {'P', 'A', 'R', '1'});
    assertThatThrownBy(() -> read(HadoopInputFile.fromPath(new Path(tiny.toUri()), tables.hadoop()),
        GroupLayout.BLOOM_FILTER_KEY))
        .isInstanceOf(IOException.class).hasMessageContaining("tiny.parquet is not a Parquet file (too small: 4 bytes)");
  }
}
