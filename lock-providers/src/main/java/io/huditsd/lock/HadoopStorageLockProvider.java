package io.huditsd.lock;

import org.apache.hadoop.conf.Configuration;
import org.apache.hudi.client.transaction.lock.StorageBasedLockProviderBridge;
import org.apache.hudi.client.transaction.lock.metrics.HoodieLockMetrics;
import org.apache.hudi.client.transaction.lock.models.LockGetResult;
import org.apache.hudi.client.transaction.lock.models.StorageLockFile;
import org.apache.hudi.common.config.LockConfiguration;
import org.apache.hudi.common.util.Option;
import org.apache.hudi.common.util.collection.Pair;
import org.apache.hudi.config.StorageBasedLockConfig;
import org.apache.hudi.exception.HoodieLockException;
import org.apache.hudi.storage.StorageConfiguration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Hudi's storage-based table lock ({@code StorageBasedLockProvider}: a lease in {@code .hoodie/.locks}, renewed by a
 * heartbeat, taken over by another process only once it expired) on {@code file} and {@code hdfs} tables, through
 * {@link HadoopStorageLockClient}. Same keys as Hudi's: {@code hoodie.write.lock.storage.validity.timeout.secs}
 * (300), {@code hoodie.write.lock.storage.renew.interval.secs} (30). Writers use this class too (Hudi's own
 * provider has no client for these schemes and refuses them).
 *
 * <p>Fencing: before a write under the lock, {@link #checkStillHeld} reads the lock file again; the write is refused
 * unless this provider is still its owner, it is not marked expired, and at least half the lease is left (renewals
 * keep it near full; less means they have been failing).
 */
public final class HadoopStorageLockProvider extends StorageBasedLockProviderBridge implements FencedLock {
  private static final Logger LOG = LoggerFactory.getLogger(HadoopStorageLockProvider.class);

  private final AtomicReference<HadoopStorageLockClient> client;
  private final long validityMillis;
  private volatile String lostBecause;

  public HadoopStorageLockProvider(LockConfiguration lockConfiguration, StorageConfiguration<?> storage) {
    this(lockConfiguration, storage, null);
  }

  public HadoopStorageLockProvider(LockConfiguration lockConfiguration, StorageConfiguration<?> storage,
                                   HoodieLockMetrics metrics) {
    this(lockConfiguration, hadoopConfiguration(storage), metrics, new AtomicReference<>());
  }

  private HadoopStorageLockProvider(LockConfiguration lockConfiguration, Configuration hadoop,
                                    HoodieLockMetrics metrics, AtomicReference<HadoopStorageLockClient> client) {
    super(lockConfiguration, metrics, (owner, lockFilePath, properties) -> {
      HadoopStorageLockClient created = new HadoopStorageLockClient(owner, lockFilePath, hadoop);
      client.set(created);
      return created;
    });
    this.client = client;
    this.validityMillis = TimeUnit.SECONDS.toMillis(new StorageBasedLockConfig.Builder()
        .fromProperties(lockConfiguration.getConfig()).build().getValiditySeconds());
  }

  private static Configuration hadoopConfiguration(StorageConfiguration<?> storage) {
    return storage == null ? new Configuration() : storage.unwrapCopyAs(Configuration.class);
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
      LOG.warn("Releasing storage lock {} failed after it was lost ({}): {}", location(), lostBecause, e.toString());
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
      LOG.error(message);
      throw new LockLostException(message);
    }
  }

  /** Why {@code held} can no longer be trusted, or null when it can. */
  private String lossOf(StorageLockFile held) {
    if (held.isExpired()) {
      return "it is marked expired";
    }
    Pair<LockGetResult, Option<StorageLockFile>> current = client.get().readCurrentLockFile();
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

  @Override
  public String location() {
    HadoopStorageLockClient current = client.get();
    return current == null ? "(no lock file)" : current.generationFile(0).getParent().toString();
  }
}
