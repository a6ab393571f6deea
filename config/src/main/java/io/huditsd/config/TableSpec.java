package io.huditsd.config;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;
import io.dropwizard.util.Duration;

import java.util.EnumSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * One explicitly listed table and its overrides of the global settings.
 *
 * @param path base path of the table (a local path or a Hadoop URI such as {@code hdfs://nn/warehouse/t1})
 * @param id optional stable id used in logs, metrics and the REST API; derived from the path when absent
 * @param services services enabled for this table; the global {@code services} when absent
 * @param pollInterval how often the table's timeline is polled; the global {@code polling.interval} when absent
 * @param hoodie {@code hoodie.*} keys that override the global ones for this table
 * @param indexes metadata indexes wanted on this table, by kind ({@code record_index}, {@code column_stats}...);
 *     the global {@code indexes} when absent. Checked by {@link ConfigurationChecks}.
 */
public record TableSpec(String path, Optional<String> id, Optional<Set<ServiceType>> services,
                        Optional<Duration> pollInterval, Map<String, String> hoodie,
                        Optional<Map<String, IndexOptions>> indexes) {

  @JsonCreator
  public TableSpec(@JsonProperty(value = "path", required = true) String path,
                   @JsonProperty("id") String id,
                   @JsonProperty("services") Set<ServiceType> services,
                   @JsonProperty("pollInterval") Duration pollInterval,
                   @JsonProperty("hoodie") Map<String, String> hoodie,
                   @JsonProperty("indexes") Map<String, IndexOptions> indexes) {
    this(path, Optional.ofNullable(id), Optional.ofNullable(services), Optional.ofNullable(pollInterval), hoodie,
        Optional.ofNullable(indexes));
  }

  public TableSpec(String path, String id, Set<ServiceType> services, Duration pollInterval,
                   Map<String, String> hoodie) {
    this(path, id, services, pollInterval, hoodie, null);
  }

  public TableSpec(String path, Optional<String> id, Optional<Set<ServiceType>> services,
                   Optional<Duration> pollInterval, Map<String, String> hoodie) {
    this(path, id, services, pollInterval, hoodie, Optional.empty());
  }

  public TableSpec {
    if (path == null || path.isBlank()) {
      throw new IllegalArgumentException("path must not be empty");
    }
    id.ifPresent(TableIds::requireValid);
    services = services.map(s -> s.isEmpty() ? Set.<ServiceType>of() : Set.copyOf(EnumSet.copyOf(s)));
    pollInterval.ifPresent(interval -> {
      if (interval.toMilliseconds() <= 0) {
        throw new IllegalArgumentException("pollInterval must be positive, got " + interval);
      }
    });
    hoodie = HoodieKeys.sortedCopy(hoodie);
    indexes = indexes.map(MetadataIndexes::copy);
  }

  public static TableSpec ofPath(String path) {
    return new TableSpec(path, Optional.empty(), Optional.empty(), Optional.empty(), Map.of());
  }
}
