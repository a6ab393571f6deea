package io.huditsd.config;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * The table services the daemon runs. Log compaction is deliberately absent: Hudi's Java engine cannot execute it,
 * and a pending log-compaction plan would block clustering on the table.
 */
public enum ServiceType {
  COMPACTION,
  CLUSTERING,
  CLEAN,
  ARCHIVE,
  /** Builds the metadata indexes a table is configured to have and lacks (Hudi's asynchronous indexer). */
  INDEX;

  @JsonValue
  public String configName() {
    return name().toLowerCase(Locale.ROOT);
  }

  @JsonCreator
  public static ServiceType fromConfigName(String name) {
    for (ServiceType type : values()) {
      if (type.configName().equalsIgnoreCase(name.trim())) {
        return type;
      }
    }
    throw new IllegalArgumentException("Unknown service '" + name + "', expected one of " + allNames());
  }

  public static String allNames() {
    return Arrays.stream(values()).map(ServiceType::configName).collect(Collectors.joining(", "));
  }
}
