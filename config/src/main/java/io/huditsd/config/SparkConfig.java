package io.huditsd.config;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;
import io.dropwizard.util.Duration;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * The {@code spark} section of {@code tsd.yml}: how compaction and clustering plans that outgrow the daemon are
 * submitted as Spark applications (issue 14). Absent, every plan runs in the daemon. Which plans go to Spark is the
 * tables' engine policy ({@link EnginePolicy}) or a request; this section only says how to submit.
 *
 * <p>The values are checked here for their form; whether the files they name exist is checked when the daemon
 * starts (the engine's settings), with errors naming the key.
 *
 * @param sparkHome a Spark installation whose {@code bin/spark-submit} submits; one of this and {@code sparkSubmit}
 * @param sparkSubmit the {@code spark-submit} script itself ({@code /opt/spark/bin/spark-submit}); Spark's launcher
 *     runs {@code <home>/bin/spark-submit}, so it must sit in a {@code bin} directory
 * @param master where the application runs: {@code local}, {@code local[n]}, {@code local[*]},
 *     {@code spark://host:port}, {@code k8s://https://host:port} or {@code yarn}
 * @param deployMode {@code client} (the driver runs beside the daemon, default) or {@code cluster}
 * @param applicationJar the runner application; default {@code hudi-tsd-spark-runner.jar} beside {@code hudi-tsd.jar}
 * @param jars more jars for the application; default the lock-providers jar beside {@code hudi-tsd.jar}
 * @param conf Spark settings passed with {@code --conf} ({@code spark.executor.memory: 4g})
 * @param maxApplications how many applications the daemon runs at once (default {@value #MAX_APPLICATIONS_DEFAULT})
 * @param timeout an application still running after this long is killed; the attempt fails and is retried
 *     (default 2h)
 * @param logDir where each submission's driver output ({@code spark-submit}'s stdout and stderr) is written;
 *     default {@code spark-logs} under the daemon's working directory
 * @param uiUrl the Spark UI address shown on a run, with {@code {appId}} replaced by the application id
 *     ({@code http://spark-history:18080/history/{appId}}); absent, runs show none
 */
public record SparkConfig(Optional<String> sparkHome, Optional<String> sparkSubmit, String master, String deployMode,
                          Optional<String> applicationJar, Optional<List<String>> jars, Map<String, String> conf,
                          int maxApplications, Duration timeout, Optional<String> logDir, Optional<String> uiUrl) {
  public static final String DEPLOY_MODE_DEFAULT = "client";
  public static final int MAX_APPLICATIONS_DEFAULT = 2;
  public static final Duration TIMEOUT_DEFAULT = Duration.hours(2);
  public static final String LOG_DIR_DEFAULT = "spark-logs";
  /** The placeholder {@code uiUrl} may carry. */
  public static final String APP_ID_PLACEHOLDER = "{appId}";

  private static final Pattern LOCAL = Pattern.compile("local(\\[(\\*|[1-9]\\d*)(,[1-9]\\d*)?])?");
  private static final Pattern STANDALONE = Pattern.compile("spark://[^\\s/:]+:\\d+(,[^\\s/:]+:\\d+)*");
  private static final Pattern KUBERNETES = Pattern.compile("k8s://(https?://)?[^\\s/]+(:\\d+)?");

  @JsonCreator
  public static SparkConfig create(@JsonProperty("sparkHome") String sparkHome,
                                   @JsonProperty("sparkSubmit") String sparkSubmit,
                                   @JsonProperty("master") String master,
                                   @JsonProperty("deployMode") String deployMode,
                                   @JsonProperty("applicationJar") String applicationJar,
                                   @JsonProperty("jars") List<String> jars,
                                   @JsonProperty("conf") Map<String, String> conf,
                                   @JsonProperty("maxApplications") Integer maxApplications,
                                   @JsonProperty("timeout") Duration timeout,
                                   @JsonProperty("logDir") String logDir,
                                   @JsonProperty("uiUrl") String uiUrl) {
    return new SparkConfig(Optional.ofNullable(sparkHome), Optional.ofNullable(sparkSubmit), master,
        deployMode == null ? DEPLOY_MODE_DEFAULT : deployMode, Optional.ofNullable(applicationJar),
        Optional.ofNullable(jars), conf == null ? Map.of() : conf,
        maxApplications == null ? MAX_APPLICATIONS_DEFAULT : maxApplications,
        timeout == null ? TIMEOUT_DEFAULT : timeout, Optional.ofNullable(logDir), Optional.ofNullable(uiUrl));
  }

  public SparkConfig {
    Objects.requireNonNull(sparkHome, "sparkHome is null");
    Objects.requireNonNull(sparkSubmit, "sparkSubmit is null");
    if (sparkHome.isPresent() == sparkSubmit.isPresent()) {
      throw new IllegalArgumentException("spark: set one of sparkHome (a Spark installation) and sparkSubmit (its "
          + "bin/spark-submit), " + (sparkHome.isPresent() ? "not both" : "got neither"));
    }
    sparkHome.ifPresent(home -> requireNotBlank("sparkHome", home));
    sparkSubmit.ifPresent(submit -> {
      requireNotBlank("sparkSubmit", submit);
      String normalized = submit.replace('\\', '/');
      if (!normalized.endsWith("/bin/spark-submit")) {
        throw new IllegalArgumentException("spark.sparkSubmit: '" + submit + "' must be a bin/spark-submit script "
            + "(Spark's launcher runs <home>/bin/spark-submit); set sparkHome to the installation instead");
      }
    });
    if (master == null || master.isBlank()) {
      throw new IllegalArgumentException("spark.master is required: local[n], spark://host:port, "
          + "k8s://https://host:port or yarn");
    }
    if (!isKnownMaster(master)) {
      throw new IllegalArgumentException("spark.master: '" + master + "' is not a Spark master URL; expected "
          + "local[n], spark://host:port, k8s://https://host:port or yarn");
    }
    Objects.requireNonNull(deployMode, "deployMode is null");
    if (!deployMode.equals("client") && !deployMode.equals("cluster")) {
      throw new IllegalArgumentException("spark.deployMode: '" + deployMode + "' must be client or cluster");
    }
    if (deployMode.equals("cluster") && master.startsWith("local")) {
      throw new IllegalArgumentException("spark.deployMode: cluster cannot be used with master " + master
          + " (a local master runs the driver in spark-submit's JVM)");
    }
    Objects.requireNonNull(applicationJar, "applicationJar is null");
    applicationJar.ifPresent(jar -> requireNotBlank("applicationJar", jar));
    Objects.requireNonNull(jars, "jars is null");
    jars = jars.map(List::copyOf);
    jars.ifPresent(list -> list.forEach(jar -> requireNotBlank("jars[]", jar)));
    Objects.requireNonNull(conf, "conf is null");
    for (Map.Entry<String, String> entry : conf.entrySet()) {
      if (entry.getKey() == null || !entry.getKey().startsWith("spark.")) {
        throw new IllegalArgumentException("spark.conf: key '" + entry.getKey() + "' is not a spark.* setting");
      }
      if (entry.getValue() == null) {
        throw new IllegalArgumentException("spark.conf: key '" + entry.getKey() + "' has no value");
      }
    }
    conf = Collections.unmodifiableMap(new LinkedHashMap<>(conf));
    if (maxApplications < 1 || maxApplications > 256) {
      throw new IllegalArgumentException("spark.maxApplications must be between 1 and 256, got " + maxApplications);
    }
    Objects.requireNonNull(timeout, "timeout is null");
    if (timeout.toMilliseconds() < 1_000) {
      throw new IllegalArgumentException("spark.timeout must be at least 1s, got " + timeout);
    }
    Objects.requireNonNull(logDir, "logDir is null");
    logDir.ifPresent(dir -> requireNotBlank("logDir", dir));
    Objects.requireNonNull(uiUrl, "uiUrl is null");
    uiUrl.ifPresent(url -> requireNotBlank("uiUrl", url));
  }

  /** The master URL forms Spark 3.5's {@code SparkSubmit} accepts. */
  static boolean isKnownMaster(String master) {
    return LOCAL.matcher(master).matches() || STANDALONE.matcher(master).matches()
        || KUBERNETES.matcher(master).matches() || master.equals("yarn");
  }

  /** The Spark installation: {@code sparkHome}, or the directory above {@code sparkSubmit}'s {@code bin}. */
  public String resolvedSparkHome() {
    return sparkHome.orElseGet(() -> {
      String submit = sparkSubmit.orElseThrow();
      String withoutScript = submit.substring(0, submit.length() - "/bin/spark-submit".length());
      return withoutScript.isEmpty() ? "/" : withoutScript;
    });
  }

  /** The key that named the installation, for messages. */
  public String sparkHomeKey() {
    return sparkHome.isPresent() ? "spark.sparkHome" : "spark.sparkSubmit";
  }

  /** The UI address of application {@code appId}, when {@code uiUrl} is set. */
  public Optional<String> uiUrlOf(String appId) {
    return uiUrl.map(template -> template.replace(APP_ID_PLACEHOLDER, appId));
  }

  private static void requireNotBlank(String key, String value) {
    if (value.isBlank()) {
      throw new IllegalArgumentException("spark." + key + " must not be empty");
    }
  }
}
