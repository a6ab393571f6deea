package io.huditsd.lock;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.LocalFileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hudi.client.transaction.lock.StorageLockClient;
import org.apache.hudi.client.transaction.lock.models.LockGetResult;
import org.apache.hudi.client.transaction.lock.models.LockUpsertResult;
import org.apache.hudi.client.transaction.lock.models.StorageLockData;
import org.apache.hudi.client.transaction.lock.models.StorageLockFile;
import org.apache.hudi.common.util.Option;
import org.apache.hudi.common.util.collection.Pair;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Properties;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Hudi's storage lock ({@code .hoodie/.locks/table_lock.json}: owner, {@code validUntil}, {@code expired}, the JSON
 * of Hudi's {@link StorageLockData}) on Hadoop file systems that create a file atomically: {@code file} and
 * {@code hdfs}.
 *
 * <p>Such file systems cannot replace a file only if it is still the version one read (what S3's If-Match does), so
 * the lock file is kept in generations: {@code table_lock.json.<generation>}, 19 digits, the highest being the
 * current lock. A conditional write from generation {@code g} is the exclusive creation of generation {@code g+1}
 * with its full content: of two processes that read the same generation only one can create the next. The file is
 * written beside it first and then published atomically without overwriting: a hard link on {@code file} (Hadoop's
 * local rename replaces), a rename on HDFS (which refuses an existing target). A creation that turns out stale (a
 * higher generation exists: the one it built on was superseded and cleaned up meanwhile) is withdrawn and reported
 * as a lost race. Generations below the previous one are deleted after each write.
 */
public final class HadoopStorageLockClient implements StorageLockClient {
  private static final Logger LOG = LoggerFactory.getLogger(HadoopStorageLockClient.class);
  private static final String GENERATION_FORMAT = "%019d";
  private static final int READ_ATTEMPTS = 3;

  private final String owner;
  private final Path lockFile;
  private final FileSystem fileSystem;
  private final Pattern generationName;
  private final Pattern temporaryName;
  private final boolean local;

  /** The constructor Hudi's StorageBasedLockProvider calls for a client; Hadoop settings from the class path. */
  public HadoopStorageLockClient(String owner, String lockFilePath, Properties properties) {
    this(owner, lockFilePath, new Configuration());
  }

  public HadoopStorageLockClient(String owner, String lockFilePath, Configuration configuration) {
    this.owner = Objects.requireNonNull(owner, "owner is null");
    this.lockFile = new Path(Objects.requireNonNull(lockFilePath, "lockFilePath is null"));
    FileSystem opened;
    try {
      opened = lockFile.getFileSystem(configuration);
    } catch (IOException e) {
      throw new IllegalArgumentException("Cannot open the file system of lock file " + lockFilePath, e);
    }
    String scheme = opened.getUri().getScheme();
    if (!"file".equals(scheme) && !"hdfs".equals(scheme)) {
      throw new IllegalArgumentException("Storage lock on " + lockFilePath + ": scheme '" + scheme
          + "' does not create files atomically; supported are file and hdfs");
    }
    this.local = "file".equals(scheme);
    // No .crc files beside local generations: the raw local file system.
    this.fileSystem = opened instanceof LocalFileSystem checksummed ? checksummed.getRaw()
        : opened;
    this.generationName = Pattern.compile(Pattern.quote(lockFile.getName()) + "\\.(\\d{19})");
    this.temporaryName = Pattern.compile("\\." + Pattern.quote(lockFile.getName()) + "\\.(\\d{19})\\..+\\.tmp");
  }

  /** The file holding {@code generation}. */
  Path generationFile(long generation) {
    return new Path(lockFile.getParent(), lockFile.getName() + "." + String.format(GENERATION_FORMAT, generation));
  }

  @Override
  public Pair<LockUpsertResult, Option<StorageLockFile>> tryUpsertLockFile(StorageLockData newLockData,
                                                                          Option<StorageLockFile> previousLockFile) {
    long generation;
    try {
      generation = previousLockFile.isPresent() ? Long.parseLong(previousLockFile.get().getVersionId()) + 1 : 1;
    } catch (NumberFormatException e) {
      return Pair.of(LockUpsertResult.UNKNOWN_ERROR, Option.empty());
    }
    Path target = generationFile(generation);
    try {
      if (!publish(target, StorageLockFile.toByteArray(newLockData))) {
        return Pair.of(LockUpsertResult.ACQUIRED_BY_OTHERS, Option.empty());
      }
      List<Long> generations = generations();
      long highest = generations.stream().mapToLong(Long::longValue).max().orElse(generation);
      if (highest > generation) {
        // Built on a generation that was superseded and cleaned up since: the lock moved on without us.
        fileSystem.delete(target, false);
        return Pair.of(LockUpsertResult.ACQUIRED_BY_OTHERS, Option.empty());
      }
      deleteBelow(generations, generation - 1);
      return Pair.of(LockUpsertResult.SUCCESS, Option.of(new StorageLockFile(newLockData, Long.toString(generation))));
    } catch (IOException | RuntimeException e) {
      LOG.warn("Owner {}: writing lock file {} failed", owner, target, e);
      return Pair.of(LockUpsertResult.UNKNOWN_ERROR, Option.empty());
    }
  }

  /** Creates {@code target} with {@code content} unless it exists; the content is complete once it is visible. */
  private boolean publish(Path target, byte[] content) throws IOException {
    Path temporary = new Path(target.getParent(), "." + target.getName() + "." + UUID.randomUUID() + ".tmp");
    fileSystem.mkdirs(target.getParent());
    try (FSDataOutputStream out = fileSystem.create(temporary, false)) {
      out.write(content);
    }
    try {
      if (local) {
        // Qualified: a writer may name its table without a scheme ("/data/orders"), and Path.of(URI) needs one.
        java.nio.file.Path linked = java.nio.file.Path.of(fileSystem.makeQualified(target).toUri());
        try {
          Files.createLink(linked, java.nio.file.Path.of(fileSystem.makeQualified(temporary).toUri()));
          return true;
        } catch (FileAlreadyExistsException e) {
          return false;
        }
      }
      return fileSystem.rename(temporary, target);
    } finally {
      fileSystem.delete(temporary, false);
    }
  }

  /** Deletes generations below {@code keepFrom}, and files a writer killed mid-publish left for them. */
  private void deleteBelow(List<Long> generations, long keepFrom) throws IOException {
    for (long generation : generations) {
      if (generation < keepFrom) {
        deleteQuietly(generationFile(generation));
      }
    }
    for (FileStatus status : fileSystem.listStatus(lockFile.getParent())) {
      Matcher matcher = temporaryName.matcher(status.getPath().getName());
      if (matcher.matches() && Long.parseLong(matcher.group(1)) < keepFrom) {
        deleteQuietly(status.getPath());
      }
    }
  }

  private void deleteQuietly(Path path) {
    try {
      fileSystem.delete(path, false);
    } catch (IOException e) {
      LOG.debug("Cannot delete old lock file {}", path, e);
    }
  }

  /** Generations present now, unordered. */
  private List<Long> generations() throws IOException {
    List<Long> generations = new ArrayList<>();
    FileStatus[] statuses;
    try {
      statuses = fileSystem.listStatus(lockFile.getParent());
    } catch (FileNotFoundException e) {
      return generations;
    }
    for (FileStatus status : statuses) {
      Matcher matcher = generationName.matcher(status.getPath().getName());
      if (matcher.matches()) {
        generations.add(Long.parseLong(matcher.group(1)));
      }
    }
    return generations;
  }

  @Override
  public Pair<LockGetResult, Option<StorageLockFile>> readCurrentLockFile() {
    for (int attempt = 1; attempt <= READ_ATTEMPTS; attempt++) {
      try {
        List<Long> generations = generations();
        if (generations.isEmpty()) {
          return Pair.of(LockGetResult.NOT_EXISTS, Option.empty());
        }
        long highest = generations.stream().mapToLong(Long::longValue).max().getAsLong();
        try (InputStream in = fileSystem.open(generationFile(highest))) {
          return Pair.of(LockGetResult.SUCCESS, Option.of(StorageLockFile.createFromStream(in, Long.toString(highest))));
        }
      } catch (FileNotFoundException e) {
        // Cleaned up between listing and reading: a newer generation exists; list again.
        LOG.debug("Lock generation vanished while read, attempt {}", attempt, e);
      } catch (IOException | RuntimeException e) {
        LOG.warn("Owner {}: reading lock file {} failed", owner, lockFile, e);
        return Pair.of(LockGetResult.UNKNOWN_ERROR, Option.empty());
      }
    }
    return Pair.of(LockGetResult.UNKNOWN_ERROR, Option.empty());
  }

  @Override
  public Option<String> readObject(String filePath, boolean checkExistsFirst) {
    Path path = new Path(filePath);
    try {
      if (checkExistsFirst && !fileSystem.exists(path)) {
        return Option.empty();
      }
      try (InputStream in = fileSystem.open(path)) {
        return Option.of(new String(in.readAllBytes(), StandardCharsets.UTF_8));
      }
    } catch (IOException e) {
      return Option.empty();
    }
  }

  @Override
  public boolean writeObject(String filePath, String content) {
    try (FSDataOutputStream out = fileSystem.create(new Path(filePath), true)) {
      out.write(content.getBytes(StandardCharsets.UTF_8));
      return true;
    } catch (IOException e) {
      LOG.warn("Cannot write {}", filePath, e);
      return false;
    }
  }

  @Override
  public void close() {
    // The file system is Hadoop's cached instance, shared with the rest of the process.
  }
}
