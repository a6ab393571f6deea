package io.huditsd.config;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

/** Resolves explicit and discovered tables against the global configuration. */
public final class ServicedTables {
  private final TsdConfiguration configuration;

  public ServicedTables(TsdConfiguration configuration) {
    this.configuration = configuration;
  }

  public ServicedTable explicit(TableSpec spec) {
    String basePath = TablePaths.normalize(spec.path());
    Map<String, String> keys = new HashMap<>(configuration.getHoodie());
    keys.putAll(spec.hoodie());
    return new ServicedTable(
        spec.id().orElseGet(() -> TableIds.derive(basePath)),
        basePath,
        spec.services().orElse(configuration.getServices()),
        spec.pollInterval().map(ServicedTables::toJava).orElse(toJava(configuration.getPolling().interval())),
        keys);
  }

  public ServicedTable discovered(String path) {
    String basePath = TablePaths.normalize(path);
    Map<String, String> keys = new HashMap<>(configuration.getHoodie());
    keys.putAll(configuration.getDiscovery().hoodie());
    return new ServicedTable(TableIds.derive(basePath), basePath, configuration.getServices(),
        toJava(configuration.getPolling().interval()), keys);
  }

  private static Duration toJava(io.dropwizard.util.Duration duration) {
    return Duration.ofMillis(duration.toMilliseconds());
  }
}
