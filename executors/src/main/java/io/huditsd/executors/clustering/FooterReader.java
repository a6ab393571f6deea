package io.huditsd.executors.clustering;

import org.apache.parquet.format.FileMetaData;
import org.apache.parquet.format.RowGroup;
import org.apache.parquet.format.converter.ParquetMetadataConverter;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.apache.parquet.io.InputFile;
import org.apache.parquet.io.SeekableInputStream;
import shaded.parquet.org.apache.thrift.TConfiguration;
import shaded.parquet.org.apache.thrift.TException;
import shaded.parquet.org.apache.thrift.protocol.TCompactProtocol;
import shaded.parquet.org.apache.thrift.protocol.TField;
import shaded.parquet.org.apache.thrift.protocol.TStruct;
import shaded.parquet.org.apache.thrift.transport.TEndpointTransport;
import shaded.parquet.org.apache.thrift.transport.TTransportException;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;

/**
 * Reads a Parquet footer as {@link ParquetFileReader#readFooter} does with no filter, without interning its strings,
 * and with one key-value entry's value handed back as bytes instead of a string. Parquet's reader interns every
 * string of the footer, which suits column names repeated across row groups, but a Hudi base file's footer also
 * holds its bloom filter as one Base64 string (about 580 KB at Hudi's default 60,000 entries): interning it hashes
 * and stores it in the JVM's string table, a quarter of the CPU of reading the footers of a clustering group, and
 * even without interning the string costs three copies of those bytes (read, decoded to a string, encoded back for
 * Base64) that a copy of 200 small files allocates and zeroes 200 times. Held apart, the value is a view of the
 * footer's bytes as read. The footer's structure is Parquet's ({@code FileMetaData}, read by its own Thrift code)
 * and its conversion Parquet's ({@link ParquetMetadataConverter#fromParquetMetadata}); an encrypted file is left to
 * Parquet's reader.
 */
final class FooterReader {
  private static final byte[] MAGIC = "PAR1".getBytes(StandardCharsets.US_ASCII);
  /** The footer's length (4 bytes, little-endian) and the magic that end a file. */
  private static final int TAIL = 8;
  private static final ParquetMetadataConverter CONVERTER = new ParquetMetadataConverter();

  private FooterReader() {
  }

  /**
   * A footer as read.
   *
   * @param metadata the footer, without the held key's entry in its key-value metadata
   * @param heldValue what was made of the held key's value, or null when the footer has none
   * @param offset where the footer starts in the file: every row group, page index and Parquet bloom filter lies
   *     before it
   * @param storedRowGroups the row groups as the footer stores them (Parquet's Thrift structures and their chunks'
   *     bytes, in the order of {@code metadata}'s blocks), which a copy carries over with only their offsets moved;
   *     null for a file with encrypted columns, whose footer Parquet's reader read
   */
  record Footer<T>(ParquetMetadata metadata, T heldValue, long offset, List<StoredRowGroup> storedRowGroups) {
    Footer {
      Objects.requireNonNull(metadata, "metadata is null");
      if (storedRowGroups != null && storedRowGroups.size() != metadata.getBlocks().size()) {
        throw new IllegalArgumentException(storedRowGroups.size() + " stored row groups for "
            + metadata.getBlocks().size() + " blocks");
      }
    }
  }

