package io.huditsd.executors.spark;

import io.huditsd.config.SparkConfig;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * The {@code spark} section resolved against this installation: every path checked to exist, the jars defaulted to
 * the ones beside {@code hudi-tsd.jar}. Built once at start ({@link #resolve}); a problem is an error naming the key.
 *
 * @param sparkHome the installation whose {@code bin/spark-submit} submits
 * @param master the master URL
 * @param deployMode {@code client} or {@code cluster}
 * @param applicationJar the runner application
 * @param jars more jars for the application (the lock providers)
 * @param conf {@code --conf} settings
 * @param maxApplications applications at once
 * @param timeout an application still running after this long is killed
 * @param logDir where each submission's driver output is written
 * @param config the section as configured (for the UI address)
 */
public record SparkSettings(Path sparkHome, String master, String deployMode, Path applicationJar, List<Path> jars,
                            Map<String, String> conf, int maxApplications, Duration timeout, Path logDir,
                            SparkConfig config) {
  /** The runner's file name, as spark-runner builds it and the api module copies it beside hudi-tsd.jar. */
  public static final String RUNNER_JAR = "hudi-tsd-spark-runner.jar";
  /** The lock providers' jar as the api module copies it beside hudi-tsd.jar. */
  public static final String LOCK_PROVIDERS_JAR = "hudi-tsd-lock-providers.jar";
  /** The application's main class (module spark-runner). */
  public static final String MAIN_CLASS = "io.huditsd.sparkrunner.PlanRunnerApp";

  public SparkSettings {
    Objects.requireNonNull(sparkHome, "sparkHome is null");
    Objects.requireNonNull(master, "master is null");
    Objects.requireNonNull(deployMode, "deployMode is null");
    Objects.requireNonNull(applicationJar, "applicationJar is null");
    jars = List.copyOf(jars);
    conf = Map.copyOf(conf);
    Objects.requireNonNull(timeout, "timeout is null");
    Objects.requireNonNull(logDir, "logDir is null");
    Objects.requireNonNull(config, "config is null");
  }

  /** Whether the driver runs in the process the daemon starts (then its output is the driver's log). */
  public boolean clientMode() {
    return deployMode.equals("client");
  }

  /** The UI address of application {@code appId}, if {@code spark.uiUrl} is set. */
  public Optional<String> uiUrlOf(String appId) {
    return config.uiUrlOf(appId);
  }

  /** Settings, or the errors that keep the daemon from starting. */
  public sealed interface Resolution {
  }

  public record Resolved(SparkSettings settings) implements Resolution {
  }

  public record Invalid(List<String> errors) implements Resolution {
    public Invalid {
      errors = List.copyOf(errors);
    }
  }

  /**
   * Resolves {@code config}.
   *
   * @param besideDaemonJar the directory of {@code hudi-tsd.jar}, where the default jars are; empty when the daemon
   *     does not run from its jar (tests): then the jars must be configured
   * @param workingDirectory what a relative {@code logDir} is relative to
   */
  public static Resolution resolve(SparkConfig config, Optional<Path> besideDaemonJar, Path workingDirectory) {
    List<String> errors = new ArrayList<>();
    Path home = Path.of(config.resolvedSparkHome()).toAbsolutePath().normalize();
    Path submit = home.resolve("bin").resolve("spark-submit");
    if (!Files.isRegularFile(submit)) {
      errors.add(config.sparkHomeKey() + ": " + submit + " does not exist; Spark's launcher runs "
          + "<sparkHome>/bin/spark-submit");
    } else if (!Files.isExecutable(submit)) {
      errors.add(config.sparkHomeKey() + ": " + submit + " is not executable");
    }
    Optional<Path> applicationJar = jar("spark.applicationJar", config.applicationJar(), besideDaemonJar,
        RUNNER_JAR, errors);
    List<Path> jars = new ArrayList<>();
    if (config.jars().isPresent()) {
      List<String> configured = config.jars().get();
      for (int i = 0; i < configured.size(); i++) {
        jar("spark.jars[" + i + "]", Optional.of(configured.get(i)), besideDaemonJar, LOCK_PROVIDERS_JAR, errors)
            .ifPresent(jars::add);
      }
    } else {
      jar("spark.jars", Optional.empty(), besideDaemonJar, LOCK_PROVIDERS_JAR, errors).ifPresent(jars::add);
    }
    Path logDir = workingDirectory.resolve(config.logDir().orElse(SparkConfig.LOG_DIR_DEFAULT)).normalize();
    if (Files.exists(logDir) && !Files.isDirectory(logDir)) {
      errors.add("spark.logDir: " + logDir + " is not a directory");
    } else if (Files.isDirectory(logDir) && !Files.isWritable(logDir)) {
      errors.add("spark.logDir: " + logDir + " is not writable");
    }
    if (!errors.isEmpty()) {
      return new Invalid(errors);
    }
    return new Resolved(new SparkSettings(home, config.master(), config.deployMode(), applicationJar.orElseThrow(),
        jars, config.conf(), config.maxApplications(), Duration.ofMillis(config.timeout().toMilliseconds()), logDir,
        config));
  }

  private static Optional<Path> jar(String key, Optional<String> configured, Optional<Path> besideDaemonJar,
                                    String defaultName, List<String> errors) {
    Path jar;
    if (configured.isPresent()) {
      jar = Path.of(configured.get()).toAbsolutePath().normalize();
    } else if (besideDaemonJar.isPresent()) {
      jar = besideDaemonJar.get().resolve(defaultName);
    } else {
      errors.add(key + ": not set, and the daemon does not run from hudi-tsd.jar to find " + defaultName
          + " beside it");
      return Optional.empty();
    }
    if (!Files.isRegularFile(jar)) {
      errors.add(key + ": " + jar + " not found" + (configured.isPresent() ? "" : " (the default, beside "
          + "hudi-tsd.jar)"));
      return Optional.empty();
    }
    return Optional.of(jar);
  }
}
