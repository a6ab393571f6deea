package io.huditsd.executors.spark;

import io.huditsd.config.SparkConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

/** The spark section checked against the files it names, as the daemon does at start. */
class TestSparkSettings {
  @TempDir
  Path directory;

  private Path sparkHome(boolean executable) throws IOException {
    Path submit = Files.createDirectories(directory.resolve("spark/bin")).resolve("spark-submit");
    Files.writeString(submit, "#!/bin/sh\n");
    Files.setPosixFilePermissions(submit, PosixFilePermissions.fromString(executable ? "rwxr-xr-x" : "rw-r--r--"));
    return directory.resolve("spark");
  }

  private static SparkConfig config(Path sparkHome, String applicationJar, List<String> jars, String logDir) {
    return SparkConfig.create(sparkHome.toString(), null, "local[1]", null, applicationJar, jars, Map.of(), null,
        null, logDir, null);
  }

  @Test
  void theJarsDefaultToTheOnesBesideTheDaemonsJar() throws IOException {
    Path home = sparkHome(true);
    Path beside = Files.createDirectories(directory.resolve("tsd"));
    Files.writeString(beside.resolve(SparkSettings.RUNNER_JAR), "");
    Files.writeString(beside.resolve(SparkSettings.LOCK_PROVIDERS_JAR), "");

    SparkSettings.Resolution resolution = SparkSettings.resolve(config(home, null, null, null), Optional.of(beside),
        directory);

    assertThat(resolution).isInstanceOfSatisfying(SparkSettings.Resolved.class, resolved -> {
      assertThat(resolved.settings().sparkHome()).isEqualTo(home);
      assertThat(resolved.settings().applicationJar()).isEqualTo(beside.resolve(SparkSettings.RUNNER_JAR));
      assertThat(resolved.settings().jars()).containsExactly(beside.resolve(SparkSettings.LOCK_PROVIDERS_JAR));
      assertThat(resolved.settings().logDir()).isEqualTo(directory.resolve(SparkConfig.LOG_DIR_DEFAULT));
      assertThat(resolved.settings().timeout()).isEqualTo(java.time.Duration.ofHours(2));
      assertThat(resolved.settings().clientMode()).isTrue();
    });
  }

  @Test
  void everyMissingFileIsAnErrorNamingItsKey() throws IOException {
    Path notADirectory = Files.writeString(directory.resolve("logs"), "");

    SparkSettings.Resolution resolution = SparkSettings.resolve(config(directory.resolve("nowhere"),
        directory.resolve("runner.jar").toString(), List.of(directory.resolve("locks.jar").toString()),
        notADirectory.toString()), Optional.empty(), directory);

    assertThat(resolution).isEqualTo(new SparkSettings.Invalid(List.of(
        "spark.sparkHome: " + directory.resolve("nowhere/bin/spark-submit") + " does not exist; Spark's launcher "
            + "runs <sparkHome>/bin/spark-submit",
        "spark.applicationJar: " + directory.resolve("runner.jar") + " not found",
        "spark.jars[0]: " + directory.resolve("locks.jar") + " not found",
        "spark.logDir: " + notADirectory + " is not a directory")));
  }

  @Test
  void aScriptThatCannotRunAndDefaultsThatCannotBeFoundAreErrors() throws IOException {
    SparkSettings.Resolution resolution = SparkSettings.resolve(config(sparkHome(false), null, null, null),
        Optional.empty(), directory);

    assertThat(resolution).isEqualTo(new SparkSettings.Invalid(List.of(
        "spark.sparkHome: " + directory.resolve("spark/bin/spark-submit") + " is not executable",
        "spark.applicationJar: not set, and the daemon does not run from hudi-tsd.jar to find "
            + SparkSettings.RUNNER_JAR + " beside it",
        "spark.jars: not set, and the daemon does not run from hudi-tsd.jar to find "
            + SparkSettings.LOCK_PROVIDERS_JAR + " beside it")));
  }
}
