package io.huditsd.lock;

import com.amazonaws.services.s3.model.S3ObjectSummary;
import io.huditsd.testing.s3.S3MockServer;
import io.huditsd.testing.s3.ThrottlingProxy;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import org.apache.hadoop.conf.Configuration;
import org.apache.hudi.client.transaction.lock.models.LockUpsertResult;
import org.apache.hudi.client.transaction.lock.models.StorageLockData;
import org.apache.hudi.common.util.Option;
import org.apache.hudi.storage.hadoop.HadoopStorageConfiguration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The S3 storage lock relies on the store refusing a second {@code If-None-Match: *} create and a write with a wrong
 * {@code If-Match}. Against S3Mock (which honours both) the probe says so and the lock is taken; through a proxy that
 * drops the two headers (a store that ignores them, as S3Proxy 2.6 on its filesystem backend does) the lock refuses,
 * naming the ZooKeeper lock to configure, and a probe that failed is tried again rather than kept.
 */
class TestS3ConditionalWrites {
  private static final String HONOURS = "honours";
  private static final String IGNORES = "ignores";
  private static final String FLAKY = "flaky";
  private static final String IGNORED = " ignores If-None-Match/If-Match conditional writes (it answered 200 to a"
      + " second create with If-None-Match: *; it answered 200 to a write with an If-Match that names no version of"
      + " the object), so ";
  private static final String ZOOKEEPER_ADVICE = " cannot exclude other writers: two processes that both find it free"
      + " both take it. Configure a ZooKeeper lock for this table, the one its writers use:"
      + " hoodie.write.lock.provider=org.apache.hudi.client.transaction.lock.ZookeeperBasedLockProvider with"
      + " hoodie.write.lock.zookeeper.url and hoodie.write.lock.zookeeper.base_path";

  private static S3MockServer server;
  private static ThrottlingProxy ignoring;
  private static ThrottlingProxy flaky;
  private static Configuration hadoop;

  @BeforeAll
  static void startS3() {
    server = S3MockServer.start(Path.of("target", "s3-conditional-writes").toAbsolutePath(), HONOURS, IGNORES, FLAKY);
    ignoring = ThrottlingProxy.start(server.endpoint());
    ignoring.dropConditionalHeaders(true);
    flaky = ThrottlingProxy.start(server.endpoint());
    hadoop = new Configuration();
    server.s3aProperties().forEach(hadoop::set);
    hadoop.set("fs.s3a.bucket." + IGNORES + ".endpoint", ignoring.endpoint());
    hadoop.set("fs.s3a.bucket." + FLAKY + ".endpoint", flaky.endpoint());
  }

  @AfterAll
  static void stopS3() {
    if (flaky != null) {
      flaky.close();
    }
    if (ignoring != null) {
      ignoring.close();
    }
    if (server != null) {
      server.close();
    }
  }

  /** A table per call (and per run: S3Mock keeps objects across runs under target/). */
  private static String table(String bucket, String name) {
    return "s3a://" + bucket + "/" + name + "-" + System.nanoTime();
  }

  private static S3StorageLockProvider provider(String basePath) {
    return new S3StorageLockProvider(TestHadoopStorageLocks.configuration(basePath, "300", "30"),
        new HadoopStorageConfiguration(hadoop));
  }

  @Test
  void aStoreThatHonoursConditionalWritesIsProbedOnceAndTheLockIsTaken() throws Exception {
    String first = table(HONOURS, "orders");
    S3StorageLockProvider provider = provider(first);
    try {
      assertThat(provider.tryLock()).isTrue();
      provider.checkStillHeld("the commit");
      provider.unlock();
    } finally {
      provider.close();
    }
    ConditionalWriteProbe.Store store = new ConditionalWriteProbe.Store(server.endpoint(), HONOURS);
    assertThat(ConditionalWriteProbe.results()).containsEntry(store,
        new ConditionalWriteProbe.Result(ConditionalWriteProbe.Verdict.HONOURED, ""));
    assertThat(lockFolder(first)).as("the probe object is deleted").containsExactly("table_lock.json");
    assertThat(gauge(HONOURS)).isEqualTo(Map.of("honoured", 1.0, "ignored", 0.0, "unknown", 0.0));

    // Another table in the bucket: the verdict is kept, no second probe.
    String second = table(HONOURS, "customers");
    assertThat(MeteredLocks.wrap("customers", second, Map.of(), hadoop))
        .containsEntry(MeteredLockProvider.DELEGATE_KEY, S3StorageLockProvider.class.getName());
    assertThat(lockFolder(second)).as("nothing written for the second table").isEmpty();
  }

  /** What the probe guards against: through the proxy, two clients that both found the lock free both create it. */
  @Test
  void throughTheProxyTwoCreatesOfTheLockBothSucceed() {
    String lockFile = table(IGNORES, "premise") + "/.hoodie/.locks/table_lock.json";
    S3StorageLockClient first = new S3StorageLockClient("first", lockFile, new java.util.Properties(), hadoop);
    S3StorageLockClient second = new S3StorageLockClient("second", lockFile, new java.util.Properties(), hadoop);
    try {
      assertThat(first.tryUpsertLockFile(new StorageLockData(false, 1_000, "first"), Option.empty()).getLeft())
          .isEqualTo(LockUpsertResult.SUCCESS);
      assertThat(second.tryUpsertLockFile(new StorageLockData(false, 1_000, "second"), Option.empty()).getLeft())
          .as("a second create, If-None-Match dropped").isEqualTo(LockUpsertResult.SUCCESS);
    } finally {
      first.close();
      second.close();
    }
  }

