package io.huditsd.executors;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.BufferedFSInputStream;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSInputStream;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.LocalFileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RawLocalFileSystem;
import org.apache.hadoop.fs.permission.FsPermission;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.Principal;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Hadoop's checksummed local file system ({@code file:}) without the processes Hadoop forks when its native library
 * is not loaded (it never is in the daemon: Hadoop ships no {@code libhadoop.so} on Maven Central). Without it,
 * {@link RawLocalFileSystem} runs {@code chmod} after creating every file and directory (a data file, its
 * {@code .crc}, each marker, each timeline file: Hudi creates them with a permission) and {@code ls -ld} for the
 * permission of every status a listing returns. A fork from a JVM with a large heap costs milliseconds; a
 * binary-copy {@code once} spent about a second in them, and a tiny compaction's commit forks dozens of times while
 * it holds the table lock. This file system does the same through {@code java.nio}: the mode set with one
 * {@code chmod} call, a status read with one {@code stat}.
 *
 * <p>It also caps the buffers of a stream opened for reading at {@link #MAX_READ_BUFFER}: Hudi opens the metadata
 * table's HFiles with the file system's block size as buffer size (32 MiB on a local disk), and buffers each of its
 * log files in {@code hoodie.memory.dfs.buffer.max.size} (16 MiB unless set, and the metadata table's readers never
 * pass the daemon's setting on), allocating and zeroing that much for every file it opens, dozens of times a plan.
 * The stream returned is buffered already, as Hudi's own wrapping would make it, so Hudi leaves it as it is. Reads
 * larger than a buffer bypass it, so a smaller one changes no result.
 *
 * <p>Everything else is Hadoop's own: the checksums, rename, delete, the streams. Where a call needs what
 * {@code java.nio} cannot express here (a sticky bit, a file system without POSIX attributes), Hadoop's own code
 * runs.
 */
public final class ForklessLocalFileSystem extends LocalFileSystem {
  /** The Hadoop key naming the class of {@code file:} URIs. */
  static final String IMPLEMENTATION_KEY = "fs.file.impl";
  /**
   * The largest read buffer a stream gets. Small: the metadata table's readers open a file for every block they
   * read (through Hudi's {@code InLineFileSystem}), and a buffer of half a G1 region or more (1 MiB regions at the
   * default 2 GiB heap) is allocated outside the young generation, slowly.
   */
  static final int MAX_READ_BUFFER = 64 * 1024;
  /** Hadoop's {@code io.file.buffer.size} default, for a caller that asks for no size. */
  private static final int DEFAULT_READ_BUFFER = 4096;

  public ForklessLocalFileSystem() {
    super(new Raw());
  }

  /**
   * Makes {@code configuration} open {@code file:} paths with this file system, unless its user named an
   * implementation of their own; returns it.
   */
  public static Configuration apply(Configuration configuration) {
    Objects.requireNonNull(configuration, "configuration is null");
    if (configuration.get(IMPLEMENTATION_KEY) == null) {
      configuration.set(IMPLEMENTATION_KEY, ForklessLocalFileSystem.class.getName(), "hudi-tsd local file system");
    }
    return configuration;
  }

  /**
   * Hadoop's checksummed stream, buffered in at most {@link #MAX_READ_BUFFER}. Hudi wraps a stream whose inner
   * stream is an {@code FSInputStream} in a {@link BufferedFSInputStream} of the size it asked for; a stream that
   * is one already it takes as it is.
   */
  @Override
  public FSDataInputStream open(Path path, int bufferSize) throws IOException {
    FSDataInputStream opened = super.open(path, bufferSize);
    if (opened.getWrappedStream() instanceof FSInputStream checked) {
      int size = bufferSize > 0 ? Math.min(bufferSize, MAX_READ_BUFFER) : DEFAULT_READ_BUFFER;
      return new FSDataInputStream(new BufferedFSInputStream(checked, size));
    }
    return opened;
  }

  /** The raw (unchecksummed) local file system under it. */
  static final class Raw extends RawLocalFileSystem {
    private static final String ATTRIBUTES = "unix:mode,size,isDirectory,lastModifiedTime,lastAccessTime,uid,gid";

    @Override
    public void setPermission(Path path, FsPermission permission) throws IOException {
      if (permission.getStickyBit()) {
        super.setPermission(path, permission);
        return;
      }
      Set<PosixFilePermission> posix = PosixFilePermissions.fromString(permission.getUserAction().SYMBOL
          + permission.getGroupAction().SYMBOL + permission.getOtherAction().SYMBOL);
      try {
        Files.setPosixFilePermissions(pathToFile(path).toPath(), posix);
      } catch (UnsupportedOperationException e) {
        super.setPermission(path, permission);
      }
    }

    /**
     * As Hadoop's (links followed, the same fields) from one {@code stat}. The owner's and group's names are looked
     * up when asked for, once per id: a name lookup reads the system's user and group databases, and most callers
     * (a timeline listing, a partition listing) never ask.
     */
    @Override
    public FileStatus getFileStatus(Path path) throws IOException {
      java.nio.file.Path file = pathToFile(path).toPath();
      Map<String, Object> attributes;
      try {
        attributes = Files.readAttributes(file, ATTRIBUTES);
      } catch (NoSuchFileException e) {
        throw new FileNotFoundException("File " + path + " does not exist");
      } catch (UnsupportedOperationException | IllegalArgumentException e) {
        return super.getFileStatus(path);
      }
      int mode = (Integer) attributes.get("mode");
      return new LocalStatus((Long) attributes.get("size"), (Boolean) attributes.get("isDirectory"),
          getDefaultBlockSize(path), ((FileTime) attributes.get("lastModifiedTime")).toMillis(),
          ((FileTime) attributes.get("lastAccessTime")).toMillis(), new FsPermission((short) (mode & 01777)),
          path.makeQualified(getUri(), getWorkingDirectory()), file, (Integer) attributes.get("uid"),
          (Integer) attributes.get("gid"));
    }

    @Override
    public FSDataInputStream open(Path path, int bufferSize) throws IOException {
      return super.open(path, Math.min(bufferSize, MAX_READ_BUFFER));
    }
  }

  /** A status whose owner and group are named on first use, from names looked up once per id. */
  private static final class LocalStatus extends FileStatus {
    private static final Map<Integer, String> USERS = new ConcurrentHashMap<>();
    private static final Map<Integer, String> GROUPS = new ConcurrentHashMap<>();

    private final transient java.nio.file.Path file;
    private final int uid;
    private final int gid;

    LocalStatus(long length, boolean directory, long blockSize, long modified, long accessed,
                FsPermission permission, Path path, java.nio.file.Path file, int uid, int gid) {
      super(length, directory, 1, blockSize, modified, accessed, permission, null, null, path);
      this.file = file;
      this.uid = uid;
      this.gid = gid;
    }

    @Override
    public String getOwner() {
      return named(USERS, uid, "unix:owner");
    }

    @Override
    public String getGroup() {
      return named(GROUPS, gid, "unix:group");
    }

    /** The name of {@code id}, as the file's attribute gives it; its number if the file went away meanwhile. */
    private String named(Map<Integer, String> names, int id, String attribute) {
      String name = names.get(id);
      if (name == null) {
        try {
          name = ((Principal) Files.getAttribute(file, attribute)).getName();
        } catch (IOException | RuntimeException e) {
          return Integer.toString(id);
        }
        names.put(id, name);
      }
      return name;
    }
  }
}