  /**
   * Reads the footer into an array lent by {@code footerArrays}, which has it back before this returns: the held
   * value is given to {@code heldValue} as a view of that array, and must not be kept beyond the call.
   *
   * @param heldKey the key-value entry whose value is handed to {@code heldValue} as UTF-8 bytes (position to limit)
   * @param heldValue makes the footer's {@link Footer#heldValue} of the held value; not called when there is none
   * @param footerArrays lends the array the footer is read into; null: a new array, which the view may keep
   */
  static <T> Footer<T> read(InputFile file, String heldKey, Function<ByteBuffer, T> heldValue,
                            ScratchArrays footerArrays) throws IOException {
    Objects.requireNonNull(heldKey, "heldKey is null");
    Objects.requireNonNull(heldValue, "heldValue is null");
    long length = file.getLength();
    if (length < MAGIC.length + TAIL) {
      throw new IOException(file + " is not a Parquet file (too small: " + length + " bytes)");
    }
    byte[] footer = null;
    try {
      long footerStart;
      int footerLength;
      try (SeekableInputStream in = file.newStream()) {
        byte[] tail = new byte[TAIL];
        in.seek(length - TAIL);
        in.readFully(tail);
        footerLength = ByteBuffer.wrap(tail, 0, 4).order(ByteOrder.LITTLE_ENDIAN).getInt();
        footerStart = length - TAIL - footerLength;
        if (!Arrays.equals(tail, 4, TAIL, MAGIC, 0, MAGIC.length)) {
          // An encrypted footer ("PARE"), or not a Parquet file: Parquet's reader decrypts or says what is wrong.
          return fromParquetReader(file, heldKey, heldValue, footerStart);
        }
        if (footerLength < 0 || footerStart < MAGIC.length) {
          throw new IOException("corrupted file: the footer index is not within the file: " + file);
        }
        footer = footerArrays == null ? new byte[footerLength] : footerArrays.atLeast(footerLength);
        in.seek(footerStart);
        in.readFully(footer, 0, footerLength);
      }
      FileMetaData metadata = new FileMetaData();
      HoldingProtocol protocol;
      try {
        protocol = new HoldingProtocol(new FooterBytes(footer, footerLength), heldKey);
        metadata.read(protocol);
      } catch (TException e) {
        throw new IOException("cannot read the Parquet footer of " + file + ": " + e.getMessage(), e);
      }
      if (metadata.isSetEncryption_algorithm()) {
        // A plaintext footer over encrypted columns: Parquet's reader checks the footer's signature.
        return fromParquetReader(file, heldKey, heldValue, footerStart);
      }
      if (protocol.held != null && metadata.getKey_value_metadata() != null) {
        metadata.getKey_value_metadata().removeIf(entry -> heldKey.equals(entry.getKey()));
      }
      List<RowGroup> rowGroups = metadata.getRow_groups() == null ? List.of() : metadata.getRow_groups();
      List<StoredRowGroup> stored = StoredRowGroup.of(rowGroups,
          CompactMetadata.columnChunks(footer, 0, footerLength));
      return new Footer<>(CONVERTER.fromParquetMetadata(metadata, null, false, rowIndexOffsets(metadata)),
          protocol.held == null ? null : heldValue.apply(protocol.held), footerStart, stored);
    } finally {
      // Nothing read from the footer keeps its array: Thrift and the chunks' bytes copied every value out of it.
      if (footerArrays != null) {
        footerArrays.giveBack(footer);
      }
    }
  }

  private static <T> Footer<T> fromParquetReader(InputFile file, String heldKey, Function<ByteBuffer, T> heldValue,
                                                 long footerStart) throws IOException {
    ParquetMetadata parquets = ParquetFileReader.readFooter(file, ParquetMetadataConverter.NO_FILTER);
    Map<String, String> keyValues = new HashMap<>(parquets.getFileMetaData().getKeyValueMetaData());
    String held = keyValues.remove(heldKey);
    return new Footer<>(withKeyValues(parquets, keyValues),
        held == null ? null : heldValue.apply(ByteBuffer.wrap(held.getBytes(StandardCharsets.UTF_8))), footerStart,
        null);
  }

  /** {@code footer} with other key-value metadata; schema, writer, encryption and row groups as they are. */
  static ParquetMetadata withKeyValues(ParquetMetadata footer, Map<String, String> keyValues) {
    org.apache.parquet.hadoop.metadata.FileMetaData file = footer.getFileMetaData();
    return new ParquetMetadata(new org.apache.parquet.hadoop.metadata.FileMetaData(file.getSchema(), keyValues,
        file.getCreatedBy(), file.getEncryptionType(), file.getFileDecryptor()), footer.getBlocks());
  }

  /** Where each row group's rows start in the file, as Parquet's reader gives them to the conversion. */
  private static Map<RowGroup, Long> rowIndexOffsets(FileMetaData metadata) {
    Map<RowGroup, Long> offsets = new IdentityHashMap<>();
    if (metadata.getRow_groups() != null) {
      long rows = 0;
      for (RowGroup rowGroup : metadata.getRow_groups()) {
        offsets.put(rowGroup, rows);
        rows += rowGroup.getNum_rows();
      }
    }
    return offsets;
  }

  /**
   * Parquet's compact protocol, except that the value of a {@code key_value_metadata} entry of the held key is read
   * as a view of the footer's bytes (kept in {@link #held}) and given to Thrift as an empty string. Only an entry of
   * the file's own key-value metadata is held (a struct's field ids repeat across structs), and only when its key
   * came before its value, as Thrift writes them; otherwise the value is an ordinary string.
   */
  private static final class HoldingProtocol extends TCompactProtocol {
    /** {@code FileMetaData.key_value_metadata}. */
    private static final short KEY_VALUE_METADATA = 5;
    /** {@code KeyValue.key} and {@code KeyValue.value}. */
    private static final short KEY = 1;
    private static final short VALUE = 2;

