package io.huditsd.executors.clustering;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.parquet.format.ColumnChunk;
import org.apache.parquet.format.ColumnMetaData;
import org.apache.parquet.format.OffsetIndex;
import org.apache.parquet.format.PageLocation;
import org.apache.parquet.format.Util;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import shaded.parquet.org.apache.thrift.TException;
import shaded.parquet.org.apache.thrift.protocol.TCompactProtocol;
import shaded.parquet.org.apache.thrift.transport.TIOStreamTransport;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.util.Arrays;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Metadata moved as bytes is what Thrift writes for the objects moved the same way (the route the copy took before),
 * byte for byte: every chunk of a file Parquet's writer wrote (page indexes, dictionary pages, a bloom filter, an
 * optional column), moved back and forth, by small and by large distances (a varint of another length), with and
 * without page indexes and bloom filters in the output.
 */
class TestCompactMetadata {
  private static final long[] DELTAS = {0, 1, -4, 1000, -1000, 1L << 33, (1L << 40) + 7};

  @TempDir
  static java.nio.file.Path directory;

  private static byte[] file;
  private static List<StoredRowGroup> rowGroups;

  @BeforeAll
  static void writeSource() throws IOException {
    PagedSources.write(new Path(directory.resolve("source.parquet").toUri()), 0, 2000, new Configuration());
    file = Files.readAllBytes(directory.resolve("source.parquet"));
    rowGroups = WrittenChunk.storedRowGroupsOf(file);
  }

  @Test
  void theChunksOfAFooterAreTheBytesOfTheChunksThriftReads() throws TException {
    assertThat(rowGroups).as("row groups").hasSizeGreaterThan(1);
    for (StoredRowGroup rowGroup : rowGroups) {
      assertThat(rowGroup.chunkBytes()).hasSize(4);
      for (int i = 0; i < rowGroup.chunkBytes().size(); i++) {
        ColumnChunk read = new ColumnChunk();
        read.read(new TCompactProtocol(new TIOStreamTransport(new ByteArrayInputStream(
            rowGroup.chunkBytes().get(i)))));
        assertThat(read).isEqualTo(rowGroup.rowGroup().getColumns().get(i));
        assertThat(serialized(read)).as("the bytes, no more, no less").isEqualTo(rowGroup.chunkBytes().get(i));
      }
    }
  }

  @Test
  void aMovedChunkIsWhatThriftWritesForTheMovedObject() throws Exception {
    int chunks = 0;
    for (StoredRowGroup rowGroup : rowGroups) {
      for (int i = 0; i < rowGroup.chunkBytes().size(); i++) {
        ColumnChunk stored = rowGroup.rowGroup().getColumns().get(i);
        for (long delta : DELTAS) {
          for (CompactMetadata.IndexPositions positions : List.of(
              new CompactMetadata.IndexPositions(-1, -1, -1, -1, -1),
              new CompactMetadata.IndexPositions(5_000, 31, 9_000, 12, 12_345),
              new CompactMetadata.IndexPositions(1L << 35, 200, (1L << 35) + 200, 3000, -1))) {
            byte[] moved = CompactMetadata.movedColumnChunk(rowGroup.chunkBytes().get(i), delta,
                stored.getMeta_data().getData_page_offset() + delta, positions);
            assertThat(moved).as("chunk %s moved by %s to %s", stored.getMeta_data().getPath_in_schema(), delta,
                positions).isEqualTo(serialized(movedByThrift(stored, delta, positions)));
          }
        }
        chunks++;
      }
    }
    assertThat(chunks).isGreaterThan(8);
  }

  @Test
  void aMovedOffsetIndexIsWhatThriftWritesForTheMovedObject() throws Exception {
    int indexes = 0;
    for (StoredRowGroup rowGroup : rowGroups) {
      for (ColumnChunk chunk : rowGroup.rowGroup().getColumns()) {
        byte[] stored = Arrays.copyOfRange(file, Math.toIntExact(chunk.getOffset_index_offset()),
            Math.toIntExact(chunk.getOffset_index_offset() + chunk.getOffset_index_length()));
        OffsetIndex read = Util.readOffsetIndex(new ByteArrayInputStream(stored));
        assertThat(read.getPage_locations()).as("pages of a chunk").isNotEmpty();
        indexes += read.getPage_locations().size() > 1 ? 1 : 0;
        for (long delta : DELTAS) {
          OffsetIndex moved = read.deepCopy();
          for (PageLocation page : moved.getPage_locations()) {
            page.setOffset(page.getOffset() + delta);
          }
          ByteArrayOutputStream expected = new ByteArrayOutputStream();
          Util.writeOffsetIndex(moved, expected);
          assertThat(CompactMetadata.movedOffsetIndex(stored, delta)).as("moved by %s", delta)
              .isEqualTo(expected.toByteArray());
        }
      }
    }
    assertThat(indexes).as("chunks of several pages").isGreaterThan(4);
  }

