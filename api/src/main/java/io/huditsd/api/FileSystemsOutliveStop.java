package io.huditsd.api;

import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.util.ShutdownHookManager;
import org.apache.hudi.client.transaction.lock.StorageBasedLockProviderBridge;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Keeps Hadoop's file systems open until the daemon has stopped. On SIGTERM Hadoop closes every cached
 * {@link FileSystem} from its own shutdown hook while Jetty's hook is still stopping the daemon (draining the worker
 * pool, finishing polls): harmless on {@code file}, but on S3A the plans and polls still running fail with
 * "FileSystem is closed" or "Connection pool shut down". Hadoop runs its hooks one after another by priority, so a
 * hook above {@link FileSystem#SHUTDOWN_HOOK_PRIORITY} that waits for {@link #stopped()} holds the close back. It
 * sits above the storage locks' release at exit too ({@link StorageBasedLockProviderBridge#RELEASE_PRIORITY}), so
 * that the plans still committing keep their table lock until the stop is done.
 */
final class FileSystemsOutliveStop {
  private static final Logger LOG = LoggerFactory.getLogger(FileSystemsOutliveStop.class);

  private final CountDownLatch stopped = new CountDownLatch(1);
  private final Duration patience;

  /** @param patience how long the close may wait: the longest the daemon's stop takes (its grace period and more) */
  FileSystemsOutliveStop(Duration patience) {
    this.patience = patience;
  }

  void install() {
    ShutdownHookManager.get().addShutdownHook(this::awaitStop, StorageBasedLockProviderBridge.RELEASE_PRIORITY + 1,
        patience.toSeconds() + 5, TimeUnit.SECONDS);
  }

  /** The daemon has stopped; Hadoop may close the file systems. */
  void stopped() {
    stopped.countDown();
  }

  private void awaitStop() {
    try {
      if (!stopped.await(patience.toMillis(), TimeUnit.MILLISECONDS)) {
        LOG.warn("The daemon had not stopped after {}; Hadoop closes the file systems now", patience);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
