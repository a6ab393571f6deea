package io.huditsd.api.metrics;

import io.huditsd.executors.HudiTables;
import io.prometheus.client.Collector;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** Without an object store: local tables and odd paths add no series and do not fail the scrape. */
class TestStorageRequestsCollector {
  @Test
  void tablesOnLocalDiskHaveNoRequestSeries() {
    StorageRequestsCollector collector = new StorageRequestsCollector(
        () -> List.of("file:/tmp/orders", "/tmp/with space/orders", "hdfs://nn:8020/lake/t"),
        HudiTables.defaultHadoopConfiguration());

    List<Collector.MetricFamilySamples> families = collector.collect();

    assertThat(families).extracting(family -> family.name)
        .containsExactly("tsd_storage_requests", "tsd_storage_throttled", "tsd_storage_retries");
    assertThat(families).allSatisfy(family -> assertThat(family.samples).isEmpty());
  }
}
