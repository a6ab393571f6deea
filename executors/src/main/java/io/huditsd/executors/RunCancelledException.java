package io.huditsd.executors;

/**
 * The run was stopped on request while it executed (a Spark run whose application was killed through
 * {@code DELETE /runs/{runId}}): it ends {@code CANCELLED}, is not retried, and the plan stays pending for its next
 * attempt, which rolls it back and executes it.
 */
public class RunCancelledException extends RuntimeException {
  public RunCancelledException(String message) {
    super(message);
  }
}
