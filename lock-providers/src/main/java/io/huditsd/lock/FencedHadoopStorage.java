package io.huditsd.lock;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hudi.hadoop.fs.HoodieWrapperFileSystem;
import org.apache.hudi.storage.HoodieStorage;
import org.apache.hudi.storage.StorageConfiguration;
import org.apache.hudi.storage.StoragePath;
import org.apache.hudi.storage.hadoop.HoodieHadoopStorage;

import java.io.IOException;
import java.io.OutputStream;

/**
 * Hudi's Hadoop storage with a fence in front of timeline writes: creating, renaming or deleting a file directly in
 * {@code .hoodie} or {@code .hoodie/timeline} (instants, {@code hoodie.properties}; of the data table and of its
 * metadata table) first asks {@link CommitFence} whether the calling thread still holds the table lock it took.
 * A commit under a lost lock thus fails just before its completed instant is written, never after.
 *
 * <p>Installed for the daemon's Hadoop configuration by {@link #install}; Hudi builds a table's storage through its
 * I/O factory ({@code hoodie.io.factory.class}) and, elsewhere, from {@code hoodie.storage.class}.
 */
public final class FencedHadoopStorage extends HoodieHadoopStorage {
  public static final String STORAGE_CLASS_KEY = "hoodie.storage.class";
  public static final String IO_FACTORY_CLASS_KEY = "hoodie.io.factory.class";

  public FencedHadoopStorage(StoragePath path, StorageConfiguration<?> configuration) {
    super(path, configuration);
  }

  FencedHadoopStorage(FileSystem fileSystem) {
    super(fileSystem);
  }

  /** Makes every Hudi storage built from {@code configuration} a fenced one. */
  public static void install(Configuration configuration) {
    configuration.set(STORAGE_CLASS_KEY, FencedHadoopStorage.class.getName());
    configuration.set(IO_FACTORY_CLASS_KEY, FencedHadoopIOFactory.class.getName());
  }

  @Override
  public HoodieStorage newInstance(StoragePath path, StorageConfiguration<?> configuration) {
    return new FencedHadoopStorage(path, configuration);
  }

  @Override
  public HoodieStorage getRawStorage() {
    FileSystem fileSystem = (FileSystem) getFileSystem();
    return fileSystem instanceof HoodieWrapperFileSystem wrapper
        ? new FencedHadoopStorage(wrapper.getFileSystem()) : this;
  }

  @Override
  public OutputStream create(StoragePath path, boolean overwrite) throws IOException {
    fence("create", path);
    return super.create(path, overwrite);
  }

  @Override
  public OutputStream create(StoragePath path, boolean overwrite, Integer bufferSize, Short replication,
                             Long sizeThreshold) throws IOException {
    fence("create", path);
    return super.create(path, overwrite, bufferSize, replication, sizeThreshold);
  }

  @Override
  public boolean createNewFile(StoragePath path) throws IOException {
    fence("create", path);
    return super.createNewFile(path);
  }

  @Override
  public boolean rename(StoragePath oldPath, StoragePath newPath) throws IOException {
    fence("rename to", newPath);
    return super.rename(oldPath, newPath);
  }

  @Override
  public boolean deleteFile(StoragePath path) throws IOException {
    fence("delete", path);
    return super.deleteFile(path);
  }

  private static void fence(String operation, StoragePath path) {
    if (isTimelineFile(path)) {
      CommitFence.check(operation + " " + path);
    }
  }

  /** A file directly in {@code .hoodie} (table version 6 instants, properties) or {@code .hoodie/timeline}. */
  static boolean isTimelineFile(StoragePath path) {
    StoragePath parent = path.getParent();
    if (parent == null) {
      return false;
    }
    if (parent.getName().equals(".hoodie")) {
      return true;
    }
    StoragePath grandParent = parent.getParent();
    return parent.getName().equals("timeline") && grandParent != null && grandParent.getName().equals(".hoodie");
  }
}
