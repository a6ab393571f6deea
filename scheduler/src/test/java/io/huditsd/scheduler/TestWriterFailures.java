package io.huditsd.scheduler;

import io.huditsd.config.ServicedTable;
import io.huditsd.config.WriterHeartbeat;
import io.huditsd.executors.LocalTables;
import io.huditsd.executors.clustering.HotFileGroups;
import org.apache.hudi.client.HoodieJavaWriteClient;
import org.apache.hudi.common.model.HoodieAvroPayload;
import org.apache.hudi.common.model.HoodieTableType;
import org.apache.hudi.common.util.Option;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** tsd_writer_failures_total counts writer instants rolled back, each once, and not the daemon's own rollbacks. */
class TestWriterFailures {
  private final LocalTables tables = new LocalTables();

  @TempDir
  Path directory;

  @Test
  void aRolledBackWriterCommitIsCountedOnceAndARolledBackClusteringNotAtAll() throws Exception {
    ServicedTable table = tables.create(directory.resolve("orders"), HoodieTableType.COPY_ON_WRITE, 9,
        Map.of("hoodie.clustering.inline.max.commits", "1", HotFileGroups.COMMITS_KEY, "0",
            HotFileGroups.MINUTES_KEY, "0"));
    tables.upsert(table, 0, 10, 1);
    tables.upsert(table, 10, 10, 1);
    WriterFailures failures = new WriterFailures();
    long window = WriterHeartbeat.of(table.hoodieKeys()).expiryMillis();
    failures.observe(table.id(), tables.hudiTables().metaClient(table.basePath()), window);
    double before = IngestionMetrics.writerFailures(table.id());

    try (HoodieJavaWriteClient<HoodieAvroPayload> client = tables.hudiTables().writeClient(table)) {
      // A writer that started a commit and died: its instant is rolled back.
      String failed = client.startCommit();
      client.rollback(failed);
      // The daemon's clustering that yielded to a writer is rolled back the same way.
      String clustering = client.scheduleClustering(Option.empty()).get();
      client.rollback(clustering);
    }
    failures.observe(table.id(), tables.hudiTables().metaClient(table.basePath()), window);
    failures.observe(table.id(), tables.hudiTables().metaClient(table.basePath()), window);

    assertThat(IngestionMetrics.writerFailures(table.id()) - before).isEqualTo(1);
  }
}
