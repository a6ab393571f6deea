package io.huditsd.lock;

import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Which provider the daemon takes for the one a table's writers use, and what the configuration check refuses. */
class TestLockProviderChoice {
  private static final String IN_PROCESS = DefaultTableLock.IN_PROCESS_PROVIDER;

  @Test
  void hudisProvidersAreReplacedByTheirFencedEquivalentsBehindTheMeter() {
    assertThat(MeteredLocks.daemonProvider(LockProviderCheck.ZOOKEEPER_PROVIDER, "s3a://lake/orders"))
        .isEqualTo(ZookeeperFencedLockProvider.class.getName());
    assertThat(MeteredLocks.daemonProvider(LockProviderCheck.STORAGE_PROVIDER, "file:/data/orders"))
        .isEqualTo(HadoopStorageLockProvider.class.getName());
    assertThat(MeteredLocks.daemonProvider(LockProviderCheck.STORAGE_PROVIDER, "hdfs://nn/data/orders"))
        .isEqualTo(HadoopStorageLockProvider.class.getName());
    assertThat(MeteredLocks.daemonProvider(LockProviderCheck.STORAGE_PROVIDER, "s3a://lake/orders"))
        .isEqualTo(S3StorageLockProvider.class.getName());
    assertThat(MeteredLocks.daemonProvider(LockProviderCheck.STORAGE_PROVIDER, "s3://lake/orders"))
        .isEqualTo(S3StorageLockProvider.class.getName());
    assertThat(MeteredLocks.daemonProvider(LockProviderCheck.STORAGE_PROVIDER, "gs://lake/orders"))
        .isEqualTo(LockProviderCheck.STORAGE_PROVIDER);
    assertThat(MeteredLocks.daemonProvider(IN_PROCESS, "file:/data/orders")).isEqualTo(IN_PROCESS);

    Map<String, String> wrapped = MeteredLocks.wrap("orders", "file:/data/orders",
        Map.of(LockProviderCheck.LOCK_PROVIDER_KEY, LockProviderCheck.ZOOKEEPER_PROVIDER));
    assertThat(wrapped)
        .containsEntry(LockProviderCheck.LOCK_PROVIDER_KEY, MeteredLockProvider.class.getName())
        .containsEntry(MeteredLockProvider.DELEGATE_KEY, ZookeeperFencedLockProvider.class.getName())
        .containsEntry(MeteredLockProvider.TABLE_KEY, "orders");
    assertThat(MeteredLocks.wrap("orders", "file:/data/orders",
        Map.of(LockProviderCheck.LOCK_PROVIDER_KEY, IN_PROCESS)))
        .containsEntry(MeteredLockProvider.DELEGATE_KEY, IN_PROCESS);
  }

  @Test
  void withNoLockConfiguredFileAndHdfsTablesTakeTheStorageLockAcrossProcesses() {
    for (String basePath : new String[] {"file:/data/orders", "/data/orders", "hdfs://nn/data/orders"}) {
      assertThat(MeteredLocks.wrap("orders", basePath, Map.of("hoodie.clean.commits.retained", "4")))
          .as("keys for %s", basePath)
          .containsEntry(LockProviderCheck.LOCK_PROVIDER_KEY, MeteredLockProvider.class.getName())
          .containsEntry(MeteredLockProvider.DELEGATE_KEY, HadoopStorageLockProvider.class.getName())
          .containsEntry("hoodie.clean.commits.retained", "4");
      assertThat(LockProviderCheck.check("tables[0].hoodie", Map.of(), basePath)).as("check of %s", basePath)
          .isEmpty();
    }
  }

  @Test
  void withNoLockConfiguredS3TablesTakeTheS3StorageLock() {
    for (String basePath : new String[] {"s3a://lake/orders", "s3://lake/orders"}) {
      assertThat(MeteredLocks.wrap("orders", basePath, Map.of()))
          .as("keys for %s", basePath)
          .containsEntry(LockProviderCheck.LOCK_PROVIDER_KEY, MeteredLockProvider.class.getName())
          .containsEntry(MeteredLockProvider.DELEGATE_KEY, S3StorageLockProvider.class.getName());
      assertThat(LockProviderCheck.check("tables[0].hoodie", Map.of(), basePath)).as("check of %s", basePath)
          .isEmpty();
    }
  }

