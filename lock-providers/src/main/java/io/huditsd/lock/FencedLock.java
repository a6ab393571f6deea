package io.huditsd.lock;

/**
 * A table lock that can tell, before a write it guards, whether it is still held. A lock held through a ZooKeeper
 * session or a storage lease can be lost without the holder's doing (the session expired, the lease was not renewed
 * in time) while another process may already hold it; a holder that commits then would break the exclusion.
 */
public interface FencedLock {
  /**
   * Fails with {@link LockLostException} when this lock was acquired, is not released yet, and can no longer be
   * shown to be held. Does nothing when it is not held at all (released, or never acquired): the caller then does
   * not write under it.
   *
   * @param write what the caller is about to write, for the message
   */
  void checkStillHeld(String write);

  /** The lock's location (a znode or a lock file), for messages. */
  String location();
}
