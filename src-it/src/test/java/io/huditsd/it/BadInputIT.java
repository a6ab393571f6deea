package io.huditsd.it;

import io.huditsd.it.support.TrackedTable;
import io.huditsd.it.support.Tsd;
import org.apache.hudi.common.model.HoodieTableType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.stream.Stream;

import static io.huditsd.it.support.TrackedTable.rows;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Bad input makes the packaged daemon exit non-zero within seconds, with a message on stderr that names what is
 * wrong and where: the table path, the configuration file, the key.
 */
class BadInputIT {
  private static final Duration TIMEOUT = Duration.ofSeconds(90);
  /** JVM start plus Hudi's class loading; a hang or a retry loop takes far longer. */
  private static final Duration PROMPT = Duration.ofSeconds(30);

  @Test
  void onceOnAMissingPathNamesThePath() throws Exception {
    Path work = Tsd.workDirectory("BadInputIT/missing");
    Path missing = work.resolve("no-such-table");
    TrackedTable.deleteRecursively(missing);

    Tsd.Finished once = Tsd.run(work.resolve("once"), TIMEOUT, "once", "--table", missing.toString());

    assertFailedPromptly(once);
    assertThat(once.stderr()).as("stderr\n%s", once.output())
        .contains("hudi-tsd once: file:" + missing + ": path does not exist");
  }

  @Test
  void onceOnADirectoryThatIsNoHudiTableSaysSo() throws Exception {
    Path work = Tsd.workDirectory("BadInputIT/not-a-table");
    Path directory = work.resolve("plain-directory");
    Files.createDirectories(directory.resolve("2026-11-01"));

    Tsd.Finished once = Tsd.run(work.resolve("once"), TIMEOUT, "once", "--table", directory.toString());

    assertFailedPromptly(once);
    assertThat(once.stderr()).as("stderr\n%s", once.output())
        .contains("hudi-tsd once: file:" + directory + ": not a Hudi table (no .hoodie/hoodie.properties)");
  }

  @ParameterizedTest(name = "hoodie.table.version={0}")
  @ValueSource(ints = {5, 7})
  void onceOnAnUnsupportedTableVersionNamesTheVersion(int version) throws Exception {
    Path work = Tsd.workDirectory("BadInputIT/version-" + version);
    Path basePath = work.resolve("table");
    try (TrackedTable table = TrackedTable.create(basePath, HoodieTableType.COPY_ON_WRITE, 6, Map.of())) {
      table.insert(rows(0, 30, 1_000, "v1"));
    }
    Path properties = basePath.resolve(".hoodie/hoodie.properties");
    String text = Files.readString(properties);
    assertThat(text).contains("hoodie.table.version=6");
    Files.writeString(properties, text.replace("hoodie.table.version=6", "hoodie.table.version=" + version));
    // Hadoop's local file system checks the file against its .crc sidecar; without one it reads the file as is.
    Files.deleteIfExists(properties.resolveSibling(".hoodie.properties.crc"));

    Tsd.Finished once = Tsd.run(work.resolve("once"), TIMEOUT, "once", "--table", basePath.toString());

    assertFailedPromptly(once);
    assertThat(once.stderr()).as("stderr\n%s", once.output())
        .contains("hudi-tsd once: file:" + basePath + ": unsupported table version " + version
            + " (hudi-tsd services table versions 6, 8 and 9 and never upgrades a table)");
    assertThat(Files.readString(properties)).as("hoodie.properties after the daemon refused the table")
        .contains("hoodie.table.version=" + version);
  }

  @Test
  void onceOnACorruptCompletedDeltaCommitNamesTheFileAndSchedulesNothing() throws Exception {
    Path work = Tsd.workDirectory("BadInputIT/corrupt-deltacommit");
    Path basePath = work.resolve("table");
    String updated;
    try (TrackedTable table = TrackedTable.create(basePath, HoodieTableType.MERGE_ON_READ, 9,
        TrackedTable.MOR_WRITER_KEYS)) {
      table.insert(rows(0, 30, 1_000, "v1"));
      updated = table.upsert(rows(0, 10, 2_000, "v2"));
    }
    Path timeline = basePath.resolve(".hoodie/timeline");
    Path deltaCommit;
    try (Stream<Path> files = Files.list(timeline)) {
      deltaCommit = files.filter(file -> file.getFileName().toString().startsWith(updated + "_")
          && file.getFileName().toString().endsWith(".deltacommit")).findFirst().orElseThrow();
    }
    // Truncated, as a full disk or a killed copy leaves it; Hadoop's .crc sidecar would otherwise flag it first.
    Files.write(deltaCommit, new byte[0]);
    Files.deleteIfExists(deltaCommit.resolveSibling("." + deltaCommit.getFileName() + ".crc"));

    // A cross-process lock, named: once is a second process on the table (the writer above has closed).
    Tsd.Finished once = Tsd.run(work.resolve("once"), TIMEOUT, "once", "--table", basePath.toString(),
        "--hoodie-conf", "hoodie.compact.inline.max.delta.commits=1",
        "--hoodie-conf",
        "hoodie.write.lock.provider=org.apache.hudi.client.transaction.lock.FileSystemBasedLockProvider");

    assertFailedPromptly(once);
    assertThat(once.stderr()).as("stderr\n%s", once.output())
        .contains("hudi-tsd once: file:" + basePath + ": corrupt instant file file:" + deltaCommit
            + ": completed deltacommit is empty (0 bytes)");
    try (Stream<Path> files = Files.list(timeline)) {
      assertThat(files.map(file -> file.getFileName().toString()))
          .as("no compaction was planned over the corrupt timeline")
          .noneMatch(name -> name.contains(".compaction."));
    }
  }

