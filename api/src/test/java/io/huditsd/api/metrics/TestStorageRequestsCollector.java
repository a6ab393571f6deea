package io.huditsd.api.metrics;

import io.huditsd.executors.HudiTables;
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

    // The client exposes no family without samples (simpleclient printed their HELP and TYPE lines).
    assertThat(Scrape.text(collector)).isEmpty();
  }
}
