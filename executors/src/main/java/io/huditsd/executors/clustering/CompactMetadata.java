package io.huditsd.executors.clustering;

import org.apache.parquet.format.ColumnChunk;
import org.apache.parquet.format.ColumnMetaData;
import org.apache.parquet.format.OffsetIndex;
import org.apache.parquet.format.PageLocation;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Parquet metadata as a footer stores it, in Thrift's compact protocol, read and moved as bytes: a column chunk's
 * metadata and its offset index with their file positions moved, every other field carried over as stored. A copy of
 * many small files moves thousands of chunks; Thrift's objects for them cost a deep copy each on the way in and a
 * serialization of every field and statistic on the way out, in code that a short process runs before the JIT has
 * compiled it (about a fifth of the copying phase, docs/benchmarks.md). Moving the few positions in the stored bytes
 * gives the same bytes Thrift's writer gives for the moved objects: fields in the order stored, those Parquet's
 * structures do not know left out as Thrift's reader leaves them out.
 */
final class CompactMetadata {
  // Thrift's compact protocol types.
  private static final int STOP = 0;
  private static final int BOOLEAN_TRUE = 1;
  private static final int BOOLEAN_FALSE = 2;
  private static final int BYTE = 3;
  private static final int I16 = 4;
  private static final int I32 = 5;
  private static final int I64 = 6;
  private static final int DOUBLE = 7;
  private static final int BINARY = 8;
  private static final int LIST = 9;
  private static final int SET = 10;
  private static final int MAP = 11;
  private static final int STRUCT = 12;

  /** Nesting deeper than this is taken for a corrupt footer rather than followed. */
  private static final int MAX_DEPTH = 64;

  // FileMetaData.row_groups, RowGroup.columns.
  private static final int ROW_GROUPS = 4;
  private static final int COLUMNS = 1;
  // ColumnChunk's fields that hold positions.
  private static final int FILE_OFFSET = 2;
  private static final int META_DATA = 3;
  private static final int OFFSET_INDEX_OFFSET = 4;
  private static final int OFFSET_INDEX_LENGTH = 5;
  private static final int COLUMN_INDEX_OFFSET = 6;
  private static final int COLUMN_INDEX_LENGTH = 7;
  // ColumnMetaData's.
  private static final int DATA_PAGE_OFFSET = 9;
  private static final int INDEX_PAGE_OFFSET = 10;
  private static final int DICTIONARY_PAGE_OFFSET = 11;
  private static final int BLOOM_FILTER_OFFSET = 14;
  // OffsetIndex.page_locations, PageLocation.offset.
  private static final int PAGE_LOCATIONS = 1;
  private static final int PAGE_OFFSET = 1;

  private CompactMetadata() {
  }

  /**
   * The column chunks of a footer's row groups as stored: for each row group, each of its chunks' bytes.
   *
   * @throws IOException when the bytes are not a footer in the compact protocol
   */
  static List<List<byte[]>> columnChunks(byte[] footer, int offset, int length) throws IOException {
    Reader in = new Reader(footer, offset, offset + length);
    List<List<byte[]>> rowGroups = new ArrayList<>();
    int fileField = 0;
    while (true) {
      int header = in.fieldHeader(fileField);
      if (header == STOP) {
        return rowGroups;
      }
      fileField = id(header);
      if (fileField != ROW_GROUPS || type(header) != LIST) {
        in.skip(type(header), 0);
        continue;
      }
      int[] list = in.listHeader();
      for (int group = 0; group < list[1]; group++) {
        List<byte[]> chunks = new ArrayList<>();
        int groupField = 0;
        while (true) {
          int groupHeader = in.fieldHeader(groupField);
          if (groupHeader == STOP) {
            break;
          }
          groupField = id(groupHeader);
          if (groupField != COLUMNS || type(groupHeader) != LIST) {
            in.skip(type(groupHeader), 1);
            continue;
          }
          int[] columns = in.listHeader();
          for (int column = 0; column < columns[1]; column++) {
            int start = in.position;
            in.skipStruct(2);
            chunks.add(Arrays.copyOfRange(footer, start, in.position));
          }
        }
        rowGroups.add(chunks);
      }
    }
  }

  /**
   * Where a moved chunk's page indexes and Parquet bloom filter are in its new file: each -1 when it has none.
   */
  record IndexPositions(long columnIndexOffset, int columnIndexLength, long offsetIndexOffset, int offsetIndexLength,
                        long bloomFilterOffset) {
  }

