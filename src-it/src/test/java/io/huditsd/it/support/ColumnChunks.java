package io.huditsd.it.support;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.Path;
import org.apache.parquet.format.converter.ParquetMetadataConverter;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.hadoop.util.HadoopInputFile;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * The stored bytes of Parquet column chunks, to tell a row-group copy (the same bytes) from a rewrite (new
 * encoding). {@code _hoodie_file_name} is left out: a copy must rewrite it.
 */
public final class ColumnChunks {
  private static final Configuration HADOOP = new Configuration();

  private ColumnChunks() {
  }

  /**
   * Digests of every column chunk but {@code _hoodie_file_name}'s, as {@code column:sha256}, with how often each
   * occurs.
   *
   * @param files paths relative to {@code basePath} ({@code partition/name})
   */
  public static Map<String, Integer> digests(java.nio.file.Path basePath, List<String> files) {
    return digests(basePath.toUri().toString(), HADOOP, files);
  }

  /** As {@link #digests(java.nio.file.Path, List)} for a table at a Hadoop URI ({@code s3a://...}). */
  public static Map<String, Integer> digests(String basePath, Configuration hadoop, List<String> files) {
    Map<String, Integer> digests = new HashMap<>();
    for (String file : files) {
      Path path = new Path(new Path(basePath), file);
      try (FSDataInputStream in = path.getFileSystem(hadoop).open(path)) {
        for (BlockMetaData block : ParquetFileReader.readFooter(HadoopInputFile.fromPath(path, hadoop),
            ParquetMetadataConverter.NO_FILTER).getBlocks()) {
          for (ColumnChunkMetaData chunk : block.getColumns()) {
            if (chunk.getPath().toDotString().equals("_hoodie_file_name")) {
              continue;
            }
            byte[] bytes = new byte[(int) chunk.getTotalSize()];
            in.readFully(chunk.getStartingPos(), bytes);
            digests.merge(chunk.getPath().toDotString() + ":"
                + HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes)), 1, Integer::sum);
          }
        }
      } catch (IOException e) {
        throw new UncheckedIOException("cannot read the column chunks of " + path, e);
      } catch (NoSuchAlgorithmException e) {
        throw new IllegalStateException(e);
      }
    }
    return digests;
  }

  /** The file ids that have log files on disk (names {@code .<fileId>_<instant>.log.<version>_<token>}). */
  public static Set<String> fileIdsWithLogs(java.nio.file.Path basePath) {
    try (Stream<java.nio.file.Path> files = Files.walk(basePath)) {
      return files.filter(path -> !path.toString().contains("/.hoodie"))
          .map(path -> path.getFileName().toString())
          .filter(name -> name.startsWith(".") && name.contains(".log.") && !name.endsWith(".crc"))
          .map(name -> name.substring(1, name.indexOf('_')))
          .collect(Collectors.toSet());
    } catch (IOException e) {
      throw new UncheckedIOException("cannot list " + basePath, e);
    }
  }
}
