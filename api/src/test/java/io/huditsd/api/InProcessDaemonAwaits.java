package io.huditsd.api;

import org.awaitility.Awaitility;

/** Awaitility settings for tests that run the daemon in their own JVM. */
public final class InProcessDaemonAwaits {
  private InProcessDaemonAwaits() {
  }

  /**
   * Hudi 1.2.0's HoodieHeartbeatClient.stop removes a heartbeat before cancelling its timer, so a tick in between
   * dies with a NullPointerException in the timer's thread (harmless: the timer is being cancelled). Awaitility
   * would fail an await on that unrelated thread's exception; the daemon runs in the test's JVM. Undo with
   * {@link Awaitility#reset()}.
   */
  public static void ignoreOtherThreadsExceptions() {
    Awaitility.doNotCatchUncaughtExceptionsByDefault();
  }
}
