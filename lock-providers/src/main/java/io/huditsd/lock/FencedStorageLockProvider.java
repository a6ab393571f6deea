package io.huditsd.lock;

import org.apache.hudi.client.transaction.lock.StorageBasedLockProviderBridge;
import org.apache.hudi.client.transaction.lock.StorageLockClient;
import org.apache.hudi.client.transaction.lock.metrics.HoodieLockMetrics;
import org.apache.hudi.client.transaction.lock.models.LockGetResult;
import org.apache.hudi.client.transaction.lock.models.StorageLockFile;
import org.apache.hudi.common.config.LockConfiguration;
import org.apache.hudi.common.config.TypedProperties;
import org.apache.hudi.common.util.Functions;
import org.apache.hudi.common.util.Option;
import org.apache.hudi.common.util.collection.Pair;
import org.apache.hudi.config.StorageBasedLockConfig;
import org.apache.hudi.exception.HoodieLockException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Hudi's storage-based table lock ({@code StorageBasedLockProvider}: a lease in {@code .hoodie/.locks}, renewed by a
 * heartbeat, taken over by another process only once it expired) with a lock client chosen by the subclass, and the
 * fencing the daemon adds to it: a {@link FencedLock} registered with {@link CommitFence} while held.
 *
 * <p>Fencing: before a write under the lock, {@link #checkStillHeld} reads the lock file again; the write is refused
 * unless this provider is still its owner, it is not marked expired, and at least half the lease is left (renewals
 * keep it near full; less means they have been failing).
 */
abstract class FencedStorageLockProvider extends StorageBasedLockProviderBridge implements FencedLock {
  private final Logger log = LoggerFactory.getLogger(getClass());
  private final AtomicReference<StorageLockClient> client;
  private final long validityMillis;
  private volatile String lostBecause;

  /**
   * @param clientLoader builds the lock client from the owner id, the lock file's path and the lock keys; Hudi's
   *                     provider calls it once, in its constructor
   */
  protected FencedStorageLockProvider(LockConfiguration lockConfiguration, HoodieLockMetrics metrics,
                                      Functions.Function3<String, String, TypedProperties, StorageLockClient>
                                          clientLoader) {
    this(lockConfiguration, metrics, clientLoader, new AtomicReference<>());
  }

  private FencedStorageLockProvider(LockConfiguration lockConfiguration, HoodieLockMetrics metrics,
                                    Functions.Function3<String, String, TypedProperties, StorageLockClient>
                                        clientLoader,
                                    AtomicReference<StorageLockClient> client) {
    super(lockConfiguration, metrics, (owner, lockFilePath, properties) -> {
      StorageLockClient created = clientLoader.apply(owner, lockFilePath, properties);
      client.set(created);
      return created;
    });
    this.client = client;
    this.validityMillis = TimeUnit.SECONDS.toMillis(new StorageBasedLockConfig.Builder()
        .fromProperties(lockConfiguration.getConfig()).build().getValiditySeconds());
  }

  /** The lock client Hudi's provider was built with; null only while Hudi's constructor runs. */
  protected final StorageLockClient client() {
    return client.get();
  }

  @Override
  public synchronized boolean tryLock() {
    boolean acquired = super.tryLock();
    if (acquired) {
      lostBecause = null;
      CommitFence.acquired(this);
    }
    return acquired;
  }

  @Override
  public boolean tryLock(long time, TimeUnit unit) {
    // Hudi's timed tryLock loops over tryLock(), which registers the fence.
    return super.tryLock(time, unit);
  }

  @Override
  public void unlock() {
    CommitFence.released(this);
    try {
      super.unlock();
    } catch (HoodieLockException e) {
      if (lostBecause == null) {
        throw e;
      }
      // The commit already failed for the lost lock; do not hide that failure behind this one.
      log.warn("Releasing storage lock {} failed after it was lost ({}): {}", location(), lostBecause, e.toString());
    }
  }

  @Override
  public void checkStillHeld(String write) {
    StorageLockFile held = getLock();
    if (held == null) {
      return;
    }
    String reason = lossOf(held);
    if (reason != null) {
      lostBecause = reason;
      String message = "Refusing to write " + write + ": the storage lock " + location() + " is no longer held ("
          + reason + ")";
      log.error(message);
      throw new LockLostException(message);
    }
  }

  /**
   * The lock file as the client reads it. Hudi interrupts the holding thread when a renewal fails (its heartbeat
   * manager), and the AWS SDK aborts the requests of an interrupted thread, so the read runs with the flag cleared,
   * once more if an interrupt arrived during it, and the flag is handed back to Hudi after: the verdict comes from the
   * lock file, not from the interrupt.
   */
  private Pair<LockGetResult, Option<StorageLockFile>> readUninterrupted() {
    boolean interrupted = Thread.interrupted();
    try {
      try {
        return client().readCurrentLockFile();
      } catch (RuntimeException e) {
        if (!Thread.interrupted()) {
          throw e;
        }
        interrupted = true;
        return client().readCurrentLockFile();
      }
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /** Why {@code held} can no longer be trusted, or null when it can. */
  private String lossOf(StorageLockFile held) {
    if (held.isExpired()) {
      return "it is marked expired";
    }
    Pair<LockGetResult, Option<StorageLockFile>> current;
    try {
      current = readUninterrupted();
    } catch (RuntimeException e) {
      // A client that throws on errors it cannot classify (as Hudi's S3 client does on a 403): not shown held.
      return "the lock file could not be read: " + e;
    }
    if (current.getLeft() != LockGetResult.SUCCESS) {
      return "the lock file could not be read: " + current.getLeft();
    }
    StorageLockFile file = current.getRight().get();
    if (!file.getOwner().equals(held.getOwner())) {
      return "it is owned by " + file.getOwner() + " now";
    }
    if (file.isExpired()) {
      return "the lock file is marked expired";
    }
    long left = file.getValidUntilMs() - System.currentTimeMillis();
    if (left < validityMillis / 2) {
      return "only " + left + " ms of its " + validityMillis + " ms lease left: renewals are failing";
    }
    return null;
  }
}
