package io.huditsd.config;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

/**
 * Resolves explicit and discovered tables against the global configuration. A table's {@code hoodie.*} keys are, later
 * ones winning: the lock keys of the writers' {@code hudi-defaults.conf} ({@link WriterLockDefaults}), the global
 * {@code hoodie} section, then the discovery root's or the table's own.
 */
public final class ServicedTables {
  private final TsdConfiguration configuration;
  private final Map<String, String> writerLockKeys;

  public ServicedTables(TsdConfiguration configuration) {
    this(configuration, WriterLockDefaults.keys());
  }

  public ServicedTables(TsdConfiguration configuration, Map<String, String> writerLockKeys) {
    this.configuration = configuration;
    this.writerLockKeys = Map.copyOf(writerLockKeys);
  }

  private Map<String, String> globalKeys() {
    Map<String, String> keys = new HashMap<>(writerLockKeys);
    keys.putAll(configuration.getHoodie());
    return keys;
  }

  public ServicedTable explicit(TableSpec spec) {
    String basePath = TablePaths.normalize(spec.path());
    Map<String, String> keys = globalKeys();
    keys.putAll(spec.hoodie());
    return new ServicedTable(
        spec.id().orElseGet(() -> TableIds.derive(basePath)),
        basePath,
        spec.services().orElse(configuration.getServices()),
        spec.pollInterval().map(ServicedTables::toJava).orElse(toJava(configuration.getPolling().interval())),
        keys, MetadataIndexes.of(spec.indexes().orElse(configuration.getIndexes())));
  }

  public ServicedTable discovered(String path) {
    String basePath = TablePaths.normalize(path);
    Map<String, String> keys = globalKeys();
    keys.putAll(configuration.getDiscovery().hoodie());
    return new ServicedTable(TableIds.derive(basePath), basePath, configuration.getServices(),
        toJava(configuration.getPolling().interval()), keys,
        MetadataIndexes.of(configuration.getDiscovery().indexes().orElse(configuration.getIndexes())));
  }

  private static Duration toJava(io.dropwizard.util.Duration duration) {
    return Duration.ofMillis(duration.toMilliseconds());
  }
}
