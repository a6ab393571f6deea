package io.huditsd.sparkrunner;

/** The plan cannot be executed now (not pending, or held by another process's live heartbeat); nothing was written. */
public final class PlanNotExecutableException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public PlanNotExecutableException(String message) {
    super(message);
  }
}
