package io.huditsd.scheduler;

import io.huditsd.config.ServicedTable;
import io.huditsd.executors.FailedWrites;
import io.huditsd.scheduler.view.TableBacklog;

import java.time.Instant;
import java.util.Optional;

/**
 * A read-only view of a table's polling state.
 *
 * @param table the table and its settings
 * @param tableType COPY_ON_WRITE or MERGE_ON_READ, once the table was read
 * @param tableVersion the table's {@code hoodie.table.version}, once the table was read
 * @param lastPoll when the table was last polled
 * @param lastChange when a poll last saw its timeline change
 * @param consecutiveFailures polls that failed in a row
 * @param lastError the last poll failure's message
 * @param paused whether scheduling and execution are paused for it
 * @param backlog backlog figures as of the last changed poll
 * @param failedWrites failed writer commits as of the last planning round (see
 *     {@link io.huditsd.executors.FailedWritesRollback})
 */
public record TableSnapshot(ServicedTable table, Optional<String> tableType, Optional<Integer> tableVersion,
                            Optional<Instant> lastPoll, Optional<Instant> lastChange, int consecutiveFailures,
                            Optional<String> lastError, boolean paused, Optional<TableBacklog> backlog,
                            FailedWrites failedWrites) {
}
