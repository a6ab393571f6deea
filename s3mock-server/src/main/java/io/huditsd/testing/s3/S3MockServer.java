package io.huditsd.testing.s3;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.HttpURLConnection;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.concurrent.TimeUnit;

/**
 * Adobe S3Mock, a real S3 server (path-style requests, ETags, conditional PUTs with {@code If-None-Match} and
 * {@code If-Match}), started on loopback in a JVM of its own, as a user's store would be: the process under test
 * talks to it over HTTP only. Buckets are created at start; objects live under {@code root} (a directory of the
 * caller's, kept after stop so a failed test can be inspected).
 *
 * <p>Unlike S3, S3Mock 4.12.4 checks a conditional PUT's precondition and then stores the object without holding
 * anything between the two ({@code ObjectController.putObject}): two {@code If-None-Match: *} PUTs of one key that
 * arrive together can both succeed, the later one overwriting. Two storage-lock clients racing for a free lock can
 * therefore both believe they won; the daemon's fencing ({@code FencedStorageLockProvider.checkStillHeld}, which
 * re-reads the lock file before a write under the lock) refuses the loser's write, as it would a lease lost on S3.
 *
 * <p>Also runnable from scripts ({@code bench/}): {@code java -cp <this jar> io.huditsd.testing.s3.S3MockServer ROOT
 * BUCKET...} prints the endpoint and serves until killed.
 */
