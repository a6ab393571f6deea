package io.huditsd.api;

import io.huditsd.config.SparkConfig;
import io.huditsd.executors.spark.SparkSettings;

import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.CodeSource;
import java.util.List;
import java.util.Optional;

/**
 * The {@code spark} section checked against this installation when the daemon (or {@code once}) starts: the default
 * runner and lock-providers jars are the ones beside {@code hudi-tsd.jar}.
 */
final class SparkSetup {
  private SparkSetup() {
  }

  /** Errors naming the key, for the start-up checks; none without a {@code spark} section. */
  static List<String> check(Optional<SparkConfig> config) {
    return config.map(spark -> SparkSettings.resolve(spark, daemonJarDirectory(), workingDirectory()))
        .map(resolution -> resolution instanceof SparkSettings.Invalid invalid ? invalid.errors() : List.<String>of())
        .orElse(List.of());
  }

  /** The resolved settings; empty without a {@code spark} section. */
  static Optional<SparkSettings> settings(Optional<SparkConfig> config) {
    return config.map(spark -> {
      SparkSettings.Resolution resolution = SparkSettings.resolve(spark, daemonJarDirectory(), workingDirectory());
      if (resolution instanceof SparkSettings.Invalid invalid) {
        throw new IllegalStateException(String.join("\n", invalid.errors()));
      }
      return ((SparkSettings.Resolved) resolution).settings();
    });
  }

  /** Where {@code hudi-tsd.jar} is, when the daemon runs from it. */
  static Optional<Path> daemonJarDirectory() {
    CodeSource source = TsdApplication.class.getProtectionDomain().getCodeSource();
    if (source == null || source.getLocation() == null) {
      return Optional.empty();
    }
    try {
      Path location = Path.of(source.getLocation().toURI());
      return Files.isRegularFile(location) ? Optional.ofNullable(location.toAbsolutePath().getParent())
          : Optional.empty();
    } catch (URISyntaxException | IllegalArgumentException e) {
      return Optional.empty();
    }
  }

  private static Path workingDirectory() {
    return Path.of("").toAbsolutePath();
  }
}
