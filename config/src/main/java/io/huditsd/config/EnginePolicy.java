package io.huditsd.config;

import io.dropwizard.util.DataSize;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * Where a table's compaction and clustering plans run unless a request names an engine: daemon keys in the layered
 * {@code hoodie:} maps (global, discovery root, table; later wins, like every other policy). They are checked with
 * Hudi's keys ({@link HoodieKeyRules}) but never passed to Hudi ({@link #withoutDaemonKeys}).
 * <ul>
 *   <li>{@value #ENGINE} = {@code auto} (default) | {@code java} | {@code spark}, for compaction and clustering;</li>
 *   <li>{@value #ENGINE_COMPACTION}, {@value #ENGINE_CLUSTERING}: the same for one service, over {@value #ENGINE};</li>
 *   <li>{@value #SPARK_MIN_BYTES}: under {@code auto}, a plan whose input reaches this many bytes goes to Spark (a
 *       number of bytes or a size such as {@code 512MiB}; default 64 MiB).</li>
 * </ul>
 * Under {@code auto} with a {@code spark} section, a plan also goes to Spark when its heap estimate exceeds the
 * daemon's memory budget; without one, every plan runs in the daemon.
 *
 * @param compaction the mode for compaction plans
 * @param clustering the mode for clustering plans
 * @param sparkMinBytes input bytes from which {@code auto} picks Spark
 */
public record EnginePolicy(Mode compaction, Mode clustering, long sparkMinBytes) {
  /** Keys the daemon reads itself start with this; Hudi never sees them. */
  public static final String DAEMON_KEY_PREFIX = "tsd.";
  public static final String ENGINE = "tsd.engine";
  public static final String ENGINE_COMPACTION = "tsd.engine.compaction";
  public static final String ENGINE_CLUSTERING = "tsd.engine.clustering";
  public static final String SPARK_MIN_BYTES = "tsd.engine.spark.min.bytes";
  /**
   * From bench/spark-engine.sh (docs/benchmarks.md, "Spark engine"): a submission costs about 25-30 s before any
   * work, after which Spark rewrites about 6x faster than the Java engine; on a 2-core machine with a one-core worker
   * the two meet at about 45 MB of input. 64 MiB sits above that crossover (the fixed cost varies by 20-30% on a
   * shared machine); a real cluster's executors only move the crossover down.
   */
  public static final long SPARK_MIN_BYTES_DEFAULT = 64L << 20;

  public static final Set<String> KEYS = Set.of(ENGINE, ENGINE_COMPACTION, ENGINE_CLUSTERING, SPARK_MIN_BYTES);

  public static final EnginePolicy DEFAULT = new EnginePolicy(Mode.AUTO, Mode.AUTO, SPARK_MIN_BYTES_DEFAULT);

  /** How a service's plans choose their engine. */
  public enum Mode {
    /** Spark when the plan is large (or over the memory budget) and Spark is configured; else the daemon. */
    AUTO,
    /** Always in the daemon. */
    JAVA,
    /** Always on Spark (which then must be configured). */
    SPARK;

    public String configName() {
      return name().toLowerCase(Locale.ROOT);
    }

    static Optional<Mode> parse(String value) {
      String wanted = value == null ? "" : value.trim().toUpperCase(Locale.ROOT);
      for (Mode mode : values()) {
        if (mode.name().equals(wanted)) {
          return Optional.of(mode);
        }
      }
      return Optional.empty();
    }
  }

  public EnginePolicy {
    Objects.requireNonNull(compaction, "compaction is null");
    Objects.requireNonNull(clustering, "clustering is null");
    if (sparkMinBytes < 0) {
      throw new IllegalArgumentException("sparkMinBytes must not be negative, got " + sparkMinBytes);
    }
  }

  /** The policy the (already checked) keys of a table say; keys it does not set keep their defaults. */
  public static EnginePolicy of(Map<String, String> keys) {
    Mode global = Optional.ofNullable(keys.get(ENGINE)).flatMap(Mode::parse).orElse(Mode.AUTO);
    Mode compaction = Optional.ofNullable(keys.get(ENGINE_COMPACTION)).flatMap(Mode::parse).orElse(global);
    Mode clustering = Optional.ofNullable(keys.get(ENGINE_CLUSTERING)).flatMap(Mode::parse).orElse(global);
    long minBytes = Optional.ofNullable(keys.get(SPARK_MIN_BYTES)).flatMap(EnginePolicy::parseBytes)
        .orElse(SPARK_MIN_BYTES_DEFAULT);
    return new EnginePolicy(compaction, clustering, minBytes);
  }

  /** The mode of {@code service}; services other than compaction and clustering always run in the daemon. */
  public Mode mode(ServiceType service) {
    return switch (service) {
      case COMPACTION -> compaction;
      case CLUSTERING -> clustering;
      default -> Mode.JAVA;
    };
  }

  /** Whether any service is to run on Spark whatever its size (then a {@code spark} section is required). */
  public boolean requiresSpark() {
    return compaction == Mode.SPARK || clustering == Mode.SPARK;
  }

  public static boolean isDaemonKey(String key) {
    return key != null && key.startsWith(DAEMON_KEY_PREFIX);
  }

  /** What is wrong with daemon key {@code key} set to {@code value}, if anything (without the location). */
  static Optional<String> problem(String key, String value) {
    if (!KEYS.contains(key)) {
      return Optional.of("key '" + key + "' is not a daemon key; the daemon reads " + String.join(", ",
          KEYS.stream().sorted().toList()));
    }
    if (value == null) {
      return Optional.of("key '" + key + "' has no value");
    }
    if (key.equals(SPARK_MIN_BYTES)) {
      return parseBytes(value).isPresent() ? Optional.empty()
          : Optional.of("key '" + key + "' has value '" + value + "', which is not a number of bytes or a size "
              + "such as 512MiB");
    }
    return Mode.parse(value).isPresent() ? Optional.empty()
        : Optional.of("key '" + key + "' has value '" + value + "', which is not one of auto, java, spark");
  }

  /** {@code keys} without the daemon's own keys: what goes to Hudi. */
  public static Map<String, String> withoutDaemonKeys(Map<String, String> keys) {
    if (keys.keySet().stream().noneMatch(EnginePolicy::isDaemonKey)) {
      return keys;
    }
    Map<String, String> hudiKeys = new LinkedHashMap<>(keys);
    hudiKeys.keySet().removeIf(EnginePolicy::isDaemonKey);
    return hudiKeys;
  }

  private static Optional<Long> parseBytes(String value) {
    String text = value.trim();
    try {
      if (text.matches("\\d+")) {
        return Optional.of(Long.parseLong(text));
      }
      return Optional.of(DataSize.parse(text).toBytes());
    } catch (IllegalArgumentException e) {
      return Optional.empty();
    }
  }
}
