package io.huditsd.api.metrics;

import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.statistics.IOStatistics;
import org.apache.hadoop.fs.statistics.IOStatisticsSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.net.URI;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * Requests to the object stores the tables live on, by operation, read at scrape time from S3A's own
 * IOStatistics of each store's file system ({@code FileSystem.get(s3a://bucket, conf)}, the cached instance Hudi's
 * meta clients and the polls use as well).
 *
 * <p>Why S3A's statistics rather than a counting layer of our own: every request the daemon's process makes through
 * S3A is in them, Hudi's reads and writes included, not only the poll's; S3A counts each HTTP request once, after
 * its SDK retries (the SDK's retries and throttled responses are counted apart, from the SDK's request metrics); and
 * wrapping Hudi's file system would mean a custom {@code fs.s3a.impl}, which writers and tools sharing the
 * configuration would then load too. Stores without IOStatistics (file, HDFS: not billed per request) are left
 * out. The lock's own requests, made with the AWS SDK directly, are counted by the lock's metrics.
 */
public final class StorageRequestsCollector implements MultiCollector {
  private static final Logger LOG = LoggerFactory.getLogger(StorageRequestsCollector.class);

  /**
   * S3A counter names (org.apache.hadoop.fs.s3a.Statistic, Hadoop 3.3.6) making up each operation: a LIST's
   * continuation pages are LISTs too, bulk deletes are one request each, multipart parts are PUTs. S3A counts one
   * per call it hands the SDK, before the SDK's own retries (those are in the retries counter).
   */
  static final Map<String, List<String>> OPERATIONS = Map.of(
      "list", List.of("object_list_request", "object_continue_list_request"),
      "head", List.of("object_metadata_request"),
      "get", List.of("action_http_get_request"),
      "put", List.of("object_put_request", "multipart_upload_part_put"),
      "delete", List.of("object_delete_request", "object_bulk_delete_request"));
  /**
   * Throttling errors (503 SlowDown): each one the SDK received, plus one more each time S3A calls again after the
   * SDK used up its attempts on them (how S3A 3.3.6 counts; measured in TestStorageRequests).
   */
  static final String THROTTLED = "store_io_throttled";
  /** Calls S3A made again after the SDK gave up on them (S3A's own retry policy). */
  static final String S3A_RETRIES = "store_io_retry";
  /** HTTP requests the SDK sent, its own retries included (from the SDK's request metrics). */
  static final String SDK_REQUESTS = "store_io_request";
  /**
   * Requests S3A handed to the SDK, each once (S3A's audit hook runs once per request, not per SDK retry; auditing
   * is on by default in 3.3.6, {@code fs.s3a.audit.enabled}). The SDK's retries are the difference: Hadoop 3.3.6
   * counts them nowhere else ({@code store_io_retry} stays 0 while the SDK retries a 503; measured on S3Mock).
   */
  static final String S3A_REQUESTS = "audit_request_execution";

  private final Supplier<? extends Collection<String>> basePaths;
  private final Configuration hadoopConfiguration;
  /** Stores seen so far: their counters stay exported after their last table is removed. */
  private final Set<URI> stores = ConcurrentHashMap.newKeySet();

  /**
   * @param basePaths the base paths of the tables now registered
   * @param hadoopConfiguration the configuration the tables' file systems were made with
   */
  public StorageRequestsCollector(Supplier<? extends Collection<String>> basePaths,
                                  Configuration hadoopConfiguration) {
    this.basePaths = Objects.requireNonNull(basePaths, "basePaths is null");
    this.hadoopConfiguration = Objects.requireNonNull(hadoopConfiguration, "hadoopConfiguration is null");
  }

  @Override
  public MetricSnapshots collect() {
    for (String basePath : basePaths.get()) {
      // Hadoop's parsing, as the tables' own: a base path java.net.URI would refuse must not fail the scrape.
      URI uri = new Path(basePath).toUri();
      if (uri.getScheme() != null && uri.getScheme().startsWith("s3") && uri.getAuthority() != null) {
        stores.add(URI.create(uri.getScheme() + "://" + uri.getAuthority() + "/"));
      }
    }
    LabelledFamily requests = LabelledFamily.counter("tsd_storage_requests",
        "Requests to the object store the tables live on, by operation (S3A's statistics; after retries)",
        List.of("store", "op"));
    LabelledFamily throttled = LabelledFamily.counter("tsd_storage_throttled",
        "Requests the object store answered with a throttling error (503 SlowDown)", List.of("store"));
    LabelledFamily retries = LabelledFamily.counter("tsd_storage_retries",
        "Requests sent again after a failure, by the AWS SDK or by S3A (throttling included)", List.of("store"));
    for (URI store : new TreeSet<>(stores)) {
      IOStatistics statistics = statistics(store);
      if (statistics == null) {
        continue;
      }
      Map<String, Long> counters = statistics.counters();
      String label = store.getScheme() + "://" + store.getAuthority();
      OPERATIONS.forEach((op, names) -> requests.add(List.of(label, op), sum(counters, names)));
      throttled.add(List.of(label), sum(counters, List.of(THROTTLED)));
      retries.add(List.of(label), retries(counters));
    }
    return MetricSnapshots.of(requests.snapshot(), throttled.snapshot(), retries.snapshot());
  }

  private IOStatistics statistics(URI store) {
    try {
      return IOStatisticsSupport.retrieveIOStatistics(FileSystem.get(store, hadoopConfiguration));
    } catch (IOException | RuntimeException e) {
      LOG.debug("No request statistics for {}", store, e);
      return null;
    }
  }

  private static double retries(Map<String, Long> counters) {
    long handedToSdk = counters.getOrDefault(S3A_REQUESTS, 0L);
    long sdkRetries = handedToSdk == 0 ? 0 : Math.max(0, counters.getOrDefault(SDK_REQUESTS, 0L) - handedToSdk);
    return counters.getOrDefault(S3A_RETRIES, 0L) + sdkRetries;
  }

  private static double sum(Map<String, Long> counters, List<String> names) {
    long sum = 0;
    for (String name : names) {
      sum += counters.getOrDefault(name, 0L);
    }
    return sum;
  }
}