  /**
   * A column chunk's stored bytes with its pages moved by {@code delta} bytes and its page indexes and bloom filter
   * where {@code positions} says, as Thrift writes the chunk once its object is moved so. The deprecated
   * {@code file_offset} is set to the moved first data page, as Parquet's writer sets it.
   *
   * @param stored the chunk as its footer stores it: one ColumnChunk struct, stop byte included
   * @param dataPageOffset where the chunk's first data page is once moved ({@code file_offset}'s new value)
   */
  static byte[] movedColumnChunk(byte[] stored, long delta, long dataPageOffset, IndexPositions positions)
      throws IOException {
    Reader in = new Reader(stored, 0, stored.length);
    Writer out = new Writer(stored.length + 32);
    int inField = 0;
    int outField = 0;
    boolean fileOffsetWritten = false;
    boolean indexesWritten = false;
    boolean metadataSeen = false;
    while (true) {
      int header = in.fieldHeader(inField);
      int id = header == STOP ? Integer.MAX_VALUE : id(header);
      if (!fileOffsetWritten && id > FILE_OFFSET) {
        outField = out.fieldHeader(outField, FILE_OFFSET, I64);
        out.varint(zigzag(dataPageOffset));
        fileOffsetWritten = true;
      }
      if (!indexesWritten && id > META_DATA) {
        outField = indexPositions(out, outField, positions);
        indexesWritten = true;
      }
      if (header == STOP) {
        out.writeByte(STOP);
        break;
      }
      inField = id;
      int type = type(header);
      boolean written = id == FILE_OFFSET || id >= OFFSET_INDEX_OFFSET && id <= COLUMN_INDEX_LENGTH;
      if (written || ColumnChunk._Fields.findByThriftId((short) id) == null) {
        in.skip(type, 1);
      } else if (id == META_DATA && type == STRUCT) {
        outField = out.fieldHeader(outField, id, type);
        long moved = movedColumnMetaData(in, out, delta, positions.bloomFilterOffset());
        if (moved != dataPageOffset) {
          throw new IllegalArgumentException("first data page moved to " + moved + ", not " + dataPageOffset);
        }
        metadataSeen = true;
      } else {
        outField = out.copyField(outField, id, type, in);
      }
    }
    if (!metadataSeen) {
      throw new IOException("column chunk without plain metadata (encrypted?)");
    }
    return out.toByteArray();
  }

  /** Copies a ColumnMetaData struct, moving its page offsets; returns its moved first data page's offset. */
  private static long movedColumnMetaData(Reader in, Writer out, long delta, long bloomFilterOffset)
      throws IOException {
    int inField = 0;
    int outField = 0;
    long dataPageOffset = Long.MIN_VALUE;
    boolean bloomFilterWritten = bloomFilterOffset < 0;
    while (true) {
      int header = in.fieldHeader(inField);
      int id = header == STOP ? Integer.MAX_VALUE : id(header);
      if (!bloomFilterWritten && id > BLOOM_FILTER_OFFSET) {
        outField = out.fieldHeader(outField, BLOOM_FILTER_OFFSET, I64);
        out.varint(zigzag(bloomFilterOffset));
        bloomFilterWritten = true;
      }
      if (header == STOP) {
        out.writeByte(STOP);
        if (dataPageOffset == Long.MIN_VALUE) {
          throw new IOException("column metadata without a data page offset");
        }
        return dataPageOffset;
      }
      inField = id;
      int type = type(header);
      boolean offset = type == I64 && (id == DATA_PAGE_OFFSET || id == INDEX_PAGE_OFFSET
          || id == DICTIONARY_PAGE_OFFSET);
      if (offset) {
        long value = unzigzag(in.varint());
        // 0 is how some writers said "no dictionary page offset": it stays as the source had it.
        long moved = id == DICTIONARY_PAGE_OFFSET && value == 0 ? 0 : value + delta;
        outField = out.fieldHeader(outField, id, type);
        out.varint(zigzag(moved));
        if (id == DATA_PAGE_OFFSET) {
          dataPageOffset = moved;
        }
        continue;
      }
      if (id == BLOOM_FILTER_OFFSET || ColumnMetaData._Fields.findByThriftId((short) id) == null) {
        in.skip(type, 2);
        continue;
      }
      outField = out.copyField(outField, id, type, in);
    }
  }

