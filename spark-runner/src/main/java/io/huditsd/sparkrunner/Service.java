package io.huditsd.sparkrunner;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/** The table services the runner executes; clean, archive and index always run in the daemon. */
public enum Service {
  COMPACTION("compaction"),
  CLUSTERING("clustering");

  private final String argument;

  Service(String argument) {
    this.argument = argument;
  }

  /** The value of {@code --service}. */
  public String argument() {
    return argument;
  }

  /** @throws IllegalArgumentException naming the value and the accepted ones */
  public static Service fromArgument(String value) {
    for (Service service : values()) {
      if (service.argument.equals(value.toLowerCase(Locale.ROOT))) {
        return service;
      }
    }
    throw new IllegalArgumentException("--service " + value + " is not one the runner executes (accepted: "
        + Arrays.stream(values()).map(Service::argument).collect(Collectors.joining(", "))
        + "; clean, archive and index run in the daemon)");
  }
}
