package io.huditsd.sparkrunner;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * The runner's command line: {@code --base-path P --service compaction|clustering --instant I --props FILE}, every
 * option once, nothing else.
 *
 * @param propsFile the write-config keys the daemon uses for the table, as a Java properties file: a path as given
 *     (client mode, or a path every driver host sees), else the name of a file shipped with the submission
 *     ({@code SparkFiles.get}, cluster mode)
 */
public record RunnerArgs(String basePath, Service service, String instant, String propsFile) {
  static final String USAGE = "usage: PlanRunnerApp --base-path <table base path> --service compaction|clustering"
      + " --instant <requested time of the pending plan> --props <write-config properties file>";
  private static final Set<String> OPTIONS = Set.of("--base-path", "--service", "--instant", "--props");

  public RunnerArgs {
    Objects.requireNonNull(basePath, "basePath is null");
    Objects.requireNonNull(service, "service is null");
    Objects.requireNonNull(instant, "instant is null");
    Objects.requireNonNull(propsFile, "propsFile is null");
  }

  /** @throws IllegalArgumentException naming what is missing, repeated, unknown or malformed, with the usage */
  public static RunnerArgs parse(List<String> args) {
    Map<String, String> values = new LinkedHashMap<>();
    for (int i = 0; i < args.size(); i++) {
      String option = args.get(i);
      if (!OPTIONS.contains(option)) {
        throw invalid("unknown argument '" + option + "'");
      }
      if (i + 1 >= args.size() || args.get(i + 1).isBlank() || OPTIONS.contains(args.get(i + 1))) {
        throw invalid(option + " needs a value");
      }
      if (values.put(option, args.get(++i)) != null) {
        throw invalid(option + " is given twice");
      }
    }
    for (String option : OPTIONS) {
      if (!values.containsKey(option)) {
        throw invalid(option + " is missing");
      }
    }
    String instant = values.get("--instant");
    if (!instant.chars().allMatch(Character::isDigit)) {
      throw invalid("--instant " + instant + " is not an instant time (digits, e.g. 20261201153447583)");
    }
    Service service;
    try {
      service = Service.fromArgument(values.get("--service"));
    } catch (IllegalArgumentException e) {
      throw invalid(e.getMessage());
    }
    return new RunnerArgs(values.get("--base-path"), service, instant, values.get("--props"));
  }

  private static IllegalArgumentException invalid(String what) {
    return new IllegalArgumentException(what + "; " + USAGE);
  }
}
