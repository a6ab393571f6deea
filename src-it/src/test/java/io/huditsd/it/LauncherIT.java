package io.huditsd.it;

import io.huditsd.it.support.TrackedTable;
import io.huditsd.it.support.Tsd;
import org.apache.hudi.common.model.HoodieTableType;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code bin/tsd once} itself, twice in a row (the first run writes the class-data archive, the second maps it), with
 * what users put on its class path: a {@code HADOOP_CONF_DIR}, {@code TSD_EXTRA_CLASSPATH} jars and directories,
 * jars in {@code lib/ext}. Java 17 cannot archive a class path with a non-empty directory: the JVM that was to
 * write the archive then exited 1 after a pass that succeeded, and so did every later one. A start-up optimisation
 * must never change an exit code.
 *
 * <p>The launcher runs from a copy of the installation in the work directory (its {@code bin/tsd} and links to the
 * packaged jar and {@code lib/}): from the checkout it would rebuild the project, since these tests are newer than
 * the jar.
 */
class LauncherIT {
  private static final int ONCE_TIMEOUT_SECONDS = 120;

  private static Path work;
  private static Path table;

  @BeforeAll
  static void createTable() throws Exception {
    work = Tsd.workDirectory("LauncherIT");
    table = work.resolve("table");
    // A table without commits: what is measured is the launcher, and a write would cost this test most of its time.
    TrackedTable.create(table, HoodieTableType.COPY_ON_WRITE, 6, Map.of()).close();
  }

  @Test
  void hadoopConfDirTurnsClassDataSharingOffAndNotTheExitCode() throws Exception {
    Path home = installation("hadoop-conf");
    Path conf = Files.createDirectories(home.resolve("conf"));
    Files.writeString(conf.resolve("core-site.xml"), """
        <configuration>
          <property><name>fs.file.impl.disable.cache</name><value>false</value></property>
        </configuration>
        """);

    // One run: with no archive written, every later run starts as this one did.
    Result once = once(home, Map.of("HADOOP_CONF_DIR", conf.toString()), "run1");
    assertServiced(once);
    assertThat(once.stderr()).as(once.output()).contains("bin/tsd: INFO: class-data sharing is off for this run: "
        + conf + " is a non-empty directory on the class path (HADOOP_CONF_DIR, TSD_EXTRA_CLASSPATH), which "
        + "Java 17 cannot archive; the run is about a second slower to start, nothing else. Only jars there "
        + "allow it; TSD_CDS=off silences this line.");
    assertThat(archives(home)).as("class-data archives").isEmpty();
  }

  /**
   * A directory after the daemon's jars fails the archive only once a class is loaded from it, but nothing tells
   * the launcher beforehand whether one will be.
   */
  @Test
  void extraClassDirectoryTurnsClassDataSharingOff() throws Exception {
    Path home = installation("extra-directory");
    Path classes = Files.createDirectories(home.resolve("extra-classes"));
    Files.writeString(classes.resolve("extra.properties"), "extra=1\n");
    Path jar = jar(home.resolve("extra.jar"));

    // One run: the check is the same on every run, and the archive that is not written is what matters.
    Result once = once(home, Map.of("TSD_EXTRA_CLASSPATH", jar + ":" + classes), "run1");
    assertServiced(once);
    assertThat(once.stderr()).as(once.output())
        .contains("bin/tsd: INFO: class-data sharing is off for this run: " + classes + " is a non-empty directory");
    assertThat(archives(home)).as("class-data archives").isEmpty();
  }

  /** Jars alone: the first run writes the archive, the second maps it; either exits as the pass did. */
  @Test
  void jarsOnlyKeepClassDataSharing() throws Exception {
    Path home = installation("jars");
    jar(home.resolve("lib/ext/connector.jar"));
    Path extra = jar(home.resolve("extra.jar"));
    Map<String, String> environment = Map.of("TSD_EXTRA_CLASSPATH", extra.toString());

    Result first = once(home, environment, "run1");
    assertServiced(first);
    assertThat(archives(home)).as("class-data archives after the first run").hasSize(1);
    // -Xshare:on: a JVM that cannot map the archive fails instead of running without it.
    Result second = once(home, Map.of("TSD_EXTRA_CLASSPATH", extra.toString(), "TSD_JAVA_OPTS", "-Xmx1g -Xshare:on"),
        "run2");
    assertServiced(second);
    assertThat(second.stderr()).as(second.output()).doesNotContain("class-data sharing is off");
    assertThat(archives(home)).as("class-data archives after the second run").hasSize(1);
  }

