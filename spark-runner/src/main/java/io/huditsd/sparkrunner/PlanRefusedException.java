package io.huditsd.sparkrunner;

/**
 * The runner will not execute this plan as asked: bad props, a table without a lock provider, a service the table
 * does not have, a clustering strategy without a Spark counterpart. Nothing was written; retrying does not help.
 */
public final class PlanRefusedException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public PlanRefusedException(String message) {
    super(message);
  }
}
