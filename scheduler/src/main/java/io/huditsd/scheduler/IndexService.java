package io.huditsd.scheduler;

import io.huditsd.config.MetadataIndexKind;
import io.huditsd.config.ServiceType;
import io.huditsd.config.ServicedTable;
import io.huditsd.executors.IndexAction;
import io.huditsd.executors.ServiceAction;
import org.apache.hudi.common.table.HoodieTableMetaClient;
import org.apache.hudi.config.HoodieWriteConfig;

import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * Asynchronous metadata indexing: builds the metadata indexes a table is configured to have ({@code indexes:}) and
 * lacks, with Hudi's indexer while writers go on.
 *
 * <ul>
 *   <li>Due: when a wanted index is missing and its last builds did not fail recently ({@link IndexTrigger}); Hudi
 *       has no trigger of its own for it.</li>
 *   <li>Scheduled: {@code scheduleIndexing}, one index per plan ({@link IndexTrigger#schedule}).</li>
 *   <li>Run: {@link IndexAction}; Hudi keeps no heartbeat for an index build, so the action keeps one.</li>
 * </ul>
 */
public final class IndexService implements PlannedService {
  private final IndexTrigger trigger;
  private final IndexAction action = new IndexAction();

  public IndexService(IndexTrigger trigger) {
    this.trigger = Objects.requireNonNull(trigger, "trigger is null");
  }

  /** Forgets a table no longer serviced. */
  void forget(String tableId) {
    trigger.forget(tableId);
  }

  /** The tables the trigger remembers something about. */
  Set<String> tables() {
    return trigger.tables();
  }

  @Override
  public ServiceType type() {
    return ServiceType.INDEX;
  }

  @Override
  public ServiceAction action() {
    return action;
  }

  @Override
  public Due due(ServicedTable table, HoodieTableMetaClient metaClient, HoodieWriteConfig config, long nowMillis) {
    Set<MetadataIndexKind> due = trigger.due(table, metaClient);
    if (!due.isEmpty()) {
      return Due.yes(client -> trigger.schedule(table, client, due));
    }
    Set<MetadataIndexKind> missing = trigger.missing(table, metaClient);
    return new Due.No(missing.isEmpty()
        ? ServiceDecision.of(type(), ServiceDecision.Reason.BELOW_TRIGGER,
            "every wanted index is built (the table's indexes: setting names them)")
        : ServiceDecision.of(type(), ServiceDecision.Reason.BACKING_OFF, "the builds of " + missing
            + " failed recently and are tried again later (see the runs); a build requested through REST is not held"
            + " back"));
  }

  /** On request the indexes that failed recently are not held back. */
  @Override
  public Optional<Scheduling> onRequest(ServicedTable table, HoodieTableMetaClient metaClient) {
    return scheduling(table, trigger.missing(table, metaClient));
  }

  /** None: an index is planned whenever one is missing, there is no trigger to force. */
  @Override
  public Map<String, String> forceNowKeys() {
    return Map.of();
  }

  /**
   * The metadata partitions an indexing plan scheduled now would build: the first wanted index the table lacks
   * (one index per plan, see {@link IndexTrigger#schedule}); empty when none is missing.
   */
  public List<String> nextPlan(ServicedTable table, HoodieTableMetaClient metaClient) {
    return trigger.missing(table, metaClient).stream().sorted().limit(1)
        .map(MetadataIndexKind::partitionPath).toList();
  }

  private Optional<Scheduling> scheduling(ServicedTable table, Set<MetadataIndexKind> missing) {
    return missing.isEmpty() ? Optional.empty() : Optional.of(client -> trigger.schedule(table, client, missing));
  }
}
