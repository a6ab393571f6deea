package io.huditsd.config;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * The endpoints Hudi writers call when {@code hoodie.table.service.manager.enabled=true}
 * ({@code GET /v1/hoodie/service/{compact,cluster,clean}}).
 *
 * @param registerUnknownTables whether a writer may register a table the daemon was not configured with by calling
 *     these endpoints with its base path; off by default, so only configured or discovered tables are serviced
 */
public record TableServiceManagerConfig(boolean registerUnknownTables) {
  public static final boolean REGISTER_UNKNOWN_TABLES_DEFAULT = false;

  @JsonCreator
  public static TableServiceManagerConfig create(@JsonProperty("registerUnknownTables") Boolean registerUnknownTables) {
    return new TableServiceManagerConfig(registerUnknownTables == null
        ? REGISTER_UNKNOWN_TABLES_DEFAULT : registerUnknownTables);
  }

  public static TableServiceManagerConfig defaults() {
    return create(null);
  }
}
