package io.huditsd.executors.clustering;

import org.apache.parquet.format.FileMetaData;
import org.apache.parquet.format.RowGroup;
import org.apache.parquet.format.converter.ParquetMetadataConverter;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.apache.parquet.io.InputFile;
import org.apache.parquet.io.SeekableInputStream;
import shaded.parquet.org.apache.thrift.TException;
import shaded.parquet.org.apache.thrift.protocol.TCompactProtocol;
import shaded.parquet.org.apache.thrift.transport.TIOStreamTransport;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.IdentityHashMap;
import java.util.Map;

/**
 * Reads a Parquet footer as {@link ParquetFileReader#readFooter} does with no filter, without interning its strings.
 * Parquet's reader interns every string of the footer, which suits column names repeated across row groups, but a
 * Hudi base file's footer also holds its bloom filter as one Base64 string (about 580 KB at Hudi's default 60,000
 * entries): interning it hashes and stores it in the JVM's string table, a quarter of the CPU of reading the footers
 * of a clustering group. The footer's structure is Parquet's ({@code FileMetaData}, read by its own Thrift code) and
 * its conversion Parquet's ({@link ParquetMetadataConverter#fromParquetMetadata}); an encrypted file is left to
 * Parquet's reader.
 */
final class FooterReader {
  private static final byte[] MAGIC = "PAR1".getBytes(StandardCharsets.US_ASCII);
  /** The footer's length (4 bytes, little-endian) and the magic that end a file. */
  private static final int TAIL = 8;
  private static final ParquetMetadataConverter CONVERTER = new ParquetMetadataConverter();

  private FooterReader() {
  }

  static ParquetMetadata read(InputFile file) throws IOException {
    long length = file.getLength();
    if (length < MAGIC.length + TAIL) {
      throw new IOException(file + " is not a Parquet file (too small: " + length + " bytes)");
    }
    byte[] footer;
    try (SeekableInputStream in = file.newStream()) {
      byte[] tail = new byte[TAIL];
      in.seek(length - TAIL);
      in.readFully(tail);
      if (!Arrays.equals(tail, 4, TAIL, MAGIC, 0, MAGIC.length)) {
        // An encrypted footer ("PARE"), or not a Parquet file: Parquet's reader decrypts or says what is wrong.
        return ParquetFileReader.readFooter(file, ParquetMetadataConverter.NO_FILTER);
      }
      int footerLength = ByteBuffer.wrap(tail, 0, 4).order(ByteOrder.LITTLE_ENDIAN).getInt();
      long footerStart = length - TAIL - footerLength;
      if (footerLength < 0 || footerStart < MAGIC.length) {
        throw new IOException("corrupted file: the footer index is not within the file: " + file);
      }
      footer = new byte[footerLength];
      in.seek(footerStart);
      in.readFully(footer);
    }
    FileMetaData metadata = new FileMetaData();
    try {
      metadata.read(new TCompactProtocol(new TIOStreamTransport(new ByteArrayInputStream(footer))));
    } catch (TException e) {
      throw new IOException("cannot read the Parquet footer of " + file + ": " + e.getMessage(), e);
    }
    if (metadata.isSetEncryption_algorithm()) {
      // A plaintext footer over encrypted columns: Parquet's reader checks the footer's signature.
      return ParquetFileReader.readFooter(file, ParquetMetadataConverter.NO_FILTER);
    }
    return CONVERTER.fromParquetMetadata(metadata, null, false, rowIndexOffsets(metadata));
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
}
