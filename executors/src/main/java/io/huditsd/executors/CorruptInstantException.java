package io.huditsd.executors;

/**
 * A table has an instant file that Hudi cannot read: the table is not serviced until the file is repaired. The
 * message names the table, the file's full path and what is wrong with it, and is shown as is.
 */
public class CorruptInstantException extends RuntimeException {
  public CorruptInstantException(String message) {
    super(message);
  }
}
