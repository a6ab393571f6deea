package io.huditsd.executors.clustering;

import org.apache.hadoop.fs.ChecksumException;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.LocalFileSystem;
import org.apache.hadoop.fs.Path;

import java.io.DataInputStream;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Objects;
import java.util.function.IntFunction;
import java.util.zip.CRC32;

/**
 * Reads the start of a file on a local disk as Hadoop's checksummed local file system would, verified against the
 * file's {@code .NAME.crc}, but with large reads. Hadoop's checksummed stream reads at most 32 checksum chunks (16 KB)
 * a call and verifies them one by one: reading the 200 sources of the binary-copy benchmark (232 MB) through it took
 * 147-193 ms warm, against 60-70 ms read raw with 1 MB calls and verified with the same CRC-32 per chunk
 * (bench/LocalChecksumRead.java, docs/benchmarks.md "Sources read with large calls"). The
 * checksum file's format is Hadoop's {@code ChecksumFileSystem}'s: the magic {@code crc\0}, the bytes per checksum
 * (a big-endian int), then one big-endian CRC-32 per chunk of the file. As Hadoop's, a file without a checksum file is
 * read unverified (one written by a writer that keeps none); unlike Hadoop's, a checksum file that does not cover the
 * bytes read is an error, not silently the end of checking.
 */
final class LocalChecksummedRead {
  private static final byte[] MAGIC = {'c', 'r', 'c', 0};
  private static final int CHECKSUM_SIZE = 4;
  /**
   * The most bytes per checksum a checksum file may claim. Hadoop writes 512 ({@code file.bytes-per-checksum}); the
   * read is rounded up to whole chunks, so a corrupt header claiming a gigabyte would otherwise ask for a buffer of
   * that size. Package-private: {@link CopyHeap} counts the rounding.
   */
  static final int MAX_BYTES_PER_CHECKSUM = 1024 * 1024;
  /** Bytes per read call: past the raw stream's buffer, few system calls. */
  private static final int READ_SIZE = 1 << 20;

  private LocalChecksummedRead() {
  }

  /**
   * Reads bytes 0 to {@code length} of {@code path} into an array from {@code arrays} (asked for at least
   * {@code length} bytes, a checksum chunk more at most) and verifies every checksum chunk they touch.
   *
   * @return the array, holding the bytes from its start
   * @throws ChecksumException when a chunk does not match its checksum, naming the file and position
   */
  static byte[] read(LocalFileSystem fileSystem, Path path, int length, IntFunction<byte[]> arrays)
      throws IOException {
    Objects.requireNonNull(arrays, "arrays is null");
    if (length < 0) {
      throw new IllegalArgumentException("length must not be negative: " + length);
    }
    FileSystem raw = fileSystem.getRawFileSystem();
    Path checksumFile = fileSystem.getChecksumFile(path);
    try (DataInputStream checksums = openIfPresent(raw, checksumFile)) {
      int bytesPerChecksum = 0;
      int chunks = 0;
      int wanted = length;
      if (checksums != null) {
        bytesPerChecksum = bytesPerChecksum(checksums, checksumFile);
        // Whole chunks, so that the last one touched can be verified: up to the file's end when it ends before.
        chunks = Math.toIntExact((length + (long) bytesPerChecksum - 1) / bytesPerChecksum);
        wanted = Math.toIntExact((long) chunks * bytesPerChecksum);
      }
      byte[] bytes = arrays.apply(wanted);
      int read;
      try (FSDataInputStream in = raw.open(path)) {
        read = readUpTo(in, bytes, wanted);
      }
      if (read < length) {
        throw new IOException(path + " is shorter than " + length + " bytes");
      }
      if (checksums != null) {
        byte[] expected = new byte[chunks * CHECKSUM_SIZE];
        if (readUpTo(checksums, expected, expected.length) < expected.length) {
          throw new ChecksumException("Checksum error: " + checksumFile + " covers fewer than the " + length
              + " bytes read of " + path, length);
        }
        verify(path, bytes, read, bytesPerChecksum, ByteBuffer.wrap(expected));
      }
      return bytes;
    }
  }

  /** The checksum file, or null when the file has none (as Hadoop's stream, read unverified then). */
  private static DataInputStream openIfPresent(FileSystem raw, Path checksumFile) throws IOException {
    try {
      return raw.open(checksumFile);
    } catch (FileNotFoundException e) {
      return null;
    }
  }

  /** Reads the checksum file's header: its magic, then the bytes each checksum covers. */
  private static int bytesPerChecksum(DataInputStream checksums, Path checksumFile) throws IOException {
    byte[] magic = new byte[MAGIC.length];
    checksums.readFully(magic);
    if (!Arrays.equals(magic, MAGIC)) {
      throw new IOException("not a Hadoop checksum file: " + checksumFile);
    }
    int bytesPerChecksum = checksums.readInt();
    if (bytesPerChecksum <= 0 || bytesPerChecksum > MAX_BYTES_PER_CHECKSUM) {
      throw new IOException("corrupt checksum file " + checksumFile + ": " + bytesPerChecksum
          + " bytes per checksum");
    }
    return bytesPerChecksum;
  }

  private static void verify(Path path, byte[] bytes, int read, int bytesPerChecksum, ByteBuffer expected)
      throws ChecksumException {
    CRC32 crc = new CRC32();
    for (int start = 0; expected.hasRemaining(); start += bytesPerChecksum) {
      crc.reset();
      crc.update(bytes, start, Math.min(bytesPerChecksum, read - start));
      int sum = expected.getInt();
      if ((int) crc.getValue() != sum) {
        throw new ChecksumException("Checksum error: " + path + " at " + start + " exp: " + sum + " got: "
            + (int) crc.getValue(), start);
      }
    }
  }

  /** Reads until {@code length} bytes or the end of the stream; returns how many were read. */
  private static int readUpTo(InputStream in, byte[] into, int length) throws IOException {
    int read = 0;
    while (read < length) {
      int count = in.read(into, read, Math.min(READ_SIZE, length - read));
      if (count < 0) {
        break;
      }
      read += count;
    }
    return read;
  }
}
