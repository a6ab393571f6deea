package io.huditsd.scheduler;

import io.huditsd.config.ServicedTable;
import org.apache.hudi.common.table.HoodieTableMetaClient;

import java.time.Instant;
import java.util.Optional;

/**
 * What the poller remembers about one table between polls. Only the poll of that table changes it, and polls of
 * one table never overlap, so its fields need no lock; readers see a consistent {@link TableSnapshot} through
 * {@link #snapshot()}.
 */
public final class TableState {
  final ServicedTable table;

  volatile TimelineFingerprint fingerprint;
  volatile HoodieTableMetaClient metaClient;
  volatile Instant lastPoll;
  volatile Instant lastChange;
  volatile int consecutiveFailures;
  volatile Instant nextAttempt = Instant.MIN;
  volatile String lastError;
  volatile boolean paused;
  /** Whether the compaction trigger involves elapsed time, so polls evaluate it without a change. */
  volatile boolean timeTriggered;
  /** When a poll must plan again without a change: a pending plan's heartbeat expires (null: no such plan). */
  volatile Instant recheckAt;

  public TableState(ServicedTable table) {
    this.table = table;
  }

  public TableSnapshot snapshot() {
    HoodieTableMetaClient client = metaClient;
    return new TableSnapshot(table, Optional.ofNullable(client).map(c -> c.getTableConfig().getTableType().name()),
        Optional.ofNullable(client).map(c -> c.getTableConfig().getTableVersion().versionCode()),
        Optional.ofNullable(lastPoll), Optional.ofNullable(lastChange), consecutiveFailures,
        Optional.ofNullable(lastError), paused);
  }
}