  @Test
  void onceRejectsAMisspeltHoodieKeyAndSuggestsTheRightOne() throws Exception {
    Path work = Tsd.workDirectory("BadInputIT/once-typo");

    Tsd.Finished once = Tsd.run(work.resolve("once"), TIMEOUT, "once", "--table", work.toString(),
        "--hoodie-conf", "hoodie.compact.inline.max.delta.comits=3");

    assertFailedPromptly(once);
    assertThat(once.stderr()).as("stderr\n%s", once.output())
        .contains("--hoodie-conf: key 'hoodie.compact.inline.max.delta.comits' is not a Hudi configuration key"
            + " (did you mean hoodie.compact.inline.max.delta.commits?)");
  }

  @Test
  void onceRejectsTurningMetadataWritesOff() throws Exception {
    Path work = Tsd.workDirectory("BadInputIT/once-metadata");

    Tsd.Finished once = Tsd.run(work.resolve("once"), TIMEOUT, "once", "--table", work.toString(),
        "--hoodie-conf", "hoodie.metadata.enable=false");

    assertFailedPromptly(once);
    assertThat(once.stderr()).as("stderr\n%s", once.output())
        .contains("--hoodie-conf: key 'hoodie.metadata.enable' may not be set: metadata writes follow the table's"
            + " own metadata table (hoodie.table.metadata.partitions)");
  }

  @Test
  void serverRejectsATypoInADaemonKeyNamingFileAndKey() throws Exception {
    Path work = Tsd.workDirectory("BadInputIT/server-daemon-typo");
    Path config = writeConfig(work, """
        polling:
          intervall: 5s
        """, Map.of());

    Tsd.Finished server = Tsd.run(work.resolve("server"), TIMEOUT, "server", config.toString());

    assertFailedPromptly(server);
    assertThat(server.stderr()).as("stderr\n%s", server.output())
        .contains(config + " has an error")
        .contains("Unrecognized field at: polling.intervall")
        .containsPattern("Did you mean\\?:\\s+- interval\\s");
  }

  @Test
  void serverRejectsASparkSectionWhoseFilesAreMissingNamingEachKey() throws Exception {
    Path work = Tsd.workDirectory("BadInputIT/server-spark");
    Path config = writeConfig(work, """
        spark:
          sparkHome: %s
          master: local[1]
          applicationJar: %s
          jars: []
        """.formatted(work.resolve("no-spark"), work.resolve("no-runner.jar")), Map.of("tsd.engine", "spark"));

    Tsd.Finished server = Tsd.run(work.resolve("server"), TIMEOUT, "server", config.toString());

    assertFailedPromptly(server);
    assertThat(server.stderr()).as("stderr\n%s", server.output())
        .contains(config + " has the following errors")
        .contains("spark.sparkHome: " + work.resolve("no-spark/bin/spark-submit") + " does not exist")
        .contains("spark.applicationJar: " + work.resolve("no-runner.jar") + " not found");
  }

  @Test
  void onceOnSparkWithoutASparkSectionSaysWhatIsMissing() throws Exception {
    Path work = Tsd.workDirectory("BadInputIT/once-spark");

    Tsd.Finished once = Tsd.run(work.resolve("once"), TIMEOUT, "once", "--table", work.toString(),
        "--engine", "spark");

    assertFailedPromptly(once);
    assertThat(once.stderr()).as("stderr\n%s", once.output())
        .contains("hudi-tsd once: --engine spark: plans can only be submitted to Spark with --spark-config FILE");
  }

