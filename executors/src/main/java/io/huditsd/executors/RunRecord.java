package io.huditsd.executors;

import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * The state of one run, as reported to listeners after every change.
 *
 * @param runId unique within this process
 * @param item the work
 * @param status where it stands
 * @param attempt 1 for the first attempt
 * @param startedAt when the current attempt started
 * @param finishedAt when the run reached a final status
 * @param result what the execution did, once it succeeded
 * @param error the last failure's message
 */
public record RunRecord(long runId, WorkItem item, RunStatus status, int attempt, Optional<Instant> startedAt,
                        Optional<Instant> finishedAt, Optional<ActionResult> result, Optional<String> error) {
  public RunRecord {
    Objects.requireNonNull(item, "item is null");
    Objects.requireNonNull(status, "status is null");
    Objects.requireNonNull(startedAt, "startedAt is null");
    Objects.requireNonNull(finishedAt, "finishedAt is null");
    Objects.requireNonNull(result, "result is null");
    Objects.requireNonNull(error, "error is null");
  }

  static RunRecord queued(long runId, WorkItem item) {
    return new RunRecord(runId, item, RunStatus.QUEUED, 1, Optional.empty(), Optional.empty(), Optional.empty(),
        Optional.empty());
  }

  RunRecord running(int attempt) {
    return new RunRecord(runId, item, RunStatus.RUNNING, attempt, Optional.of(Instant.now()), Optional.empty(),
        Optional.empty(), error);
  }

  RunRecord finished(RunStatus finalStatus, Optional<ActionResult> actionResult, Optional<String> failure) {
    return new RunRecord(runId, item, finalStatus, attempt, startedAt, Optional.of(Instant.now()), actionResult,
        failure);
  }

  RunRecord retryWait(String failure) {
    return new RunRecord(runId, item, RunStatus.RETRY_WAIT, attempt, startedAt, Optional.empty(), Optional.empty(),
        Optional.of(failure));
  }
}
