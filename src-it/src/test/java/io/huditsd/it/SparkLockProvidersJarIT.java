package io.huditsd.it;

import io.huditsd.api.demo.SampleRow;
import io.huditsd.it.support.RowDiff;
import io.huditsd.it.support.SparkPeer;
import io.huditsd.it.support.SparkTable;
import io.huditsd.it.support.Tsd;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 13: the {@code hudi-tsd-lock-providers} jar is what writers put beside Hudi's for the storage lock of a
 * {@code file}/{@code hdfs} table. It must hold our classes alone (no Dropwizard, Jetty, Hudi, Hadoop or Curator
 * classes that would sit beside the writer's own) and be enough on its own: the Spark peer runs with the official
 * bundle and this jar as the only addition (failsafe's {@code spark.peer.extra.classes}), and a write with
 * {@code hoodie.write.lock.provider=io.huditsd.lock.HadoopStorageLockProvider} must commit under that lock.
 */
class SparkLockProvidersJarIT {
  /** The packages a writer's class path already has, or must not get from us. */
  private static final List<String> FOREIGN = List.of("io/dropwizard/", "org/eclipse/jetty/", "org/apache/hadoop/",
      "org/apache/curator/", "org/apache/zookeeper/", "com/fasterxml/", "ch/qos/logback/", "org/slf4j/");
  /** Our one class in Hudi's package (it reaches package-private constructors of Hudi's storage lock provider). */
  private static final String BRIDGE = "org/apache/hudi/client/transaction/lock/StorageBasedLockProviderBridge.class";

  @Test
  void theLockProvidersJarHoldsOnlyOurClasses() throws IOException {
    Path jar = lockProvidersJar();
    List<String> classes;
    try (JarFile file = new JarFile(jar.toFile())) {
      classes = file.stream().map(JarEntry::getName).filter(name -> name.endsWith(".class")).toList();
    }
    assertThat(classes).as("classes in %s", jar)
        .contains("io/huditsd/lock/HadoopStorageLockProvider.class",
            "io/huditsd/lock/IngestionFirstConflictResolutionStrategy.class", BRIDGE)
        .noneMatch(name -> FOREIGN.stream().anyMatch(name::startsWith))
        .noneMatch(name -> name.startsWith("org/apache/hudi/") && !isBridge(name))
        .allMatch(name -> name.startsWith("io/huditsd/") || isBridge(name));
  }

  /** The bridge or one of its nested classes. */
  private static boolean isBridge(String name) {
    return name.equals(BRIDGE) || name.startsWith(BRIDGE.substring(0, BRIDGE.length() - ".class".length()) + "$");
  }

  @Test
  void aSparkWriterWithOnlyTheJarAddedCommitsUnderTheStorageLock() throws Exception {
    assertThat(Path.of(System.getProperty("spark.peer.extra.classes", "")).toAbsolutePath().normalize()).as("what the Spark peer adds")
        .isEqualTo(lockProvidersJar());
    Path work = Tsd.workDirectory("SparkLockProvidersJarIT");
    SparkPeer spark = SparkPeer.shared();
    Map<String, String> writerOptions = new LinkedHashMap<>();
    writerOptions.put("hoodie.write.concurrency.mode", "OPTIMISTIC_CONCURRENCY_CONTROL");
    writerOptions.put("hoodie.cleaner.policy.failed.writes", "LAZY");
    writerOptions.put("hoodie.write.lock.provider", "io.huditsd.lock.HadoopStorageLockProvider");
    writerOptions.put("hoodie.write.lock.conflict.resolution.strategy",
        "io.huditsd.lock.IngestionFirstConflictResolutionStrategy");
    // One small write: the table's metadata table off keeps it to one commit.
    writerOptions.put("hoodie.metadata.enable", "false");
    SparkTable table = SparkTable.create(spark, work.resolve("orders"), "COPY_ON_WRITE", writerOptions);
    table.insert(List.of(new SampleRow("k1", "2026-01-01", 1L, "a", 10L, false),
        new SampleRow("k2", "2026-01-02", 1L, "b", 20L, false)));

    RowDiff.assertSameRows("Spark snapshot after a write under HadoopStorageLockProvider", table.expected(),
        table.snapshot());
    Path hoodie = Path.of(table.basePath()).resolve(".hoodie");
    try (Stream<Path> timeline = Files.walk(hoodie, 2)) {
      assertThat(timeline.map(file -> file.getFileName().toString()))
          .as("completed commits in %s", hoodie).anyMatch(name -> name.endsWith(".commit"));
    }
    // The lock's generations: proof that the writer took our lock, not some default.
    try (Stream<Path> locks = Files.list(hoodie.resolve(".locks"))) {
      assertThat(locks.map(file -> file.getFileName().toString()))
          .as("lock files in %s", hoodie.resolve(".locks")).anyMatch(name -> name.startsWith("table_lock.json."));
    }
  }

  private static Path lockProvidersJar() {
    String value = System.getProperty("lock.providers.jar");
    assertThat(value).as("system property lock.providers.jar (set by the failsafe configuration)").isNotNull();
    Path jar = Path.of(value).toAbsolutePath().normalize();
    assertThat(jar).as("the lock-providers jar; build it first (mvn -pl lock-providers -am package)").exists();
    return jar;
  }
}
