package io.huditsd.api;

import io.huditsd.config.ServicedTables;
import io.huditsd.config.TsdConfiguration;
import io.huditsd.executors.HudiTables;
import io.huditsd.executors.LocalTables;
import io.huditsd.scheduler.DiscoveryMetrics;
import io.huditsd.scheduler.DiscoveryService;
import io.huditsd.scheduler.TableDiscovery;
import io.huditsd.scheduler.TableRegistry;
import io.huditsd.testing.s3.S3MockServer;
import io.huditsd.testing.s3.ThrottlingProxy;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.FileUtil;
import org.apache.hadoop.fs.Path;
import org.apache.hudi.common.model.HoodieTableType;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Discovery on an object store whose listings fail for a while (S3Mock behind a proxy answering 503 SlowDown): the
 * tables known under the root stay serviced through the failed scans, and a table deleted from the bucket goes only
 * once two complete scans no longer find it.
 */
class TestS3Discovery {
  private static final String ROOT = "s3a://lake/warehouse";

  @TempDir
  static java.nio.file.Path directory;
  private static S3MockServer s3;
  private static ThrottlingProxy proxy;
  private static Configuration hadoopConfiguration;

  @BeforeAll
  static void startS3() {
    s3 = S3MockServer.start(directory.resolve("s3"), "lake");
    proxy = ThrottlingProxy.start(s3.endpoint());
    hadoopConfiguration = HudiTables.defaultHadoopConfiguration();
    s3.s3aProperties().forEach(hadoopConfiguration::set);
    hadoopConfiguration.set("fs.s3a.bucket.lake.endpoint", proxy.endpoint());
    // A throttled listing fails at once rather than after the daemon's retries: what is tested is the scan's answer.
    hadoopConfiguration.set("fs.s3a.attempts.maximum", "1");
    hadoopConfiguration.set("fs.s3a.retry.throttle.limit", "1");
    hadoopConfiguration.set("fs.s3a.retry.limit", "1");
  }

  @AfterAll
  static void stopS3() throws IOException {
    FileSystem.closeAll();
    proxy.close();
    s3.close();
  }

  /** A COW table written locally and copied to {@code ROOT/name}. */
  private static String s3Table(String name) throws IOException {
    LocalTables local = new LocalTables();
    String written = local.create(directory.resolve(name), HoodieTableType.COPY_ON_WRITE, 9, Map.of()).basePath();
    Path target = new Path(ROOT + "/" + name);
    FileUtil.copy(FileSystem.getLocal(hadoopConfiguration), new Path(written), target.getFileSystem(hadoopConfiguration),
        target, false, hadoopConfiguration);
    return target.toString();
  }

  @Test
  void throttledListingsKeepTheKnownTablesAndADeletedTableGoesAfterTwoCompleteScans() throws IOException {
    String orders = s3Table("orders");
    String customers = s3Table("customers");
    TableRegistry registry = new TableRegistry();
    PrometheusRegistry prometheus = new PrometheusRegistry();
    DiscoveryMetrics metrics = new DiscoveryMetrics(prometheus);
    try (DiscoveryService discovery = new DiscoveryService(new TableDiscovery(hadoopConfiguration, 3), List.of(ROOT),
        new ServicedTables(new TsdConfiguration()), registry, Duration.ofMinutes(5), metrics)) {
      assertThat(discovery.scan()).isEqualTo(2);
      assertThat(registered(registry)).containsExactlyInAnyOrder(orders, customers);

      proxy.throttleNext(10_000);
      discovery.scan();
      discovery.scan();
      proxy.throttleNext(0);
      assertThat(proxy.throttled()).as("requests answered 503").isPositive();
      assertThat(registered(registry)).as("tables after two throttled scans")
          .containsExactlyInAnyOrder(orders, customers);
      assertThat(metrics.scanFailures(ROOT)).isEqualTo(2);

      new Path(customers).getFileSystem(hadoopConfiguration).delete(new Path(customers), true);
      assertThat(discovery.scan()).isEqualTo(1);
      assertThat(registered(registry)).as("after one complete scan without it")
          .containsExactlyInAnyOrder(orders, customers);
      assertThat(discovery.scan()).isEqualTo(1);
      assertThat(registered(registry)).as("after two complete scans without it").containsExactly(orders);
    }
  }

  private static Set<String> registered(TableRegistry registry) {
    return registry.all().stream().map(state -> state.table().basePath()).collect(Collectors.toSet());
  }
}
