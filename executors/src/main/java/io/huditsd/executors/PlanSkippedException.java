package io.huditsd.executors;

/**
 * The work should not run, and that is not a failure: the plan completed elsewhere, or another live process holds
 * its heartbeat.
 */
public class PlanSkippedException extends RuntimeException {
  public PlanSkippedException(String message) {
    super(message);
  }
}
