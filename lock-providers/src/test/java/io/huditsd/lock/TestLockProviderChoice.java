package io.huditsd.lock;

import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** Which provider the daemon takes for the one a table's writers use, and what the configuration check refuses. */
class TestLockProviderChoice {
  private static final String IN_PROCESS = "org.apache.hudi.client.transaction.lock.InProcessLockProvider";

  @Test
  void hudisProvidersAreReplacedByTheirFencedEquivalentsBehindTheMeter() {
    assertThat(MeteredLocks.daemonProvider(LockProviderCheck.ZOOKEEPER_PROVIDER, "s3a://lake/orders"))
        .isEqualTo(ZookeeperFencedLockProvider.class.getName());
    assertThat(MeteredLocks.daemonProvider(LockProviderCheck.STORAGE_PROVIDER, "file:/data/orders"))
        .isEqualTo(HadoopStorageLockProvider.class.getName());
    assertThat(MeteredLocks.daemonProvider(LockProviderCheck.STORAGE_PROVIDER, "hdfs://nn/data/orders"))
        .isEqualTo(HadoopStorageLockProvider.class.getName());
    assertThat(MeteredLocks.daemonProvider(LockProviderCheck.STORAGE_PROVIDER, "s3a://lake/orders"))
        .isEqualTo(LockProviderCheck.STORAGE_PROVIDER);
    assertThat(MeteredLocks.daemonProvider(IN_PROCESS, "file:/data/orders")).isEqualTo(IN_PROCESS);

    Map<String, String> wrapped = MeteredLocks.wrap("orders", "file:/data/orders",
        Map.of(LockProviderCheck.LOCK_PROVIDER_KEY, LockProviderCheck.ZOOKEEPER_PROVIDER), IN_PROCESS);
    assertThat(wrapped)
        .containsEntry(LockProviderCheck.LOCK_PROVIDER_KEY, MeteredLockProvider.class.getName())
        .containsEntry(MeteredLockProvider.DELEGATE_KEY, ZookeeperFencedLockProvider.class.getName())
        .containsEntry(MeteredLockProvider.TABLE_KEY, "orders");
    assertThat(MeteredLocks.wrap("orders", "file:/data/orders", Map.of(), IN_PROCESS))
        .containsEntry(MeteredLockProvider.DELEGATE_KEY, IN_PROCESS);
  }

  @Test
  void aStorageLockOnAStoreWithoutAClientOnTheClassPathIsRefused() {
    Map<String, String> storage = Map.of(LockProviderCheck.LOCK_PROVIDER_KEY, LockProviderCheck.STORAGE_PROVIDER);
    assertThat(LockProviderCheck.check("tables[0].hoodie", storage, "file:/data/orders")).isEmpty();
    assertThat(LockProviderCheck.check("tables[0].hoodie", storage, "hdfs://nn/data/orders")).isEmpty();
    assertThat(LockProviderCheck.check("tables[0].hoodie", storage, "s3a://lake/orders")).containsExactly(
        "tables[0].hoodie: " + LockProviderCheck.STORAGE_PROVIDER
            + " needs org.apache.hudi.aws.transaction.lock.S3StorageLockClient for s3a://lake/orders, which is not"
            + " on the class path");
    assertThat(LockProviderCheck.check("tables[0].hoodie", Map.of(LockProviderCheck.LOCK_PROVIDER_KEY,
        HadoopStorageLockProvider.class.getName()), "s3a://lake/orders")).containsExactly(
        "tables[0].hoodie: io.huditsd.lock.HadoopStorageLockProvider supports file and hdfs tables only, not"
            + " s3a://lake/orders");
    assertThat(LockProviderCheck.check("tables[0].hoodie", Map.of(LockProviderCheck.LOCK_PROVIDER_KEY,
        LockProviderCheck.ZOOKEEPER_PROVIDER), "file:/data/orders")).containsExactly(
        "tables[0].hoodie: hoodie.write.lock.zookeeper.url is required with " + LockProviderCheck.ZOOKEEPER_PROVIDER,
        "tables[0].hoodie: hoodie.write.lock.zookeeper.base_path is required with "
            + LockProviderCheck.ZOOKEEPER_PROVIDER);
  }
}