  @Test
  void fieldsParquetDoesNotKnowAreLeftOutAsThriftsReaderLeavesThemOut() throws Exception {
    StoredRowGroup rowGroup = rowGroups.get(0);
    byte[] stored = rowGroup.chunkBytes().get(0);
    ColumnChunk chunk = rowGroup.rowGroup().getColumns().get(0);
    // Field 40 (an i64, header in the long form) and field 41 (a struct holding a list) before the stop byte.
    byte[] unknown = {0x06, (byte) 0x50, 0x0c, 0x1c, 0x19, 0x25, 0x02, 0x04, 0x00, 0x00};
    byte[] extended = Arrays.copyOf(stored, stored.length - 1 + unknown.length);
    System.arraycopy(unknown, 0, extended, stored.length - 1, unknown.length);
    ColumnChunk read = new ColumnChunk();
    read.read(new TCompactProtocol(new TIOStreamTransport(new ByteArrayInputStream(extended))));
    assertThat(read).as("Thrift skips the unknown fields").isEqualTo(chunk);

    CompactMetadata.IndexPositions positions = new CompactMetadata.IndexPositions(10, 20, 30, 40, 50);
    long delta = 77;
    assertThat(CompactMetadata.movedColumnChunk(extended, delta, chunk.getMeta_data().getData_page_offset() + delta,
        positions)).isEqualTo(serialized(movedByThrift(chunk, delta, positions)));
  }

  @Test
  void corruptBytesFailWithoutAllocatingWhatTheyClaim() {
    byte[] stored = rowGroups.get(0).chunkBytes().get(0);
    CompactMetadata.IndexPositions none = new CompactMetadata.IndexPositions(-1, -1, -1, -1, -1);
    assertThatThrownBy(() -> CompactMetadata.movedColumnChunk(Arrays.copyOf(stored, stored.length / 2), 0, 0, none))
        .isInstanceOf(IOException.class).hasMessageEndingWith(": corrupt metadata");
    // A footer whose row groups claim 2^31 - 1 elements in a few bytes.
    byte[] footer = {0x49, (byte) 0xfc, (byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff, 0x07, 0x00};
    assertThatThrownBy(() -> CompactMetadata.columnChunks(footer, 0, footer.length))
        .isInstanceOf(IOException.class).hasMessageContaining("a list of 2147483647 elements");
    byte[] unknownType = {0x1d, 0x00};
    assertThatThrownBy(() -> CompactMetadata.columnChunks(unknownType, 0, unknownType.length))
        .isInstanceOf(IOException.class).hasMessageContaining("unknown type 13");
  }

  /** The copy's route before CompactMetadata: the stored object deep-copied and moved, field by field. */
  private static ColumnChunk movedByThrift(ColumnChunk stored, long delta, CompactMetadata.IndexPositions positions) {
    ColumnChunk chunk = stored.deepCopy();
    ColumnMetaData meta = chunk.getMeta_data();
    meta.setData_page_offset(meta.getData_page_offset() + delta);
    if (meta.isSetDictionary_page_offset() && meta.getDictionary_page_offset() != 0) {
      meta.setDictionary_page_offset(meta.getDictionary_page_offset() + delta);
    }
    if (meta.isSetIndex_page_offset()) {
      meta.setIndex_page_offset(meta.getIndex_page_offset() + delta);
    }
    meta.unsetBloom_filter_offset();
    chunk.unsetColumn_index_offset();
    chunk.unsetColumn_index_length();
    chunk.unsetOffset_index_offset();
    chunk.unsetOffset_index_length();
    chunk.setFile_offset(meta.getData_page_offset());
    if (positions.columnIndexOffset() >= 0) {
      chunk.setColumn_index_offset(positions.columnIndexOffset());
      chunk.setColumn_index_length(positions.columnIndexLength());
    }
    if (positions.offsetIndexOffset() >= 0) {
      chunk.setOffset_index_offset(positions.offsetIndexOffset());
      chunk.setOffset_index_length(positions.offsetIndexLength());
    }
    if (positions.bloomFilterOffset() >= 0) {
      meta.setBloom_filter_offset(positions.bloomFilterOffset());
    }
    return chunk;
  }

  private static byte[] serialized(ColumnChunk chunk) throws TException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    chunk.write(new TCompactProtocol(new TIOStreamTransport(bytes)));
    return bytes.toByteArray();
  }
}
