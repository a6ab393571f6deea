import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.LocalFileSystem;
import org.apache.hadoop.fs.Path;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import java.util.zip.CRC32;

/**
 * What reading a copy's sources costs through Hadoop's checksummed local file system against reading them raw with
 * 1 MB calls and verifying their {@code .crc} files by hand, as the binary copy does (LocalChecksummedRead): reads
 * every {@code .parquet} file of DIR whole, ROUNDS rounds of both; prints wall milliseconds. Run with Java's
 * single-file launcher on the built daemon's class path:
 * {@code java -cp 'api/target/hudi-tsd.jar:api/target/lib/*' bench/LocalChecksumRead.java DIR [ROUNDS]}
 * (docs/benchmarks.md, "Sources read with large calls").
 */
public final class LocalChecksumRead {
  public static void main(String[] args) throws Exception {
    if (args.length < 1) {
      throw new IllegalArgumentException("usage: LocalChecksumRead DIR [ROUNDS]");
    }
    List<java.nio.file.Path> files = new ArrayList<>();
    try (Stream<java.nio.file.Path> listing = Files.list(java.nio.file.Path.of(args[0]))) {
      listing.filter(file -> file.toString().endsWith(".parquet")).sorted().forEach(files::add);
    }
    int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 4;
    LocalFileSystem checksummed = FileSystem.getLocal(new Configuration());
    byte[] buffer = new byte[64 << 20];
    for (int round = 0; round < rounds; round++) {
      for (boolean hadoop : new boolean[] {true, false}) {
        long start = System.nanoTime();
        long bytes = 0;
        for (java.nio.file.Path file : files) {
          int length = Math.toIntExact(Files.size(file));
          if (hadoop) {
            try (FSDataInputStream in = checksummed.open(new Path(file.toUri()))) {
              in.readFully(buffer, 0, length);
            }
          } else {
            readRawAndVerify(file, length, buffer);
          }
          bytes += length;
        }
        System.out.printf("round %d %s: %d ms for %d MB%n", round, hadoop ? "hadoop-checksummed" : "raw+crc",
            (System.nanoTime() - start) / 1_000_000, bytes >> 20);
      }
    }
  }

  private static void readRawAndVerify(java.nio.file.Path file, int length, byte[] buffer) throws IOException {
    try (InputStream in = Files.newInputStream(file)) {
      for (int read = 0; read < length; ) {
        read += in.read(buffer, read, Math.min(1 << 20, length - read));
      }
    }
    ByteBuffer sums = ByteBuffer.wrap(Files.readAllBytes(file.resolveSibling("." + file.getFileName() + ".crc")));
    sums.position(4);
    int perChecksum = sums.getInt();
    CRC32 crc = new CRC32();
    for (int start = 0; start < length; start += perChecksum) {
      crc.reset();
      crc.update(buffer, start, Math.min(perChecksum, length - start));
      if ((int) crc.getValue() != sums.getInt()) {
        throw new IOException("checksum error in " + file + " at " + start);
      }
    }
  }
}
