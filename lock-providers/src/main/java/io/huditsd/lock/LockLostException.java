package io.huditsd.lock;

import org.apache.hudi.exception.HoodieLockException;

/**
 * The lock a write was to happen under is no longer held: the write is refused. Hudi's transaction then fails, the
 * instant stays inflight, and the next attempt (under a lock held anew) rolls it back or redoes it.
 */
public final class LockLostException extends HoodieLockException {
  public LockLostException(String message) {
    super(message);
  }

  public LockLostException(String message, Throwable cause) {
    super(message, cause);
  }
}
