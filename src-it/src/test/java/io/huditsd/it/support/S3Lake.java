package io.huditsd.it.support;

import io.huditsd.testing.s3.S3MockServer;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * One bucket on a real S3 server (Adobe S3Mock in a JVM of its own, {@link S3MockServer}) and the three ways the
 * processes of a test reach it with the standard S3A keys: Spark through {@code spark.hadoop.fs.s3a.*}, the daemon
 * through a {@code core-site.xml} first on its class path (as {@code bin/tsd} puts {@code HADOOP_CONF_DIR}), and the
 * test's own readers through a Hadoop {@link Configuration}.
 */
public final class S3Lake implements AutoCloseable {
  private final S3MockServer server;
  private final String bucket;
  private final Path hadoopConfDir;

  private S3Lake(S3MockServer server, String bucket, Path hadoopConfDir) {
    this.server = server;
    this.bucket = bucket;
    this.hadoopConfDir = hadoopConfDir;
  }

  /**
   * Starts S3Mock with an empty {@code bucket} under {@code work} and writes {@code work/hadoop-conf/core-site.xml}.
   * What an earlier run left in the store is deleted first: S3Mock serves it again, and a table written over an
   * earlier one mixes their timelines and metadata tables.
   */
  public static S3Lake start(Path work, String bucket) {
    Objects.requireNonNull(work, "work is null");
    Objects.requireNonNull(bucket, "bucket is null");
    Path root = work.resolve("s3mock");
    try {
      TrackedTable.deleteRecursively(root);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    S3MockServer server = S3MockServer.start(root, bucket);
    try {
      Path conf = Files.createDirectories(work.resolve("hadoop-conf"));
      Files.writeString(conf.resolve("core-site.xml"), server.coreSiteXml());
      return new S3Lake(server, bucket, conf);
    } catch (IOException | RuntimeException e) {
      server.close();
      throw e instanceof IOException io ? new UncheckedIOException(io) : (RuntimeException) e;
    }
  }

  /** {@code s3a://BUCKET/name}. */
  public String tablePath(String name) {
    return "s3a://" + bucket + "/" + name;
  }

  /** The S3A keys as Spark configuration ({@code spark.hadoop.fs.s3a.*}), for {@link SparkPeer#start(Path, Map)}. */
  public Map<String, String> sparkConf() {
    Map<String, String> conf = new LinkedHashMap<>();
    server.s3aProperties().forEach((key, value) -> conf.put("spark.hadoop." + key, value));
    return conf;
  }

  /** The directory holding core-site.xml with the S3A keys, for {@link Tsd#startDaemon(Path, Path, String...)}. */
  public Path hadoopConfDir() {
    return hadoopConfDir;
  }

  /** A Hadoop configuration with the S3A keys, for the test's {@link TableReader} and {@link ColumnChunks}. */
  public Configuration hadoop() {
    Configuration configuration = new Configuration();
    server.s3aProperties().forEach(configuration::set);
    return configuration;
  }

  /** S3Mock's log, for failure messages. */
  public Path serverLog() {
    return server.log();
  }

  @Override
  public void close() {
    try {
      closeCachedFileSystem(bucket, hadoop());
    } finally {
      server.close();
    }
  }

  /**
   * Closes this JVM's cached S3A file system of {@code bucket}. Hadoop caches file systems by scheme and bucket, not
   * by endpoint: without this, the next test class in the same JVM with its own S3Mock (another port) and a bucket of
   * the same name would reach it through this one's endpoint (connection refused once this server stopped).
   */
  public static void closeCachedFileSystem(String bucket, Configuration configuration) {
    try {
      FileSystem.get(URI.create("s3a://" + bucket + "/"), configuration).close();
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot close the cached file system of s3a://" + bucket, e);
    }
  }
}
