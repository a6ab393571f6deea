package io.huditsd.executors;

/** Where a run of a work item stands. */
public enum RunStatus {
  QUEUED,
  RUNNING,
  /** Waiting before another attempt after a failure. */
  RETRY_WAIT,
  SUCCEEDED,
  /** Failed on its last attempt. */
  FAILED,
  /** Not executed: the plan completed elsewhere, or another live process is executing it. */
  SKIPPED,
  /**
   * Removed from the queue before it ran, stopped on request while it ran (a Spark run, its application killed), or
   * abandoned by the daemon's stop (its plan stays pending for the next process).
   */
  CANCELLED;

  public boolean isFinal() {
    return this == SUCCEEDED || this == FAILED || this == SKIPPED || this == CANCELLED;
  }
}