    private final FooterBytes transport;
    private final String heldKey;
    /** Structs entered and not left: 1 in {@code FileMetaData}, 2 in an element of one of its lists. */
    private int depth;
    private short fileMetaDataField;
    private short field;
    private boolean heldKeyRead;
    private ByteBuffer held;

    HoldingProtocol(FooterBytes transport, String heldKey) {
      super(transport);
      this.transport = transport;
      this.heldKey = heldKey;
    }

    @Override
    public TStruct readStructBegin() throws TException {
      depth++;
      heldKeyRead = false;
      return super.readStructBegin();
    }

    @Override
    public void readStructEnd() throws TException {
      depth--;
      super.readStructEnd();
    }

    @Override
    public TField readFieldBegin() throws TException {
      TField next = super.readFieldBegin();
      if (depth == 1) {
        fileMetaDataField = next.id;
      }
      field = next.id;
      return next;
    }

    @Override
    public String readString() throws TException {
      boolean inKeyValue = depth == 2 && fileMetaDataField == KEY_VALUE_METADATA;
      if (inKeyValue && field == VALUE && heldKeyRead) {
        heldKeyRead = false;
        transport.lend(true);
        try {
          held = readBinary();
        } finally {
          transport.lend(false);
        }
        return "";
      }
      String value = super.readString();
      if (inKeyValue && field == KEY) {
        heldKeyRead = heldKey.equals(value);
      }
      return value;
    }
  }

  /**
   * A footer's bytes as a Thrift transport that can lend its buffer, so that Thrift reads the held value in place
   * instead of copying it into an array first. Only then: Parquet's conversion keeps the binaries it is given
   * (column statistics), which as views would each hold the whole footer, bloom filter included. A footer over
   * Thrift's message-size limit is refused, as Parquet's reader refuses it, and a length read from the footer is
   * checked against the bytes left, so a corrupt footer fails instead of allocating what its lengths claim.
   */
  private static final class FooterBytes extends TEndpointTransport {
    private final byte[] bytes;
    /** The footer's length: {@link #bytes} may be a longer array lent for it. */
    private final int footerLength;
    private int position;
    private boolean lending;

    FooterBytes(byte[] bytes, int length) throws TTransportException {
      super(new TConfiguration());
      if (length > getMaxMessageSize()) {
        throw new TTransportException(TTransportException.UNKNOWN, "the footer is larger (" + length
            + " bytes) than Thrift's message-size limit (" + getMaxMessageSize() + " bytes)");
      }
      this.bytes = bytes;
      this.footerLength = length;
    }

    @Override
    public void checkReadBytesAvailable(long count) throws TTransportException {
      if (count > footerLength - position) {
        throw new TTransportException(TTransportException.END_OF_FILE, "the footer ends before its structure does: "
            + count + " bytes wanted, " + (footerLength - position) + " left");
      }
    }

    @Override
    public boolean isOpen() {
      return true;
    }

    @Override
    public void open() {
    }

    @Override
    public void close() {
    }

    @Override
    public int read(byte[] buffer, int offset, int length) throws TTransportException {
      int available = Math.min(length, footerLength - position);
      if (available <= 0 && length > 0) {
        throw new TTransportException(TTransportException.END_OF_FILE, "the footer ends before its structure does");
      }
      System.arraycopy(bytes, position, buffer, offset, available);
      consumeBuffer(available);
      return available;
    }

    @Override
    public void write(byte[] buffer, int offset, int length) throws TTransportException {
      throw new TTransportException(TTransportException.UNKNOWN, "a footer's bytes are read only");
    }

    /** While lending, Thrift reads in place from {@link #getBuffer}; otherwise it copies what it reads. */
    void lend(boolean lend) {
      this.lending = lend;
    }

    @Override
    public byte[] getBuffer() {
      return lending ? bytes : null;
    }

    @Override
    public int getBufferPosition() {
      return lending ? position : 0;
    }

    @Override
    public int getBytesRemainingInBuffer() {
      return lending ? footerLength - position : -1;
    }

    @Override
    public void consumeBuffer(int length) {
      position += length;
    }
  }
}
