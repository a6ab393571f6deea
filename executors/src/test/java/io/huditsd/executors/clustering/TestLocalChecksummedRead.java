package io.huditsd.executors.clustering;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.ChecksumException;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.LocalFileSystem;
import org.apache.hadoop.fs.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The start of a file read with large calls and verified by hand is what Hadoop's checksummed local file system reads,
 * and a byte changed on disk in any checksum chunk the read touches fails it, as Hadoop's stream would.
 */
class TestLocalChecksummedRead {
  /** Not a multiple of the 512 bytes per checksum: the file ends in a partial chunk. */
  private static final int FILE_LENGTH = 3 * 1024 * 1024 + 300;

  @TempDir
  java.nio.file.Path directory;

  private final LocalFileSystem fileSystem;

  TestLocalChecksummedRead() throws IOException {
    fileSystem = FileSystem.getLocal(new Configuration());
  }

  @Test
  void readsWhatHadoopsChecksummedStreamReads() throws IOException {
    Path file = write("data.bin");
    assertThat(checksumFile(file)).exists();
    for (int length : new int[] {0, 1, 511, 512, 513, 1024 * 1024 + 7, FILE_LENGTH - 1, FILE_LENGTH}) {
      byte[] ours = LocalChecksummedRead.read(fileSystem, file, length, byte[]::new);
      byte[] hadoops = new byte[length];
      try (FSDataInputStream in = fileSystem.open(file)) {
        in.readFully(0, hadoops);
      }
      assertThat(ours.length).as("array for %s bytes", length).isBetween(length, length + 511);
      assertThat(Arrays.copyOf(ours, length)).as("first %s bytes", length).isEqualTo(hadoops);
    }
  }

  @Test
  void aByteChangedInAChunkReadFailsNamingFileAndChunk() throws IOException {
    Path file = write("rotten.bin");
    int changed = 2 * 1024 * 1024 + 5000;
    flip(file, changed);

    assertThatThrownBy(() -> LocalChecksummedRead.read(fileSystem, file, FILE_LENGTH, byte[]::new))
        .isInstanceOf(ChecksumException.class).hasMessageContaining("Checksum error")
        .hasMessageContaining(file.toString()).hasMessageContaining("at " + (changed / 512 * 512));
    // Beyond what is read, in the last chunk the read touches: that chunk is verified whole.
    assertThatThrownBy(() -> LocalChecksummedRead.read(fileSystem, file, changed - 3, byte[]::new))
        .isInstanceOf(ChecksumException.class);
    assertThat(LocalChecksummedRead.read(fileSystem, file, changed / 512 * 512, byte[]::new))
        .as("chunks before the change").isNotNull();
  }

  @Test
  void aFileWithoutChecksumsIsReadUnverifiedAndAShortChecksumFileIsAnError() throws IOException {
    Path unchecked = write("unchecked.bin");
    byte[] expected = Files.readAllBytes(local(unchecked));
    Files.delete(checksumFile(unchecked));
    assertThat(LocalChecksummedRead.read(fileSystem, unchecked, FILE_LENGTH, byte[]::new)).isEqualTo(expected);

    Path truncated = write("truncated.bin");
    byte[] sums = Files.readAllBytes(checksumFile(truncated));
    Files.write(checksumFile(truncated), Arrays.copyOf(sums, sums.length / 2));
    assertThatThrownBy(() -> LocalChecksummedRead.read(fileSystem, truncated, FILE_LENGTH, byte[]::new))
        .isInstanceOf(ChecksumException.class).hasMessageContaining("covers fewer than");
    assertThatThrownBy(() -> LocalChecksummedRead.read(fileSystem, truncated, FILE_LENGTH + 1, byte[]::new))
        .isInstanceOf(IOException.class).hasMessageContaining("shorter than");
  }

  @Test
  void aChecksumFileClaimingHugeChunksIsAnErrorNotABufferOfThatSize() throws IOException {
    Path file = write("huge-chunks.bin");
    byte[] sums = Files.readAllBytes(checksumFile(file));
    // The header: "crc\0", then the bytes per checksum as a big-endian int.
    ByteBuffer.wrap(sums).putInt(4, 1 << 30);
    Files.write(checksumFile(file), sums);
    List<Integer> asked = new ArrayList<>();
    assertThatThrownBy(() -> LocalChecksummedRead.read(fileSystem, file, 1000, wanted -> {
      asked.add(wanted);
      return new byte[Math.min(wanted, 2 * FILE_LENGTH)];
    })).isInstanceOf(IOException.class).hasMessageContaining("corrupt checksum file")
        .hasMessageContaining(checksumFile(file).getFileName().toString()).hasMessageContaining("1073741824");
    assertThat(asked).as("buffers asked for").isEmpty();
  }

  /** A file written through Hadoop's checksummed local file system, which writes its .crc beside it. */
  private Path write(String name) throws IOException {
    Path file = new Path(directory.resolve(name).toUri());
    byte[] bytes = new byte[FILE_LENGTH];
    new Random(name.hashCode()).nextBytes(bytes);
    try (FSDataOutputStream out = fileSystem.create(file)) {
      out.write(bytes);
    }
    return file;
  }

  private static void flip(Path file, int position) throws IOException {
    byte[] bytes = Files.readAllBytes(local(file));
    bytes[position] ^= 0x5a;
    Files.write(local(file), bytes);
  }

  private java.nio.file.Path checksumFile(Path file) {
    return local(fileSystem.getChecksumFile(file));
  }

  private static java.nio.file.Path local(Path path) {
    return java.nio.file.Path.of(path.toUri());
  }
}