  @Test
  void serverRejectsAMisspeltHoodieKeyAndSuggestsTheRightOne() throws Exception {
    Path work = Tsd.workDirectory("BadInputIT/server-hoodie-typo");
    Path config = writeConfig(work, "", Map.of("hoodie.compact.inline.max.delta.comits", "3"));

    Tsd.Finished server = Tsd.run(work.resolve("server"), TIMEOUT, "server", config.toString());

    assertFailedPromptly(server);
    assertThat(server.stderr()).as("stderr\n%s", server.output())
        .contains(config.toString())
        .contains("tables[0].hoodie: key 'hoodie.compact.inline.max.delta.comits' is not a Hudi configuration key"
            + " (did you mean hoodie.compact.inline.max.delta.commits?)");
  }

  @Test
  void serverRejectsAValueOfTheWrongTypeNamingTableKeyAndValueWithoutAStackTrace() throws Exception {
    Path work = Tsd.workDirectory("BadInputIT/server-hoodie-value");
    Path config = writeConfig(work, "", Map.of("hoodie.compact.inline.max.delta.commits", "many"));

    Tsd.Finished server = Tsd.run(work.resolve("server"), TIMEOUT, "server", config.toString());

    assertFailedPromptly(server);
    assertThat(server.stderr()).as("stderr\n%s", server.output())
        .contains(config + " has an error:\n"
            + "  * tables[0].hoodie: key 'hoodie.compact.inline.max.delta.commits' has value 'many', which is not a"
            + " whole number (Hudi's default is 5)\n")
        .doesNotContain("\tat ")
        .doesNotContain("Exception");
  }

  @Test
  void serverRefusesAnExplicitTableWhosePathDoesNotExist() throws Exception {
    Path work = Tsd.workDirectory("BadInputIT/server-missing");
    TrackedTable.deleteRecursively(work.resolve("table"));
    Path config = writeConfig(work, "", Map.of());

    Tsd.Finished server = Tsd.run(work.resolve("server"), TIMEOUT, "server", config.toString());

    assertFailedPromptly(server);
    assertThat(server.stderr()).as("stderr\n%s", server.output())
        .contains(config + " has an error:\n  * tables[0].path: file:" + work.resolve("table")
            + ": path does not exist; tables lists existing tables only; to pick up tables created later, list a"
            + " directory above them under discovery.roots\n")
        .doesNotContain("\tat ");
  }

  @Test
  void serverRefusesAnExplicitTableThatIsAPlainDirectory() throws Exception {
    Path work = Tsd.workDirectory("BadInputIT/server-plain-directory");
    Files.createDirectories(work.resolve("table").resolve("2026-11-01"));
    Path config = writeConfig(work, "", Map.of());

    Tsd.Finished server = Tsd.run(work.resolve("server"), TIMEOUT, "server", config.toString());

    assertFailedPromptly(server);
    assertThat(server.stderr()).as("stderr\n%s", server.output())
        .contains("  * tables[0].path: file:" + work.resolve("table")
            + ": not a Hudi table (no .hoodie/hoodie.properties); tables lists existing tables only");
  }

  @Test
  void onceNamesTheFlagOfANegativeWorkerCount() throws Exception {
    Path work = Tsd.workDirectory("BadInputIT/once-workers");

    Tsd.Finished once = Tsd.run(work.resolve("once"), TIMEOUT, "once", "--table", work.toString(),
        "--workers", "-1");

    assertFailedPromptly(once);
    assertThat(once.stderr()).as("stderr\n%s", once.output())
        .contains("argument --workers: invalid choice: '-1' (choose from {1..256})")
        .doesNotContain("IllegalArgumentException");
  }

  private static void assertFailedPromptly(Tsd.Finished finished) {
    assertThat(finished.exitCode()).as("exit code\n%s", finished.output()).isNotZero();
    assertThat(finished.elapsed()).as("time to fail\n%s", finished.output()).isLessThan(PROMPT);
  }

  /** A server configuration on free ports with one table entry carrying {@code tableHoodie}. */
  private static Path writeConfig(Path work, String extra, Map<String, String> tableHoodie) throws Exception {
    StringBuilder hoodie = new StringBuilder();
    tableHoodie.forEach((key, value) -> hoodie.append("      ").append(key).append(": \"").append(value)
        .append("\"\n"));
    String yaml = """
        server:
          applicationConnectors:
            - type: http
              port: 0
          adminConnectors:
            - type: http
              port: 0
        tables:
          - path: %s
            hoodie:
        %s%s""".formatted(work.resolve("table"), hoodie.isEmpty() ? "      {}\n" : hoodie, extra);
    Path config = work.resolve("tsd.yml");
    Files.writeString(config, yaml);
    return config;
  }
}
