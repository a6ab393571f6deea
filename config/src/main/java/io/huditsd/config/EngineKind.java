package io.huditsd.config;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * Where a plan executes: in the daemon's JVM on Hudi's Java engine, or as a Spark application the daemon submits.
 * Compaction and clustering plans may go to either; clean, archive and index builds always run in the daemon.
 */
public enum EngineKind {
  JAVA("java"),
  SPARK("spark");

  private final String configName;

  EngineKind(String configName) {
    this.configName = configName;
  }

  /** As written in configuration, REST bodies, metrics labels and log lines. */
  public String configName() {
    return configName;
  }

  /** The engine named {@code name} (case-insensitive), or an error that lists the names there are. */
  public static EngineKind fromConfigName(String name) {
    String wanted = name == null ? "" : name.trim().toLowerCase(Locale.ROOT);
    for (EngineKind kind : values()) {
      if (kind.configName.equals(wanted)) {
        return kind;
      }
    }
    throw new IllegalArgumentException("unknown engine '" + name + "'; expected one of "
        + Arrays.stream(values()).map(EngineKind::configName).collect(Collectors.joining(", ")));
  }
}