public final class S3MockServer implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(S3MockServer.class);
  private static final Duration START_TIMEOUT = Duration.ofSeconds(90);
  /** What the S3A keys below pass as credentials: S3Mock accepts any signature. */
  public static final String ACCESS_KEY = "tsd-test";
  public static final String SECRET_KEY = "tsd-test-secret";

  private final Process process;
  private final int port;
  private final Path root;
  private final Path log;

  private S3MockServer(Process process, int port, Path root, Path log) {
    this.process = process;
    this.port = port;
    this.root = root;
    this.log = log;
  }

  /** Starts S3Mock with {@code buckets} under {@code root} and waits until it answers. */
  public static S3MockServer start(Path root, String... buckets) {
    Objects.requireNonNull(root, "root is null");
    Path jar = applicationJar();
    try {
      Files.createDirectories(root);
      int port = freePort();
      Path log = root.resolveSibling(root.getFileName() + "-s3mock.log");
      List<String> command = new ArrayList<>(List.of(
          Path.of(System.getProperty("java.home"), "bin", "java").toString(),
          "-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
          "-jar", jar.toString(),
          // server.port is its HTTPS connector (unused; any free port), http-port the plain one clients use.
          "--server.port=0",
          "--com.adobe.testing.s3mock.http-port=" + port,
          "--com.adobe.testing.s3mock.store.root=" + root.toAbsolutePath(),
          "--com.adobe.testing.s3mock.store.retain-files-on-exit=true",
          "--com.adobe.testing.s3mock.store.initial-buckets=" + String.join(",", buckets),
          "--spring.main.banner-mode=off"));
      Process process = new ProcessBuilder(command).redirectErrorStream(true)
          .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
      S3MockServer server = new S3MockServer(process, port, root, log);
      server.awaitReady();
      LOG.info("S3Mock {} on {} (buckets {}, root {}, log {})", version(), server.endpoint(), List.of(buckets),
          root, log);
      return server;
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot start S3Mock from " + jar, e);
    }
  }

  private void awaitReady() {
    Instant deadline = Instant.now().plus(START_TIMEOUT);
    while (Instant.now().isBefore(deadline)) {
      if (!process.isAlive()) {
        throw new IllegalStateException("S3Mock exited with " + process.exitValue() + " at start; see " + log);
      }
      try {
        HttpURLConnection connection = (HttpURLConnection) URI.create(endpoint() + "/").toURL().openConnection();
        connection.setConnectTimeout(1000);
        connection.setReadTimeout(5000);
        if (connection.getResponseCode() == 200) {
          return;
        }
      } catch (IOException notYet) {
        // Still starting.
      }
      try {
        Thread.sleep(200);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        close();
        throw new IllegalStateException("Interrupted while S3Mock started", e);
      }
    }
    close();
    throw new IllegalStateException("S3Mock did not answer on " + endpoint() + " within " + START_TIMEOUT
        + "; see " + log);
  }

  /** {@code http://127.0.0.1:PORT}. */
  public String endpoint() {
    return "http://127.0.0.1:" + port;
  }

  public int port() {
    return port;
  }

  /** Where S3Mock keeps the objects (its own layout, not one file per key). */
  public Path root() {
    return root;
  }

  public Path log() {
    return log;
  }

  /**
   * The S3A keys a Hadoop client needs for this server: endpoint, path-style access, no TLS, static credentials,
   * and fewer retries than S3A's defaults so a failing test fails in seconds rather than minutes.
   */
  public Map<String, String> s3aProperties() {
    Map<String, String> keys = new LinkedHashMap<>();
    keys.put("fs.s3a.endpoint", endpoint());
    keys.put("fs.s3a.endpoint.region", "us-east-1");
    keys.put("fs.s3a.path.style.access", "true");
    keys.put("fs.s3a.connection.ssl.enabled", "false");
    keys.put("fs.s3a.aws.credentials.provider", "org.apache.hadoop.fs.s3a.SimpleAWSCredentialsProvider");
    keys.put("fs.s3a.access.key", ACCESS_KEY);
    keys.put("fs.s3a.secret.key", SECRET_KEY);
    keys.put("fs.s3a.attempts.maximum", "3");
    keys.put("fs.s3a.retry.limit", "3");
    return keys;
  }

  /** {@link #s3aProperties()} as {@code -Dspark.hadoop.KEY=VALUE}-less Hadoop XML, for a {@code core-site.xml}. */
  public String coreSiteXml() {
    StringBuilder xml = new StringBuilder("<?xml version=\"1.0\"?>\n<configuration>\n");
    s3aProperties().forEach((key, value) -> xml.append("  <property><name>").append(key).append("</name><value>")
        .append(value).append("</value></property>\n"));
    return xml.append("</configuration>\n").toString();
  }

  @Override
  public void close() {
    process.destroy();
    try {
      if (!process.waitFor(20, TimeUnit.SECONDS)) {
        process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
    }
  }

  static Path applicationJar() {
    Path jar = Path.of(buildProperties().getProperty("s3mock.jar"));
    if (!Files.isRegularFile(jar)) {
      throw new IllegalStateException("The S3Mock application jar " + jar + " is missing; build the s3mock-server"
          + " module (mvn -pl s3mock-server package)");
    }
    return jar;
  }

  static String version() {
    return buildProperties().getProperty("s3mock.version");
  }

  private static Properties buildProperties() {
    Properties properties = new Properties();
    try (InputStream in = S3MockServer.class.getResourceAsStream("s3mock.properties")) {
      if (in == null) {
        throw new IllegalStateException("s3mock.properties is not on the class path");
      }
      properties.load(in);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return properties;
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      socket.setReuseAddress(true);
      return socket.getLocalPort();
    }
  }

  /** Serves until killed: {@code S3MockServer ROOT BUCKET...}; prints the endpoint on the first line. */
  public static void main(String[] args) throws InterruptedException {
    if (args.length < 2) {
      System.err.println("usage: S3MockServer ROOT BUCKET...");
      System.exit(2);
    }
    S3MockServer server = start(Path.of(args[0]), java.util.Arrays.copyOfRange(args, 1, args.length));
    Runtime.getRuntime().addShutdownHook(new Thread(server::close, "s3mock-stop"));
    System.out.println(server.endpoint());
    System.out.flush();
    server.process.waitFor();
  }
}
