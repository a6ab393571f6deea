package io.huditsd.it.support;

import org.apache.hudi.common.fs.FSUtils;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.stream.Stream;

/** The base files of a table as they are on disk, listed without Hudi's file system view. */
public final class DataFiles {
  private DataFiles() {
  }

  /**
   * A base file.
   *
   * @param partition partition path relative to the table
   * @param fileId the file group it belongs to
   * @param instant the instant that wrote it
   * @param name file name
   */
  public record BaseFile(String partition, String fileId, String instant, String name) {
    public BaseFile {
      Objects.requireNonNull(partition, "partition is null");
      Objects.requireNonNull(fileId, "fileId is null");
      Objects.requireNonNull(instant, "instant is null");
      Objects.requireNonNull(name, "name is null");
    }

    public String path() {
      return partition + "/" + name;
    }
  }

  /** Every {@code .parquet} file under the table's partitions, sorted by path. */
  public static List<BaseFile> baseFiles(String basePath) {
    Path base = Path.of(basePath);
    try (Stream<Path> files = Files.walk(base)) {
      return files
          .filter(file -> !base.relativize(file).startsWith(".hoodie"))
          .filter(file -> file.getFileName().toString().endsWith(".parquet"))
          .map(file -> {
            String name = file.getFileName().toString();
            String partition = base.relativize(file.getParent()).toString();
            return new BaseFile(partition, FSUtils.getFileId(name), FSUtils.getCommitTime(name), name);
          })
          .sorted(Comparator.comparing(BaseFile::path))
          .toList();
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot list " + basePath, e);
    }
  }

  /**
   * The base files {@code instant} wrote, or none when a file vanished while the listing walked the table (a
   * process rolling back or writing beside it): callers poll, or list again once that process is gone.
   */
  public static List<BaseFile> writtenBy(Path basePath, String instant) {
    try {
      return baseFiles(basePath.toString()).stream().filter(file -> file.instant().equals(instant)).toList();
    } catch (UncheckedIOException e) {
      return List.of();
    }
  }
}
