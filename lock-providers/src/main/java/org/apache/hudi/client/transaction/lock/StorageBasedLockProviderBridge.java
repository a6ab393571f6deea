package org.apache.hudi.client.transaction.lock;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.CommonConfigurationKeysPublic;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.util.ShutdownHookManager;
import org.apache.hudi.client.transaction.lock.metrics.HoodieLockMetrics;
import org.apache.hudi.client.transaction.lock.models.LockProviderHeartbeatManager;
import org.apache.hudi.common.config.LockConfiguration;
import org.apache.hudi.common.config.TypedProperties;
import org.apache.hudi.common.util.Functions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.UUID;
import java.util.concurrent.TimeUnit;

/**
 * Hudi's {@link StorageBasedLockProvider} with a storage lock client chosen by the subclass. Hudi 1.2.0 picks the
 * client from a fixed scheme table ({@code StorageSchemes}: s3, s3a, gs, wasb(s), abfs(s)) and has none for
 * {@code file} or {@code hdfs}; its constructor that takes a client loader is package-private, hence this class in
 * Hudi's package. Everything else (lease, renewal heartbeat, takeover only after expiry, audit) is Hudi's code.
 *
 * <p>One change to when the lock is given up at exit. Hudi's provider registers a JVM shutdown hook of its own that
 * expires a held lock and marks the provider closed. JVM hooks run all at once, so on SIGTERM that hook raced the
 * process's orderly stop: a plan committing under the lock lost it mid-commit (and its fenced commit was refused),
 * and a poll waiting for the lock met "Lock provider already closed" and retried it every few seconds until its
 * retries ran out, holding the stop up for a minute or more. This class takes Hudi's hook out and registers the same
 * release with Hadoop's {@link ShutdownHookManager} at {@link #RELEASE_PRIORITY}, which Hadoop runs after the hooks
 * above it (the daemon waits there for its own stop; Spark stops its context there) and before it closes the file
 * systems the release writes through. A provider closed before the exit takes its hook out again.
 *
 * <p>Requires Hudi's classes and this one in the same class loader (a flat class path; in Spark, both jars passed
 * the same way).
 */
public abstract class StorageBasedLockProviderBridge extends StorageBasedLockProvider {
  /** Hadoop shutdown-hook priority of the release at exit: just above the file systems' close. */
  public static final int RELEASE_PRIORITY = FileSystem.SHUTDOWN_HOOK_PRIORITY + 1;

  private static final Logger LOG = LoggerFactory.getLogger(StorageBasedLockProviderBridge.class);

  private final Runnable releaseAtExit = this::close;

  protected StorageBasedLockProviderBridge(LockConfiguration lockConfiguration, HoodieLockMetrics metrics,
                                           Functions.Function3<String, String, TypedProperties, StorageLockClient>
                                               clientLoader) {
    super(UUID.randomUUID().toString(), lockConfiguration.getConfig(), LockProviderHeartbeatManager::new,
        clientLoader, LoggerFactory.getLogger(StorageBasedLockProvider.class), metrics);
    // Hudi's own JVM hook out (its constructor threw if the JVM was already stopping), ours in.
    super.tryRemoveShutdownHook();
    try {
      ShutdownHookManager.get().addShutdownHook(releaseAtExit, RELEASE_PRIORITY, ShutdownTimeout.SECONDS,
          TimeUnit.SECONDS);
    } catch (IllegalStateException e) {
      // The exit began between the two: the lock, if this provider ever takes it, lapses with its lease.
      LOG.warn("The JVM is stopping: a storage lock taken by this provider is not released at exit");
    }
  }

  /**
   * Hadoop's {@code hadoop.service.shutdown.timeout} for a hook, read once per JVM: the two-argument
   * {@code addShutdownHook} reads it from a new {@link Configuration}, which parses Hadoop's XML resources again, at
   * every call, and every write client builds a lock provider.
   */
  private static final class ShutdownTimeout {
    static final long SECONDS = Math.max(ShutdownHookManager.TIMEOUT_MINIMUM, new Configuration().getTimeDuration(
        CommonConfigurationKeysPublic.SERVICE_SHUTDOWN_TIMEOUT,
        CommonConfigurationKeysPublic.SERVICE_SHUTDOWN_TIMEOUT_DEFAULT, TimeUnit.SECONDS));
  }

  /** Hudi's close calls this: a provider closed takes its release at exit out. */
  @Override
  void tryRemoveShutdownHook() {
    ShutdownHookManager hooks = ShutdownHookManager.get();
    if (!hooks.isShutdownInProgress()) {
      hooks.removeShutdownHook(releaseAtExit);
    }
  }
}