  /**
   * Whatever else makes the JVM fail to write the archive as it exits (here a directory appended to the boot class
   * path), the JVM's status 1 then says nothing of the pass: the launcher exits with the pass's own status.
   */
  @Test
  void aFailedArchiveNeverChangesTheExitCode() throws Exception {
    Path home = installation("failed-archive");
    Path classes = Files.createDirectories(home.resolve("boot-classes"));
    Files.writeString(classes.resolve("boot.properties"), "boot=1\n");

    Result once = once(home, Map.of("TSD_JAVA_OPTS", "-Xmx1g -Xbootclasspath/a:" + classes), "run1");

    assertServiced(once);
    assertThat(once.stdout() + once.stderr()).as("the JVM failed to write the archive")
        .contains("Cannot have non-empty directory in paths");
    assertThat(archives(home)).as("class-data archives").isEmpty();
  }

  private static void assertServiced(Result once) {
    assertThat(once.exitCode()).as("exit code of bin/tsd once\n%s", once.output()).isZero();
    assertThat(once.stdout()).as(once.output()).contains("Nothing to do on 1 table(s)");
  }

  /** {@code DIR/bin/tsd} with the packaged jar and its {@code lib/} linked in, as an unpacked release has them. */
  private static Path installation(String name) throws IOException {
    Path home = work.resolve(name);
    TrackedTable.deleteRecursively(home);
    Path checkout = Path.of(System.getProperty("tsd.home")).toAbsolutePath().normalize();
    Path target = Files.createDirectories(home.resolve("api/target"));
    Files.createDirectories(home.resolve("bin"));
    Files.copy(checkout.resolve("bin/tsd"), home.resolve("bin/tsd"));
    Files.createSymbolicLink(target.resolve("hudi-tsd.jar"), checkout.resolve("api/target/hudi-tsd.jar"));
    Files.createSymbolicLink(target.resolve("lib"), checkout.resolve("api/target/lib"));
    return home;
  }

  /** A jar holding one resource: what a connector jar adds to the class path, for the JVM's archive. */
  private static Path jar(Path path) throws IOException {
    Files.createDirectories(path.getParent());
    Manifest manifest = new Manifest();
    manifest.getMainAttributes().putValue("Manifest-Version", "1.0");
    try (OutputStream file = Files.newOutputStream(path); JarOutputStream jar = new JarOutputStream(file, manifest)) {
      jar.putNextEntry(new java.util.zip.ZipEntry(path.getFileName() + ".properties"));
      jar.write("extra=1\n".getBytes(java.nio.charset.StandardCharsets.UTF_8));
      jar.closeEntry();
    }
    return path;
  }

  private static List<Path> archives(Path home) throws IOException {
    try (Stream<Path> files = Files.list(home.resolve("api/target"))) {
      return files.filter(file -> file.getFileName().toString().endsWith(".jsa")).toList();
    }
  }

  private record Result(int exitCode, String stdout, String stderr) {
    String output() {
      return "--- stdout ---\n" + stdout + "\n--- stderr ---\n" + stderr;
    }
  }

  private static Result once(Path home, Map<String, String> environment, String name) throws Exception {
    List<String> command = new ArrayList<>(List.of(home.resolve("bin/tsd").toString(), "once", "--table",
        table.toString()));
    ProcessBuilder builder = new ProcessBuilder(command)
        .redirectOutput(home.resolve(name + ".out").toFile())
        .redirectError(home.resolve(name + ".err").toFile());
    builder.environment().keySet().removeAll(List.of("HADOOP_CONF_DIR", "TSD_EXTRA_CLASSPATH", "TSD_CDS",
        "TSD_CDS_DIR", "TSD_JAVA_OPTS"));
    builder.environment().put("TSD_JAVA_OPTS", "-Xmx1g");
    builder.environment().putAll(environment);
    Process process = builder.start();
    if (!process.waitFor(ONCE_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
      process.destroyForcibly();
      process.waitFor(30, TimeUnit.SECONDS);
    }
    return new Result(process.isAlive() ? -1 : process.exitValue(), Files.readString(home.resolve(name + ".out")),
        Files.readString(home.resolve(name + ".err")));
  }
}
