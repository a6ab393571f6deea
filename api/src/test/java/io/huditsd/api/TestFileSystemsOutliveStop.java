package io.huditsd.api;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * In a JVM of its own that exits: Hadoop's shutdown hook closes (and un-caches) every file system unless the daemon's
 * stop has finished. A JVM shutdown hook stands for Jetty's, which stops the daemon while Hadoop's hook runs.
 */
class TestFileSystemsOutliveStop {

  @Test
  void fileSystemsStayCachedUntilTheDaemonHasStopped() throws Exception {
    assertThat(runChild(true)).contains("cached while stopping: true");
  }

  /** The check above fails without the hook: Hadoop has closed the file systems before the daemon stopped. */
  @Test
  void withoutTheHookHadoopClosesThemFirst() throws Exception {
    assertThat(runChild(false)).contains("cached while stopping: false");
  }

  private static String runChild(boolean install) throws IOException, InterruptedException {
    Path java = Path.of(System.getProperty("java.home"), "bin", "java");
    Process process = new ProcessBuilder(List.of(java.toString(), "-cp", System.getProperty("java.class.path"),
        Child.class.getName(), Boolean.toString(install))).redirectErrorStream(true).start();
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(process.waitFor(60, TimeUnit.SECONDS)).as(output).isTrue();
    return output;
  }

  /** Opens the local file system, then exits; a JVM hook "stops the daemon" and reports what Hadoop did meanwhile. */
  public static final class Child {
    public static void main(String[] args) throws Exception {
      Configuration configuration = new Configuration();
      FileSystem opened = FileSystem.getLocal(configuration);
      FileSystemsOutliveStop outlive = new FileSystemsOutliveStop(Duration.ofSeconds(20));
      if (Boolean.parseBoolean(args[0])) {
        outlive.install();
      }
      Runtime.getRuntime().addShutdownHook(new Thread(() -> {
        try {
          // Long enough for Hadoop's hook thread to have closed the file systems if nothing holds it back.
          Thread.sleep(1500);
          System.out.println("cached while stopping: " + (FileSystem.getLocal(configuration) == opened));
          System.out.flush();
        } catch (Exception e) {
          System.out.println("failed: " + e);
        } finally {
          outlive.stopped();
        }
      }, "daemon-stop"));
      System.exit(0);
    }
  }
}
