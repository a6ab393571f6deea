package io.huditsd.config;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Checks across sections that Jackson cannot express: the {@code hoodie} maps, duplicate table ids and paths.
 * Each error names the YAML path of the offending value.
 */
public final class ConfigurationChecks {
  private ConfigurationChecks() {
  }

  public static List<String> check(TsdConfiguration configuration) {
    List<String> errors = new ArrayList<>(HoodieKeyRules.check("hoodie", configuration.getHoodie()));
    errors.addAll(HoodieKeyRules.check("discovery.hoodie", configuration.getDiscovery().hoodie()));
    errors.addAll(MetadataIndexes.check("indexes", configuration.getIndexes()));
    configuration.getDiscovery().indexes()
        .ifPresent(indexes -> errors.addAll(MetadataIndexes.check("discovery.indexes", indexes)));
    Map<String, Integer> ids = new HashMap<>();
    Map<String, Integer> paths = new HashMap<>();
    List<TableSpec> tables = configuration.getTables();
    for (int i = 0; i < tables.size(); i++) {
      TableSpec table = tables.get(i);
      String where = "tables[" + i + "]";
      errors.addAll(HoodieKeyRules.check(where + ".hoodie", table.hoodie()));
      table.indexes().ifPresent(indexes -> errors.addAll(MetadataIndexes.check(where + ".indexes", indexes)));
      Integer earlierPath = paths.putIfAbsent(TablePaths.normalize(table.path()), i);
      if (earlierPath != null) {
        errors.add(where + ".path: " + table.path() + " is already listed as tables[" + earlierPath + "]");
      }
      if (table.id().isPresent()) {
        Integer earlierId = ids.putIfAbsent(table.id().get(), i);
        if (earlierId != null) {
          errors.add(where + ".id: '" + table.id().get() + "' is already used by tables[" + earlierId + "]");
        }
      }
    }
    if (configuration.getSpark().isEmpty()) {
      errors.addAll(sparkRequiredWithoutSection("hoodie", configuration.getHoodie()));
      errors.addAll(sparkRequiredWithoutSection("discovery.hoodie", configuration.getDiscovery().hoodie()));
      for (int i = 0; i < tables.size(); i++) {
        errors.addAll(sparkRequiredWithoutSection("tables[" + i + "].hoodie", tables.get(i).hoodie()));
      }
    }
    // A daemon that writers register their tables with (table service manager endpoints) may start with none.
    if (tables.isEmpty() && configuration.getDiscovery().roots().isEmpty()
        && !configuration.getTableServiceManager().registerUnknownTables()) {
      errors.add("tables: no tables listed, no discovery.roots given and tableServiceManager.registerUnknownTables "
          + "is off, so there is nothing to service");
    }
    return errors;
  }

  /** An engine policy of {@code spark} in a daemon without a {@code spark} section could never run its plans. */
  private static List<String> sparkRequiredWithoutSection(String where, Map<String, String> hoodie) {
    List<String> errors = new ArrayList<>();
    for (String key : List.of(EnginePolicy.ENGINE, EnginePolicy.ENGINE_COMPACTION, EnginePolicy.ENGINE_CLUSTERING)) {
      String value = hoodie.get(key);
      if (value != null && value.trim().equalsIgnoreCase(EnginePolicy.Mode.SPARK.configName())) {
        errors.add(where + ": key '" + key + "' is spark, but tsd.yml has no spark section to submit with");
      }
    }
    return errors;
  }
}
