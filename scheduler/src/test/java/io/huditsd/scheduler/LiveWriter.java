package io.huditsd.scheduler;

import io.huditsd.executors.LocalTables;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.apache.hadoop.conf.Configuration;
import org.apache.hudi.client.HoodieJavaWriteClient;
import org.apache.hudi.client.WriteStatus;
import org.apache.hudi.client.common.HoodieJavaEngineContext;
import org.apache.hudi.common.engine.EngineType;
import org.apache.hudi.common.model.DefaultHoodieRecordPayload;
import org.apache.hudi.common.model.HoodieAvroPayload;
import org.apache.hudi.common.model.HoodieAvroRecord;
import org.apache.hudi.common.model.HoodieKey;
import org.apache.hudi.common.model.HoodieRecord;
import org.apache.hudi.config.HoodieWriteConfig;
import org.apache.hudi.storage.hadoop.HadoopStorageConfiguration;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;

/**
 * A writer of a {@link LocalTables} table as Hudi's documentation asks writers to run while an index is built
 * asynchronously: Hudi's Java write client, optimistic concurrency with the same lock as the daemon
 * (the daemon's default storage lock, {@code HadoopStorageLockProvider}), LAZY rollback, the metadata table on, the index enable flags on with
 * {@code hoodie.metadata.index.async=true}. It keeps the rows it wrote as the expected model.
 */
final class LiveWriter implements AutoCloseable {
  /** A row as written: partition and the two stats columns. */
  record Row(String region, long ts, long amount) {
  }

  private final HoodieWriteConfig config;
  private HoodieJavaWriteClient<HoodieAvroPayload> client;
  private final Map<String, Row> expected = new TreeMap<>();
  private final List<String> failedCommits = new java.util.concurrent.CopyOnWriteArrayList<>();

  LiveWriter(String basePath, String tableName, Map<String, String> indexKeys) {
    Properties props = new Properties();
    props.put("hoodie.table.name", tableName);
    props.put("hoodie.datasource.write.recordkey.field", "id");
    props.put("hoodie.datasource.write.partitionpath.field", "region");
    props.put("hoodie.datasource.write.precombine.field", "ts");
    props.put("hoodie.datasource.write.keygenerator.class", "org.apache.hudi.keygen.SimpleKeyGenerator");
    props.put("hoodie.write.record.merge.mode", "EVENT_TIME_ORDERING");
    props.put("hoodie.avro.schema", LocalTables.SCHEMA.toString());
    props.put("hoodie.write.concurrency.mode", "OPTIMISTIC_CONCURRENCY_CONTROL");
    props.put("hoodie.cleaner.policy.failed.writes", "LAZY");
    props.put("hoodie.write.lock.provider", "io.huditsd.lock.HadoopStorageLockProvider");
    props.put("hoodie.embed.timeline.server", "false");
    props.put("hoodie.write.markers.type", "DIRECT");
    props.put("hoodie.write.auto.upgrade", "false");
    props.put("hoodie.index.type", "SIMPLE");
    props.put("hoodie.clean.automatic", "false");
    props.put("hoodie.archive.automatic", "false");
    props.put("hoodie.compact.inline", "false");
    props.put("hoodie.clustering.inline", "false");
    props.put("hoodie.parquet.small.file.limit", "0");
    props.put("hoodie.upsert.shuffle.parallelism", "2");
    props.put("hoodie.insert.shuffle.parallelism", "2");
    props.put("hoodie.metadata.enable", "true");
    props.put("hoodie.metadata.index.async", "true");
    // The daemon's heartbeat settings in the test: a failed commit's heartbeat expires seconds after its client closed.
    props.put("hoodie.client.heartbeat.interval_in_ms", "5000");
    props.put("hoodie.client.heartbeat.tolerable.misses", "2");
    props.putAll(indexKeys);
    config = HoodieWriteConfig.newBuilder()
        .withEngineType(EngineType.JAVA)
        .withPath(basePath)
        .withProps(props)
        .build();
    client = newClient();
  }

  private HoodieJavaWriteClient<HoodieAvroPayload> newClient() {
    return new HoodieJavaWriteClient<>(
        new HoodieJavaEngineContext(new HadoopStorageConfiguration(new Configuration())), config);
  }

  /** Updates {@code updates} known rows (spread over the ids) and inserts ids {@code firstNewId..+inserts}. */
  String upsert(int batch, int updates, int firstNewId, int inserts) {
    List<HoodieRecord<HoodieAvroPayload>> records = new ArrayList<>();
    Map<String, Row> written = new TreeMap<>();
    List<String> known = new ArrayList<>(expected.keySet());
    for (int i = 0; i < updates && !known.isEmpty(); i++) {
      String id = known.get((batch * 31 + i * 17) % known.size());
      written.put(id, new Row(expected.get(id).region(), batch, batch * 1000L + i));
    }
    for (int i = firstNewId; i < firstNewId + inserts; i++) {
      String id = String.format("id-%06d", i);
      written.put(id, new Row(LocalTables.REGIONS.get(i % LocalTables.REGIONS.size()), batch, -i));
    }
    for (int attempt = 1; ; attempt++) {
      // Hudi deflates the payloads it wrote: a retry needs records of its own.
      records.clear();
      written.forEach((id, row) -> records.add(record(id, row)));
      String instant = "(not started)";
      try {
        // Starting can fail too: Hudi rewrites hoodie.properties by deleting and writing it, and a reader in between
        // finds no table.
        instant = client.startCommit();
        List<WriteStatus> statuses = client.upsert(records, instant);
        if (statuses.stream().anyMatch(WriteStatus::hasErrors)) {
          throw new IllegalStateException("write errors in commit " + instant);
        }
        client.commit(instant, statuses);
        expected.putAll(written);
        return instant;
      } catch (RuntimeException e) {
        // A batch whose commit fails is retried by a new client, as a writer job that failed is restarted: the old
        // client's heartbeats stop, the failed instant is rolled back by Hudi (LAZY policy). Every failure is kept
        // for the test to report.
        failedCommits.add(instant + ": " + rootMessage(e));
        client.close();
        if (attempt == 8) {
          throw e;
        }
        // A restarted job comes back after a pause; without one, a loaded machine can retry five times inside the
        // few milliseconds the indexer's rewrite of hoodie.properties leaves the table unreadable.
        pause(Duration.ofMillis(100L * attempt));
        client = newClient();
      }
    }
  }

  private static void pause(Duration duration) {
    try {
      Thread.sleep(duration.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted between commit attempts", e);
    }
  }

  /** Commits that failed and were retried, with the root cause. */
  List<String> failedCommits() {
    return List.copyOf(failedCommits);
  }

  private static String rootMessage(Throwable e) {
    Throwable root = e;
    while (root.getCause() != null) {
      root = root.getCause();
    }
    return root.getClass().getSimpleName() + ": " + root.getMessage();
  }

  Map<String, Row> expected() {
    return Map.copyOf(expected);
  }

  @SuppressWarnings({"unchecked", "rawtypes"})
  private static HoodieRecord<HoodieAvroPayload> record(String id, Row row) {
    GenericRecord value = new GenericData.Record(LocalTables.SCHEMA);
    value.put("id", id);
    value.put("region", row.region());
    value.put("ts", row.ts());
    value.put("amount", row.amount());
    return (HoodieRecord) new HoodieAvroRecord<>(new HoodieKey(id, row.region()),
        new DefaultHoodieRecordPayload(value, row.ts()));
  }

  @Override
  public void close() {
    client.close();
  }
}
