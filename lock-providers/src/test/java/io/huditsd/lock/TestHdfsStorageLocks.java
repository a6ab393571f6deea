package io.huditsd.lock;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.apache.hudi.client.transaction.lock.models.LockUpsertResult;
import org.apache.hudi.client.transaction.lock.models.StorageLockData;
import org.apache.hudi.client.transaction.lock.models.StorageLockFile;
import org.apache.hudi.common.util.Option;
import org.apache.hudi.storage.hadoop.HadoopStorageConfiguration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The storage lock on HDFS (Hadoop's MiniDFSCluster: a real NameNode and DataNode in this JVM), where a generation
 * is published by a rename that HDFS refuses when the target exists.
 */
class TestHdfsStorageLocks {
  private static MiniDFSCluster cluster;
  private static Configuration configuration;

  @BeforeAll
  static void startHdfs() throws Exception {
    configuration = new Configuration();
    configuration.set(MiniDFSCluster.HDFS_MINIDFS_BASEDIR,
        Path.of("target", "minidfs").toAbsolutePath().toString());
    cluster = new MiniDFSCluster.Builder(configuration).numDataNodes(1).build();
    cluster.waitActive();
  }

  @AfterAll
  static void stopHdfs() {
    if (cluster != null) {
      cluster.shutdown(true);
    }
  }

  private static String basePath(String table) throws java.io.IOException {
    return cluster.getFileSystem().getUri() + "/warehouse/" + table;
  }

  @Test
  void generationsAreAConditionalWriteOnHdfs() throws Exception {
    String lockFile = basePath("orders") + "/.hoodie/.locks/table_lock.json";
    HadoopStorageLockClient first = new HadoopStorageLockClient("first", lockFile, configuration);
    HadoopStorageLockClient second = new HadoopStorageLockClient("second", lockFile, configuration);

    StorageLockFile created = first.tryUpsertLockFile(new StorageLockData(false, 1_000, "first"), Option.empty())
        .getRight().get();
    assertThat(second.tryUpsertLockFile(new StorageLockData(false, 1_000, "second"), Option.empty()).getLeft())
        .as("a second create-if-absent").isEqualTo(LockUpsertResult.ACQUIRED_BY_OTHERS);
    assertThat(second.tryUpsertLockFile(new StorageLockData(false, 2_000, "second"), Option.of(created)).getLeft())
        .isEqualTo(LockUpsertResult.SUCCESS);
    assertThat(first.tryUpsertLockFile(new StorageLockData(false, 3_000, "first"), Option.of(created)).getLeft())
        .as("a write from a version that is no longer current").isEqualTo(LockUpsertResult.ACQUIRED_BY_OTHERS);
    StorageLockFile current = first.readCurrentLockFile().getRight().get();
    assertThat(current.getOwner()).isEqualTo("second");
    assertThat(current.getValidUntilMs()).isEqualTo(2_000);
  }

  @Test
  void twoProvidersExcludeEachOtherOnHdfs() throws Exception {
    HadoopStorageConfiguration storage = new HadoopStorageConfiguration(configuration);
    HadoopStorageLockProvider first = new HadoopStorageLockProvider(
        TestHadoopStorageLocks.configuration(basePath("events"), "10", "1"), storage);
    HadoopStorageLockProvider second = new HadoopStorageLockProvider(
        TestHadoopStorageLocks.configuration(basePath("events"), "10", "1"), storage);
    try {
      assertThat(first.tryLock(5, TimeUnit.SECONDS)).isTrue();
      assertThat(second.tryLock(1_500, TimeUnit.MILLISECONDS)).as("second while first holds").isFalse();
      first.checkStillHeld("the commit");
      first.unlock();
      assertThat(second.tryLock(5, TimeUnit.SECONDS)).as("second after first released").isTrue();
      second.unlock();
    } finally {
      first.close();
      second.close();
    }
  }
}