  @Test
  void withNoLockConfiguredAStoreWithoutADaemonLockIsRefusedNamingTheKeysToSet() {
    String missing = "no table lock is configured for gs://lake/orders, and the daemon has no cross-process lock of"
        + " its own for this store (its storage locks support file, hdfs, s3 and s3a tables): set"
        + " hoodie.write.lock.provider to the lock your writers use, e.g. " + LockProviderCheck.ZOOKEEPER_PROVIDER
        + " with hoodie.write.lock.zookeeper.url and hoodie.write.lock.zookeeper.base_path";
    assertThat(LockProviderCheck.check("tables[0].hoodie", Map.of(), "gs://lake/orders"))
        .containsExactly("tables[0].hoodie: " + missing);
    assertThatThrownBy(() -> MeteredLocks.wrap("orders", "gs://lake/orders", Map.of()))
        .isInstanceOf(DefaultTableLock.NoTableLockException.class)
        .hasMessage(missing);
    assertThat(LockProviderCheck.check("tables[0].hoodie", Map.of(
        LockProviderCheck.LOCK_PROVIDER_KEY, LockProviderCheck.ZOOKEEPER_PROVIDER,
        "hoodie.write.lock.zookeeper.url", "zk1", "hoodie.write.lock.zookeeper.base_path", "/hudi"),
        "gs://lake/orders")).isEmpty();
  }

  @Test
  void anExplicitInProcessLockIsAllowedWithAWarning() {
    Map<String, String> inProcess = Map.of(LockProviderCheck.LOCK_PROVIDER_KEY, IN_PROCESS);
    assertThat(LockProviderCheck.check("tables[0].hoodie", inProcess, "file:/data/orders")).isEmpty();
    assertThat(LockProviderCheck.warnings("tables[0].hoodie", inProcess)).singleElement().asString()
        .startsWith("tables[0].hoodie: hoodie.write.lock.provider=" + IN_PROCESS + " excludes only threads of this"
            + " process");
    assertThat(LockProviderCheck.warnings("tables[0].hoodie", Map.of())).isEmpty();
  }

  @Test
  void singleWriterModeIsRefusedBecauseHudiThenTakesNoTableLock() {
    assertThat(LockProviderCheck.check("--hoodie-conf", Map.of("hoodie.write.concurrency.mode", "single_writer")))
        .containsExactly("--hoodie-conf: hoodie.write.concurrency.mode=single_writer takes no table lock, but the"
            + " daemon is always a second process on the table; leave the key unset (the daemon uses"
            + " OPTIMISTIC_CONCURRENCY_CONTROL) or set OPTIMISTIC_CONCURRENCY_CONTROL or"
            + " NON_BLOCKING_CONCURRENCY_CONTROL");
    assertThat(LockProviderCheck.check("--hoodie-conf",
        Map.of("hoodie.write.concurrency.mode", "OPTIMISTIC_CONCURRENCY_CONTROL"))).isEmpty();
  }

  @Test
  void aStorageLockOnAStoreWithoutAClientOnTheClassPathIsRefused() {
    Map<String, String> storage = Map.of(LockProviderCheck.LOCK_PROVIDER_KEY, LockProviderCheck.STORAGE_PROVIDER);
    assertThat(LockProviderCheck.check("tables[0].hoodie", storage, "file:/data/orders")).isEmpty();
    assertThat(LockProviderCheck.check("tables[0].hoodie", storage, "hdfs://nn/data/orders")).isEmpty();
    assertThat(LockProviderCheck.check("tables[0].hoodie", storage, "s3a://lake/orders")).isEmpty();
    assertThat(LockProviderCheck.check("tables[0].hoodie", storage, "gs://lake/orders")).containsExactly(
        "tables[0].hoodie: " + LockProviderCheck.STORAGE_PROVIDER
            + " needs org.apache.hudi.gcp.transaction.lock.GCSStorageLockClient for gs://lake/orders, which is not"
            + " on the class path");
    assertThat(LockProviderCheck.check("tables[0].hoodie", Map.of(LockProviderCheck.LOCK_PROVIDER_KEY,
        HadoopStorageLockProvider.class.getName()), "s3a://lake/orders")).containsExactly(
        "tables[0].hoodie: io.huditsd.lock.HadoopStorageLockProvider supports file and hdfs tables only, not"
            + " s3a://lake/orders");
    assertThat(LockProviderCheck.check("tables[0].hoodie", Map.of(LockProviderCheck.LOCK_PROVIDER_KEY,
        S3StorageLockProvider.class.getName()), "hdfs://nn/data/orders")).containsExactly(
        "tables[0].hoodie: io.huditsd.lock.S3StorageLockProvider supports s3 and s3a tables only, not"
            + " hdfs://nn/data/orders");
    assertThat(LockProviderCheck.check("tables[0].hoodie", Map.of(LockProviderCheck.LOCK_PROVIDER_KEY,
        S3StorageLockProvider.class.getName()), "s3://lake/orders")).isEmpty();
    assertThat(LockProviderCheck.check("tables[0].hoodie", Map.of(LockProviderCheck.LOCK_PROVIDER_KEY,
        LockProviderCheck.ZOOKEEPER_PROVIDER), "file:/data/orders")).containsExactly(
        "tables[0].hoodie: hoodie.write.lock.zookeeper.url is required with " + LockProviderCheck.ZOOKEEPER_PROVIDER,
        "tables[0].hoodie: hoodie.write.lock.zookeeper.base_path is required with "
            + LockProviderCheck.ZOOKEEPER_PROVIDER);
  }
}