  /** Writes ColumnChunk fields 4 to 7, those of the page indexes there are; returns the last field id written. */
  private static int indexPositions(Writer out, int lastField, IndexPositions positions) {
    int field = lastField;
    if (positions.offsetIndexOffset() >= 0) {
      field = out.fieldHeader(field, OFFSET_INDEX_OFFSET, I64);
      out.varint(zigzag(positions.offsetIndexOffset()));
      field = out.fieldHeader(field, OFFSET_INDEX_LENGTH, I32);
      out.varint(zigzag(positions.offsetIndexLength()));
    }
    if (positions.columnIndexOffset() >= 0) {
      field = out.fieldHeader(field, COLUMN_INDEX_OFFSET, I64);
      out.varint(zigzag(positions.columnIndexOffset()));
      field = out.fieldHeader(field, COLUMN_INDEX_LENGTH, I32);
      out.varint(zigzag(positions.columnIndexLength()));
    }
    return field;
  }

  /**
   * An offset index's stored bytes with its pages moved by {@code delta} bytes, as Thrift writes it once moved.
   *
   * @param stored one OffsetIndex struct as stored, stop byte included
   */
  static byte[] movedOffsetIndex(byte[] stored, long delta) throws IOException {
    Reader in = new Reader(stored, 0, stored.length);
    Writer out = new Writer(stored.length + 32);
    int inField = 0;
    int outField = 0;
    while (true) {
      int header = in.fieldHeader(inField);
      if (header == STOP) {
        out.writeByte(STOP);
        return out.toByteArray();
      }
      int id = id(header);
      int type = type(header);
      inField = id;
      if (OffsetIndex._Fields.findByThriftId((short) id) == null) {
        in.skip(type, 1);
        continue;
      }
      if (id != PAGE_LOCATIONS || type != LIST) {
        outField = out.copyField(outField, id, type, in);
        continue;
      }
      outField = out.fieldHeader(outField, id, type);
      int[] list = in.listHeader();
      if (list[0] != STRUCT) {
        throw new IOException("page locations of type " + list[0] + ", not structs");
      }
      out.listHeader(STRUCT, list[1]);
      for (int page = 0; page < list[1]; page++) {
        movedPageLocation(in, out, delta);
      }
    }
  }

  private static void movedPageLocation(Reader in, Writer out, long delta) throws IOException {
    int inField = 0;
    int outField = 0;
    while (true) {
      int header = in.fieldHeader(inField);
      if (header == STOP) {
        out.writeByte(STOP);
        return;
      }
      int id = id(header);
      int type = type(header);
      inField = id;
      if (PageLocation._Fields.findByThriftId((short) id) == null) {
        in.skip(type, 2);
      } else if (id == PAGE_OFFSET && type == I64) {
        outField = out.fieldHeader(outField, id, type);
        out.varint(zigzag(unzigzag(in.varint()) + delta));
      } else {
        outField = out.copyField(outField, id, type, in);
      }
    }
  }

  /** A field header as {@link Reader#fieldHeader} returns it: the field's id above its type's four bits. */
  private static int id(int header) {
    return header >>> 4;
  }

  private static int type(int header) {
    return header & 0x0f;
  }

  private static long zigzag(long value) {
    return (value << 1) ^ (value >> 63);
  }

  private static long unzigzag(long value) {
    return (value >>> 1) ^ -(value & 1);
  }

  /** Reads the compact protocol from bytes; every length is checked against the bytes there are. */
  private static final class Reader {
    private final byte[] bytes;
    private final int end;
    private int position;

    Reader(byte[] bytes, int start, int end) {
      this.bytes = bytes;
      this.position = start;
      this.end = end;
    }

    int readByte() throws IOException {
      if (position >= end) {
        throw new IOException("the bytes end before the structure does: corrupt metadata");
      }
      return bytes[position++] & 0xff;
    }

    long varint() throws IOException {
      long value = 0;
      for (int shift = 0; shift < 64; shift += 7) {
        int b = readByte();
        value |= (long) (b & 0x7f) << shift;
        if ((b & 0x80) == 0) {
          return value;
        }
      }
      throw new IOException("a varint longer than 10 bytes: corrupt metadata");
    }

    /** The next field's id and type ({@code id << 4 | type}), or {@link #STOP} at the end of a struct. */
    int fieldHeader(int lastField) throws IOException {
      int header = readByte();
      int type = header & 0x0f;
      if (type == STOP) {
        return STOP;
      }
      int delta = header >>> 4;
      int id = delta == 0 ? (int) unzigzag(varint()) : lastField + delta;
      if (id <= 0 || id > Short.MAX_VALUE) {
        throw new IOException("field id " + id + ": corrupt metadata");
      }
      return id << 4 | type;
    }

