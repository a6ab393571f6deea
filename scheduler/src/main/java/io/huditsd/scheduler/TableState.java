package io.huditsd.scheduler;

import io.huditsd.config.ServicedTable;
import io.huditsd.executors.FailedWrites;
import io.huditsd.scheduler.view.TableBacklog;
import org.apache.hudi.common.table.HoodieTableMetaClient;
import org.apache.hudi.config.HoodieWriteConfig;

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
  volatile HoodieWriteConfig writeConfig;
  volatile Instant lastPoll;
  volatile Instant lastChange;
  volatile int consecutiveFailures;
  volatile Instant nextAttempt = Instant.MIN;
  volatile String lastError;
  volatile boolean paused;
  /** Whether the compaction trigger involves elapsed time, so polls evaluate it without a change. */
  volatile boolean timeTriggered;
  /** Backlog figures as of the last changed poll; null before the first. */
  volatile TableBacklog backlog;
  /** When a poll must plan again without a change: a pending plan's heartbeat expires (null: no such plan). */
  volatile Instant recheckAt;
  /** Failed writer commits as of the last planning round. */
  volatile FailedWrites failedWrites = FailedWrites.NONE;

  public TableState(ServicedTable table) {
    this.table = table;
  }

  public ServicedTable table() {
    return table;
  }

  public boolean isPaused() {
    return paused;
  }

  /** While paused the table is polled and reported, but nothing is scheduled or executed. */
  public void setPaused(boolean paused) {
    boolean resumed = this.paused && !paused;
    this.paused = paused;
    if (resumed) {
      // Plans that arrived while paused were never enqueued; the next poll must plan even if nothing changes.
      this.fingerprint = null;
    }
  }

  /**
   * Makes the next poll plan and enqueue even if the timeline did not change, e.g. once this replica owns the table
   * again: plans that arrived meanwhile were never enqueued here.
   */
  public void replanOnNextPoll() {
    this.fingerprint = null;
  }

  /** The meta client of the last poll, if the table was read already. */
  public java.util.Optional<HoodieTableMetaClient> metaClient() {
    return java.util.Optional.ofNullable(metaClient);
  }

  public TableSnapshot snapshot() {
    HoodieTableMetaClient client = metaClient;
    return new TableSnapshot(table, Optional.ofNullable(client).map(c -> c.getTableConfig().getTableType().name()),
        Optional.ofNullable(client).map(c -> c.getTableConfig().getTableVersion().versionCode()),
        Optional.ofNullable(lastPoll), Optional.ofNullable(lastChange), consecutiveFailures,
        Optional.ofNullable(lastError), paused, Optional.ofNullable(backlog), failedWrites);
  }
}
