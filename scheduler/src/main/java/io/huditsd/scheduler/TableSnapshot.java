package io.huditsd.scheduler;

import io.huditsd.config.ServiceType;
import io.huditsd.config.ServicedTable;
import io.huditsd.executors.FailedWrites;
import io.huditsd.scheduler.view.TableBacklog;
import org.apache.hudi.common.table.HoodieTableMetaClient;

import java.time.Instant;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * A read-only view of a table's polling state, taken at once from one poll's result (see {@link TableState}).
 *
 * @param table the table and its settings
 * @param metaClient the meta client loaded by the last poll that saw a change, once the table was read. The poll
 *     goes on using it: read its table config and loaded timeline, do not reload it
 * @param lastPoll when the table was last polled
 * @param lastChange when a poll last saw its timeline change
 * @param consecutiveFailures polls that failed in a row
 * @param lastError the last poll failure's message
 * @param paused whether scheduling and execution are paused for it
 * @param backlog backlog figures as of the last changed poll
 * @param failedWrites failed writer commits as of the last planning round (see
 *     {@link io.huditsd.executors.FailedWritesRollback})
 * @param decisions what the last planning round decided for each service, and why (empty before the first)
 */
public record TableSnapshot(ServicedTable table, Optional<HoodieTableMetaClient> metaClient,
                            Optional<Instant> lastPoll, Optional<Instant> lastChange, int consecutiveFailures,
                            Optional<String> lastError, boolean paused, Optional<TableBacklog> backlog,
                            FailedWrites failedWrites, Map<ServiceType, ServiceDecision> decisions) {
  public TableSnapshot {
    Objects.requireNonNull(table, "table is null");
    Objects.requireNonNull(metaClient, "metaClient is null");
    Objects.requireNonNull(lastPoll, "lastPoll is null");
    Objects.requireNonNull(lastChange, "lastChange is null");
    Objects.requireNonNull(lastError, "lastError is null");
    Objects.requireNonNull(backlog, "backlog is null");
    Objects.requireNonNull(failedWrites, "failedWrites is null");
    decisions = Map.copyOf(decisions);
  }

  /** COPY_ON_WRITE or MERGE_ON_READ, once the table was read. */
  public Optional<String> tableType() {
    return metaClient.map(client -> client.getTableConfig().getTableType().name());
  }

  /** The table's {@code hoodie.table.version}, once the table was read. */
  public Optional<Integer> tableVersion() {
    return metaClient.map(client -> client.getTableConfig().getTableVersion().versionCode());
  }
}
