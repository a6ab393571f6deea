package io.huditsd.executors;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.BufferedFSInputStream;
import org.apache.hadoop.fs.ChecksumException;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.LocalFileSystem;
import org.apache.hadoop.fs.LocatedFileStatus;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RemoteIterator;
import org.apache.hadoop.fs.permission.FsPermission;
import org.apache.hudi.hadoop.fs.HadoopFSUtils;
import org.apache.hudi.storage.StoragePath;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.Permission;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class TestForklessLocalFileSystem {
  @TempDir
  java.nio.file.Path directory;

  @Test
  void theDaemonsConfigurationOpensLocalPathsWithItUnlessTheUserNamedAnother() throws IOException {
    Configuration daemon = HudiTables.defaultHadoopConfiguration();
    try (FileSystem fileSystem = FileSystem.newInstance(URI.create("file:///"), daemon)) {
      assertThat(fileSystem).isInstanceOf(ForklessLocalFileSystem.class);
      assertThat(((LocalFileSystem) fileSystem).getRaw()).isInstanceOf(ForklessLocalFileSystem.Raw.class);
    }
    Configuration own = new Configuration();
    own.set("fs.file.impl", LocalFileSystem.class.getName());
    assertThat(ForklessLocalFileSystem.apply(own).get("fs.file.impl")).isEqualTo(LocalFileSystem.class.getName());
  }

  @Test
  void createsFilesAndDirectoriesWithTheirPermissionsWithoutStartingAProcess() throws IOException {
    Path file = new Path(directory.toUri().toString(), "data/part-0.parquet");
    List<String> started;
    try (FileSystem fileSystem = forkless(); ProcessStarts starts = ProcessStarts.record()) {
      try (FSDataOutputStream out = fileSystem.create(file, new FsPermission((short) 0640), false, 4096, (short) 1,
          1024 * 1024, null)) {
        out.write("row".getBytes(StandardCharsets.UTF_8));
      }
      fileSystem.mkdirs(new Path(directory.toUri().toString(), "markers"), new FsPermission((short) 0750));
      fileSystem.setPermission(file, new FsPermission((short) 0604));
      started = starts.commands();
    }

    assertThat(started).as("processes started").isEmpty();
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(directory.resolve("data/part-0.parquet"))))
        .isEqualTo("rw----r--");
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(directory.resolve("markers"))))
        .isEqualTo("rwxr-x---");
    assertThat(directory.resolve("data/.part-0.parquet.crc")).as("the checksum beside it").exists();
  }

  /** The contrast that shows the recording works: Hadoop's own local file system forks chmod for a create. */
  @Test
  void hadoopsOwnLocalFileSystemStartsChmodForEachCreate() throws IOException {
    Path file = new Path(directory.toUri().toString(), "hadoop.txt");
    Configuration configuration = new Configuration();
    configuration.set("fs.file.impl", LocalFileSystem.class.getName());
    try (FileSystem fileSystem = FileSystem.newInstance(URI.create("file:///"), configuration);
         ProcessStarts starts = ProcessStarts.record()) {
      fileSystem.create(file, new FsPermission((short) 0640), false, 4096, (short) 1, 1024 * 1024, null).close();
      assertThat(starts.commands()).anySatisfy(command -> assertThat(command).contains("chmod"));
    }
  }

  @Test
  void statusesAndListingsEqualHadoopsOwnAndStartNoProcess() throws IOException {
    Files.createDirectories(directory.resolve("table/.hoodie"));
    Files.writeString(directory.resolve("table/a.parquet"), "a".repeat(1000));
    Files.writeString(directory.resolve("table/b.log"), "b");
    Files.setPosixFilePermissions(directory.resolve("table/b.log"), PosixFilePermissions.fromString("rw-r-----"));
    Path table = new Path(directory.toUri().toString(), "table");
    Configuration configuration = new Configuration();
    configuration.set("fs.file.impl", LocalFileSystem.class.getName());
    try (FileSystem hadoop = FileSystem.newInstance(URI.create("file:///"), configuration);
         FileSystem forkless = forkless()) {
      List<String> expected = describe(hadoop.listStatus(table));
      List<String> expectedLocated = describe(located(hadoop, table));
      String expectedFile = describe(hadoop.getFileStatus(new Path(table, "b.log")));
      try (ProcessStarts starts = ProcessStarts.record()) {
        assertThat(describe(forkless.listStatus(table))).isEqualTo(expected).hasSize(3);
        assertThat(describe(located(forkless, table))).isEqualTo(expectedLocated).hasSize(2);
        assertThat(describe(forkless.getFileStatus(new Path(table, "b.log")))).isEqualTo(expectedFile)
            .contains("rw-r-----");
        assertThat(starts.commands()).as("processes started").isEmpty();
      }
      assertThatThrownBy(() -> forkless.getFileStatus(new Path(table, "missing")))
          .isInstanceOf(FileNotFoundException.class).hasMessageContaining("missing does not exist");
    }
  }

  /**
   * A stream opened with Hudi's 16 MiB log buffer reads what was written, seeking and reading at positions, and is
   * one Hudi takes as it is rather than wrapping it in a buffer of the size it asked for.
   */
  @Test
  void readsWhatWasWrittenThroughABoundedBufferThatHudiKeeps() throws IOException {
    byte[] content = new byte[3 * ForklessLocalFileSystem.MAX_READ_BUFFER + 17];
    for (int i = 0; i < content.length; i++) {
      content[i] = (byte) (i * 31 + i / 7);
    }
    Path file = new Path(directory.toUri().toString(), "large.bin");
    try (FileSystem fileSystem = forkless()) {
      try (FSDataOutputStream out = fileSystem.create(file)) {
        out.write(content);
      }
      byte[] read = new byte[content.length];
      try (FSDataInputStream in = HadoopFSUtils.getFSDataInputStream(fileSystem,
          new StoragePath(file.toUri()), 16 * 1024 * 1024, true)) {
        assertThat(in.getWrappedStream()).isInstanceOf(BufferedFSInputStream.class);
        in.readFully(read);
        assertThat(read).isEqualTo(content);

        in.seek(ForklessLocalFileSystem.MAX_READ_BUFFER + 5);
        assertThat(in.read()).isEqualTo(content[ForklessLocalFileSystem.MAX_READ_BUFFER + 5] & 0xff);
        assertThat(in.getPos()).isEqualTo(ForklessLocalFileSystem.MAX_READ_BUFFER + 6);
        byte[] tail = new byte[17];
        in.readFully(content.length - 17, tail);
        assertThat(tail).isEqualTo(Arrays.copyOfRange(content, content.length - 17, content.length));
      }
    }
  }

  /** A checksum that no longer matches still fails the read, through the buffer. */
  @Test
  void aFileThatNoLongerMatchesItsChecksumFailsToRead() throws IOException {
    Path file = new Path(directory.toUri().toString(), "checked.bin");
    try (FileSystem fileSystem = forkless()) {
      try (FSDataOutputStream out = fileSystem.create(file)) {
        out.write(new byte[4096]);
      }
      byte[] changed = new byte[4096];
      changed[100] = 1;
      Files.write(directory.resolve("checked.bin"), changed);
      try (FSDataInputStream in = fileSystem.open(file, 16 * 1024 * 1024)) {
        assertThatThrownBy(() -> in.readFully(new byte[4096])).isInstanceOf(ChecksumException.class);
      }
    }
  }

  private static FileSystem forkless() throws IOException {
    return FileSystem.newInstance(URI.create("file:///"),
        ForklessLocalFileSystem.apply(new Configuration()));
  }

  private static List<FileStatus> located(FileSystem fileSystem, Path path) throws IOException {
    List<FileStatus> statuses = new ArrayList<>();
    RemoteIterator<LocatedFileStatus> files = fileSystem.listFiles(path, false);
    while (files.hasNext()) {
      statuses.add(files.next());
    }
    return statuses;
  }

  private static List<String> describe(FileStatus[] statuses) {
    return describe(Arrays.asList(statuses));
  }

  private static List<String> describe(List<FileStatus> statuses) {
    return statuses.stream().sorted(Comparator.comparing(FileStatus::getPath)).map(TestForklessLocalFileSystem::describe)
        .toList();
  }

  private static String describe(FileStatus status) {
    return status.getPath() + " length=" + status.getLen() + " directory=" + status.isDirectory() + " modified="
        + status.getModificationTime() + " block=" + status.getBlockSize() + " replication="
        + status.getReplication() + " permission=" + status.getPermission() + " owner=" + status.getOwner()
        + " group=" + status.getGroup();
  }

  /**
   * The commands of the processes this JVM starts while it is open, seen by a security manager that permits
   * everything (Java 17 still lets a test install one).
   */
  @SuppressWarnings("removal")
  private static final class ProcessStarts extends SecurityManager implements AutoCloseable {
    private final List<String> commands = new ArrayList<>();
    private final SecurityManager previous;

    private ProcessStarts(SecurityManager previous) {
      this.previous = previous;
    }

    static ProcessStarts record() {
      ProcessStarts starts = new ProcessStarts(System.getSecurityManager());
      System.setSecurityManager(starts);
      return starts;
    }

    @Override
    public void checkExec(String command) {
      synchronized (commands) {
        commands.add(command);
      }
    }

    @Override
    public void checkPermission(Permission permission) {
    }

    @Override
    public void checkPermission(Permission permission, Object context) {
    }

    List<String> commands() {
      synchronized (commands) {
        return List.copyOf(commands);
      }
    }

    @Override
    public void close() {
      System.setSecurityManager(previous);
    }
  }
}
