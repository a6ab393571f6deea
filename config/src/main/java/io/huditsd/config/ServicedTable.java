package io.huditsd.config;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * A table the daemon services, with every setting resolved: global values, then discovery-root values, then the
 * table's own overrides.
 *
 * @param id stable, URL-safe id (see {@link TableIds})
 * @param basePath normalized base path (see {@link TablePaths})
 * @param services services enabled on this table
 * @param pollInterval interval between two polls of its timeline
 * @param hoodieKeys the user's {@code hoodie.*} keys in force for this table
 * @param indexes the metadata indexes wanted on this table
 */
public record ServicedTable(String id, String basePath, Set<ServiceType> services, Duration pollInterval,
                            Map<String, String> hoodieKeys, MetadataIndexes indexes) {
  public ServicedTable {
    TableIds.requireValid(Objects.requireNonNull(id, "id is null"));
    Objects.requireNonNull(basePath, "basePath is null");
    services = Set.copyOf(services);
    Objects.requireNonNull(pollInterval, "pollInterval is null");
    hoodieKeys = HoodieKeys.sortedCopy(Objects.requireNonNull(hoodieKeys, "hoodieKeys is null"));
    Objects.requireNonNull(indexes, "indexes is null");
  }

  // Copies go through these methods, which keep every other field; a constructor that defaulted a field once made
  // clustering runs lose the table's wanted indexes.

  /** The same table with other {@code hoodie.*} keys. */
  public ServicedTable withHoodieKeys(Map<String, String> keys) {
    return new ServicedTable(id, basePath, services, pollInterval, keys, indexes);
  }

  /** The same table with {@code overrides} on top of its {@code hoodie.*} keys, as if the user had set them. */
  public ServicedTable withHoodieKeysOverridden(Map<String, String> overrides) {
    Map<String, String> keys = new HashMap<>(hoodieKeys);
    keys.putAll(Objects.requireNonNull(overrides, "overrides is null"));
    return withHoodieKeys(keys);
  }

  /** The same table with other services enabled. */
  public ServicedTable withServices(Set<ServiceType> enabled) {
    return new ServicedTable(id, basePath, enabled, pollInterval, hoodieKeys, indexes);
  }

  /** The same table polled at another interval. */
  public ServicedTable withPollInterval(Duration interval) {
    return new ServicedTable(id, basePath, services, interval, hoodieKeys, indexes);
  }

  /** The same table with other wanted metadata indexes. */
  public ServicedTable withIndexes(MetadataIndexes wanted) {
    return new ServicedTable(id, basePath, services, pollInterval, hoodieKeys, wanted);
  }

  public boolean runs(ServiceType service) {
    return services.contains(service);
  }
}