  @Test
  void aStoreThatIgnoresConditionalWritesIsRefusedNamingTheZookeeperLock() throws Exception {
    String basePath = table(IGNORES, "orders");
    S3StorageLockProvider provider = provider(basePath);
    String store = "the store at " + ignoring.endpoint() + " bucket " + IGNORES;
    String lockKey = basePath.substring(("s3a://" + IGNORES + "/").length()) + "/.hoodie/.locks/";
    try {
      assertThatThrownBy(provider::tryLock)
          .isInstanceOf(DefaultTableLock.NoTableLockException.class)
          .hasMessage(store + IGNORED + "the S3 storage lock s3://" + IGNORES + "/" + lockKey + "table_lock.json"
              + ZOOKEEPER_ADVICE);
    } finally {
      provider.close();
    }
    assertThat(lockFolder(basePath)).as("no lock taken, the probe object deleted").isEmpty();
    assertThat(gauge(IGNORES)).isEqualTo(Map.of("honoured", 0.0, "ignored", 1.0, "unknown", 0.0));

    // The daemon refuses a table whose lock this is when it builds the table's write config, before any plan.
    String other = table(IGNORES, "customers");
    long forwarded = ignoring.forwarded();
    assertThatThrownBy(() -> MeteredLocks.wrap("customers", other, Map.of(), hadoop))
        .isInstanceOf(DefaultTableLock.NoTableLockException.class)
        .hasMessage(store + IGNORED + "the S3 storage lock of " + other + ZOOKEEPER_ADVICE);
    assertThat(ignoring.forwarded()).as("the verdict is kept: no second probe").isEqualTo(forwarded);
    // Configured by name (Hudi's storage lock) it is the same lock, refused the same way.
    assertThatThrownBy(() -> MeteredLocks.wrap("customers", other,
        Map.of(LockProviderCheck.LOCK_PROVIDER_KEY, LockProviderCheck.STORAGE_PROVIDER), hadoop))
        .isInstanceOf(DefaultTableLock.NoTableLockException.class);
    // A ZooKeeper lock on the same table is not the storage lock's business.
    assertThat(MeteredLocks.wrap("customers", other, Map.of(
        LockProviderCheck.LOCK_PROVIDER_KEY, LockProviderCheck.ZOOKEEPER_PROVIDER,
        "hoodie.write.lock.zookeeper.url", "zk1", "hoodie.write.lock.zookeeper.base_path", "/hudi"), hadoop))
        .containsEntry(MeteredLockProvider.DELEGATE_KEY, ZookeeperFencedLockProvider.class.getName());
  }

  /** A probe that failed is no verdict: the lock is not taken, and the next use probes again. */
  @Test
  void aFailedProbeIsNotKeptAndRunsAgainAtTheNextUse() {
    String basePath = table(FLAKY, "orders");
    S3StorageLockProvider provider = provider(basePath);
    try {
      flaky.throttleFraction(1);
      try {
        assertThat(provider.tryLock()).as("the store answers 503 to everything").isFalse();
        assertThatThrownBy(() -> MeteredLocks.wrap("orders", basePath, Map.of(), hadoop))
            .isInstanceOf(IllegalStateException.class)
            .isNotInstanceOf(DefaultTableLock.NoTableLockException.class)
            .hasMessageStartingWith("Not taking the S3 storage lock of " + basePath + ": cannot tell whether the store"
                + " at " + flaky.endpoint() + " bucket " + FLAKY + " honours the conditional writes (If-None-Match,"
                + " If-Match) the lock relies on (the create of probe object " + FLAKY + "/")
            .hasMessageEndingWith(" was answered 503 SlowDown); probing again at the next use");
        assertThat(gauge(FLAKY)).isEqualTo(Map.of("honoured", 0.0, "ignored", 0.0, "unknown", 1.0));
      } finally {
        flaky.throttleFraction(0);
      }
      assertThat(provider.tryLock()).as("the store answers again").isTrue();
      provider.unlock();
      assertThat(gauge(FLAKY)).isEqualTo(Map.of("honoured", 1.0, "ignored", 0.0, "unknown", 0.0));
    } finally {
      provider.close();
    }
  }

  /** The names of the objects in the table's lock folder. */
  private static List<String> lockFolder(String basePath) throws Exception {
    String bucket = basePath.substring("s3a://".length(), basePath.indexOf('/', "s3a://".length()));
    String prefix = basePath.substring(("s3a://" + bucket + "/").length()) + "/.hoodie/.locks/";
    Configuration direct = new Configuration(hadoop);
    direct.set("fs.s3a.bucket." + bucket + ".endpoint", server.endpoint());
    try (S3Connection connection = S3Connection.open(bucket, direct)) {
      return connection.s3().listObjectsV2(bucket, prefix).getObjectSummaries().stream()
          .map(S3ObjectSummary::getKey)
          .map(key -> key.substring(prefix.length()))
          .toList();
    }
  }

  /** The {@code tsd_s3_conditional_writes} samples of {@code bucket}, by verdict. */
  private static Map<String, Double> gauge(String bucket) {
    Map<String, Double> samples = new TreeMap<>();
    for (GaugeSnapshot.GaugeDataPointSnapshot point : LockMetrics.S3_CONDITIONAL_WRITES.collect().getDataPoints()) {
      if (point.getLabels().get("bucket").equals(bucket)) {
        samples.put(point.getLabels().get("verdict"), point.getValue());
      }
    }
    return samples;
  }
}
