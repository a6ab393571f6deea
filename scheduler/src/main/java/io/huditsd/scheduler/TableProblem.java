package io.huditsd.scheduler;

/** A table that cannot be serviced, with a message that names its path and what is wrong. */
public class TableProblem extends RuntimeException {
  public TableProblem(String message) {
    super(message);
  }

  public TableProblem(String message, Throwable cause) {
    super(message, cause);
  }
}