    /** A list's or set's element type and size. */
    int[] listHeader() throws IOException {
      int header = readByte();
      long size = header >>> 4;
      if (size == 15) {
        size = varint();
      }
      if (size < 0 || size > end - position) {
        throw new IOException("a list of " + size + " elements in " + (end - position) + " bytes: corrupt metadata");
      }
      return new int[] {header & 0x0f, (int) size};
    }

    void skipStruct(int depth) throws IOException {
      int field = 0;
      while (true) {
        int header = fieldHeader(field);
        if (header == STOP) {
          return;
        }
        field = id(header);
        skip(type(header), depth + 1);
      }
    }

    /** Skips a field's value (a boolean field has none: its type is its value). */
    void skip(int type, int depth) throws IOException {
      if (type == BOOLEAN_TRUE || type == BOOLEAN_FALSE) {
        return;
      }
      skipValue(type, depth);
    }

    /** Skips a value of a list, set or map, or a field's of another type than boolean. */
    private void skipValue(int type, int depth) throws IOException {
      if (depth > MAX_DEPTH) {
        throw new IOException("metadata nested deeper than " + MAX_DEPTH + " structures: corrupt");
      }
      switch (type) {
        case BOOLEAN_TRUE, BOOLEAN_FALSE, BYTE -> advance(1);
        case I16, I32, I64 -> varint();
        case DOUBLE -> advance(8);
        case BINARY -> {
          long length = varint();
          if (length < 0 || length > end - position) {
            throw new IOException("a binary of " + length + " bytes in " + (end - position) + ": corrupt metadata");
          }
          advance((int) length);
        }
        case LIST, SET -> {
          int[] list = listHeader();
          for (int i = 0; i < list[1]; i++) {
            skipValue(list[0], depth + 1);
          }
        }
        case MAP -> {
          long size = varint();
          if (size < 0 || size > end - position) {
            throw new IOException("a map of " + size + " entries: corrupt metadata");
          }
          if (size > 0) {
            int types = readByte();
            for (long i = 0; i < size; i++) {
              skipValue(types >>> 4, depth + 1);
              skipValue(types & 0x0f, depth + 1);
            }
          }
        }
        case STRUCT -> skipStruct(depth);
        default -> throw new IOException("unknown type " + type + ": corrupt metadata");
      }
    }

    private void advance(int count) throws IOException {
      if (count > end - position) {
        throw new IOException("the bytes end before the structure does: corrupt metadata");
      }
      position += count;
    }
  }

  /** Writes the compact protocol into a growing array. */
  private static final class Writer {
    private byte[] bytes;
    private int length;

    Writer(int capacity) {
      this.bytes = new byte[capacity];
    }

    void writeByte(int b) {
      if (length == bytes.length) {
        bytes = Arrays.copyOf(bytes, bytes.length * 2 + 16);
      }
      bytes[length++] = (byte) b;
    }

    void write(byte[] source, int offset, int count) {
      if (length + count > bytes.length) {
        bytes = Arrays.copyOf(bytes, Math.max(bytes.length * 2, length + count));
      }
      System.arraycopy(source, offset, bytes, length, count);
      length += count;
    }

    void varint(long value) {
      long left = value;
      while ((left & ~0x7fL) != 0) {
        writeByte((int) (left & 0x7f) | 0x80);
        left >>>= 7;
      }
      writeByte((int) left);
    }

    /** Writes a field header as Thrift's writer does; returns the field's id, the next header's reference. */
    int fieldHeader(int lastField, int id, int type) {
      int delta = id - lastField;
      if (delta > 0 && delta <= 15) {
        writeByte(delta << 4 | type);
      } else {
        writeByte(type);
        varint(zigzag(id));
      }
      return id;
    }

    void listHeader(int elementType, int size) {
      if (size < 15) {
        writeByte(size << 4 | elementType);
      } else {
        writeByte(0xf0 | elementType);
        varint(size);
      }
    }

    /** Copies a field's value as stored, under a header written anew; returns the field's id. */
    int copyField(int lastField, int id, int type, Reader in) throws IOException {
      int written = fieldHeader(lastField, id, type);
      int start = in.position;
      in.skip(type, 1);
      write(in.bytes, start, in.position - start);
      return written;
    }

    byte[] toByteArray() {
      return Arrays.copyOf(bytes, length);
    }
  }
}
