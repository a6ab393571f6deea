package io.huditsd.config;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.dropwizard.core.Configuration;

import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The daemon's YAML file. Dropwizard's own sections ({@code server}, {@code logging}, {@code metrics}) sit beside
 * the daemon's: the tables, how they are found and polled, the worker pool, and the {@code hoodie.*} keys passed to
 * Hudi's write config.
 */
public class TsdConfiguration extends Configuration {
  private List<TableSpec> tables = List.of();
  private DiscoveryConfig discovery = DiscoveryConfig.none();
  private PollingConfig polling = PollingConfig.defaults();
  private WorkerConfig workers = WorkerConfig.defaults();
  private Set<ServiceType> services = EnumSet.allOf(ServiceType.class);
  private Map<String, String> hoodie = Map.of();
  private Map<String, IndexOptions> indexes = Map.of();
  private TableServiceManagerConfig tableServiceManager = TableServiceManagerConfig.defaults();
  private AuthConfig auth = AuthConfig.defaults();
  private HistoryConfig history = HistoryConfig.defaults();
  private HealthThresholds tableHealth = HealthThresholds.defaults();
  private HaConfig ha;
  private SparkConfig spark;
  private CommitCallbackConfig commitCallbacks;

  /** Explicitly listed tables with their overrides. */
  @JsonProperty
  public List<TableSpec> getTables() {
    return tables;
  }

  @JsonProperty
  public void setTables(List<TableSpec> tables) {
    this.tables = tables == null ? List.of() : List.copyOf(tables);
  }

  /** Roots under which every Hudi table is serviced. */
  @JsonProperty
  public DiscoveryConfig getDiscovery() {
    return discovery;
  }

  @JsonProperty
  public void setDiscovery(DiscoveryConfig discovery) {
    this.discovery = discovery == null ? DiscoveryConfig.none() : discovery;
  }

  /** Poll interval, poll threads and failure backoff. */
  @JsonProperty
  public PollingConfig getPolling() {
    return polling;
  }

  @JsonProperty
  public void setPolling(PollingConfig polling) {
    this.polling = polling == null ? PollingConfig.defaults() : polling;
  }

  /** The worker pool that executes plans. */
  @JsonProperty
  public WorkerConfig getWorkers() {
    return workers;
  }

  @JsonProperty
  public void setWorkers(WorkerConfig workers) {
    this.workers = workers == null ? WorkerConfig.defaults() : workers;
  }

  /** Services enabled for every table unless a table overrides them; all of them by default. */
  @JsonProperty
  public Set<ServiceType> getServices() {
    return services;
  }

  @JsonProperty
  public void setServices(Set<ServiceType> services) {
    this.services = services == null || services.isEmpty()
        ? Set.of() : Set.copyOf(EnumSet.copyOf(services));
  }

  /** When the tables health check calls a table unhealthy. */
  @JsonProperty
  public HealthThresholds getTableHealth() {
    return tableHealth;
  }

  @JsonProperty
  public void setTableHealth(HealthThresholds tableHealth) {
    this.tableHealth = tableHealth == null ? HealthThresholds.defaults() : tableHealth;
  }

  /** The bounded run history and where it is kept across restarts. */
  @JsonProperty
  public HistoryConfig getHistory() {
    return history;
  }

  @JsonProperty
  public void setHistory(HistoryConfig history) {
    this.history = history == null ? HistoryConfig.defaults() : history;
  }

  /** Bearer-token access to the REST API and the request body limit. */
  @JsonProperty
  public AuthConfig getAuth() {
    return auth;
  }

  @JsonProperty
  public void setAuth(AuthConfig auth) {
    this.auth = auth == null ? AuthConfig.defaults() : auth;
  }

  /** The endpoints Hudi writers call to hand their plans to the daemon. */
  @JsonProperty
  public TableServiceManagerConfig getTableServiceManager() {
    return tableServiceManager;
  }

  @JsonProperty
  public void setTableServiceManager(TableServiceManagerConfig tableServiceManager) {
    this.tableServiceManager = tableServiceManager == null ? TableServiceManagerConfig.defaults() : tableServiceManager;
  }

  /** Replicas sharing the tables through ZooKeeper; absent: this process owns every table. */
  @JsonProperty
  public Optional<HaConfig> getHa() {
    return Optional.ofNullable(ha);
  }

  @JsonProperty
  public void setHa(HaConfig ha) {
    this.ha = ha;
  }

  /**
   * How compaction and clustering plans are submitted to Spark (issue 14); absent: every plan runs in the daemon.
   * Which plans go there is the tables' engine policy ({@link EnginePolicy}) or a request.
   */
  @JsonProperty
  public Optional<SparkConfig> getSpark() {
    return Optional.ofNullable(spark);
  }

  @JsonProperty
  public void setSpark(SparkConfig spark) {
    this.spark = spark;
  }

  /** Writers' HTTP commit callbacks (issue 20); absent: no callback endpoint, polls only. */
  @JsonProperty
  public Optional<CommitCallbackConfig> getCommitCallbacks() {
    return Optional.ofNullable(commitCallbacks);
  }

  @JsonProperty
  public void setCommitCallbacks(CommitCallbackConfig commitCallbacks) {
    this.commitCallbacks = commitCallbacks;
  }

  /**
   * Metadata indexes wanted on every table unless a table or discovery root names its own, by kind
   * ({@code record_index: {}}, {@code column_stats: {columns: [a, b]}}, {@code bloom_filters: {}},
   * {@code partition_stats: {}}); none by default. Checked by {@link ConfigurationChecks}.
   */
  @JsonProperty
  public Map<String, IndexOptions> getIndexes() {
    return indexes;
  }

  @JsonProperty
  public void setIndexes(Map<String, IndexOptions> indexes) {
    this.indexes = indexes == null ? Map.of() : MetadataIndexes.copy(indexes);
  }

  /** {@code hoodie.*} keys passed to the write config of every table. */
  @JsonProperty
  public Map<String, String> getHoodie() {
    return hoodie;
  }

  @JsonProperty
  public void setHoodie(Map<String, String> hoodie) {
    this.hoodie = HoodieKeys.sortedCopy(hoodie);
  }
}
