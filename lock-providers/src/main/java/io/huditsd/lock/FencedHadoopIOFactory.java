package io.huditsd.lock;

import org.apache.hadoop.fs.FileSystem;
import org.apache.hudi.common.fs.ConsistencyGuard;
import org.apache.hudi.io.storage.hadoop.HoodieHadoopIOFactory;
import org.apache.hudi.storage.HoodieStorage;
import org.apache.hudi.storage.StoragePath;

/**
 * Hudi's Hadoop I/O factory, handing out {@link FencedHadoopStorage}: a meta client gets its storage here (with
 * Hudi's retry and consistency wrappers), not from {@code hoodie.storage.class}.
 */
public final class FencedHadoopIOFactory extends HoodieHadoopIOFactory {
  public FencedHadoopIOFactory(HoodieStorage storage) {
    super(storage);
  }

  @Override
  public HoodieStorage getStorage(StoragePath path) {
    return fenced(super.getStorage(path));
  }

  @Override
  public HoodieStorage getStorage(StoragePath path, boolean enableRetry, long maxRetryIntervalMs,
                                  int maxRetryNumbers, long initialRetryIntervalMs, String retryExceptions,
                                  ConsistencyGuard consistencyGuard) {
    return fenced(super.getStorage(path, enableRetry, maxRetryIntervalMs, maxRetryNumbers, initialRetryIntervalMs,
        retryExceptions, consistencyGuard));
  }

  private static HoodieStorage fenced(HoodieStorage storage) {
    return storage instanceof FencedHadoopStorage ? storage
        : new FencedHadoopStorage((FileSystem) storage.getFileSystem());
  }
}
