package io.huditsd.executors;

import io.huditsd.config.HeartbeatSettings;
import io.huditsd.config.MetadataIndexes;
import io.huditsd.config.ServiceType;
import io.huditsd.config.ServicedTable;
import io.huditsd.config.TableIds;
import io.huditsd.config.TablePaths;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.apache.hudi.client.HoodieJavaWriteClient;
import org.apache.hudi.client.WriteStatus;
import org.apache.hudi.common.config.RecordMergeMode;
import org.apache.hudi.common.model.DefaultHoodieRecordPayload;
import org.apache.hudi.common.model.HoodieAvroPayload;
import org.apache.hudi.common.model.HoodieAvroRecord;
import org.apache.hudi.common.model.HoodieKey;
import org.apache.hudi.common.model.HoodieRecord;
import org.apache.hudi.common.model.HoodieTableType;
import org.apache.hudi.common.table.HoodieTableMetaClient;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Small real Hudi tables on local disk for tests, written through the daemon's own {@link HudiTables} (the Java
 * engine with the write config the daemon derives), as a writer sharing the table would write them.
 */
public final class LocalTables {
  public static final Schema SCHEMA = new Schema.Parser().parse("""
      {"type": "record", "name": "orders", "fields": [
        {"name": "id", "type": "string"}, {"name": "region", "type": "string"}, {"name": "ts", "type": "long"},
        {"name": "amount", "type": "long"}]}""");
  public static final List<String> REGIONS = List.of("eu", "us");
  /** Writes must not run the services under test inline, and each write makes new files (no small-file packing). */
  private static final Map<String, String> WRITER_KEYS = Map.of(
      "hoodie.clustering.inline", "false",
      "hoodie.compact.inline", "false",
      "hoodie.parquet.small.file.limit", "0",
      "hoodie.insert.shuffle.parallelism", "2",
      "hoodie.upsert.shuffle.parallelism", "2");

  private final HudiTables tables;

  public LocalTables() {
    this(new HudiTables(HudiTables.defaultHadoopConfiguration(), new HeartbeatSettings(60_000, 2)));
  }

  public LocalTables(HudiTables tables) {
    this.tables = tables;
  }

  public HudiTables hudiTables() {
    return tables;
  }

  /** Creates an empty table partitioned by {@code region}, keyed by {@code id}, ordered by {@code ts}. */
  public ServicedTable create(Path directory, HoodieTableType type, int version, Map<String, String> hoodieKeys)
      throws IOException {
    String basePath = TablePaths.normalize(directory.toString());
    HoodieTableMetaClient.newTableBuilder()
        .setTableType(type)
        .setTableName(directory.getFileName().toString())
        .setTableVersion(version)
        .setRecordKeyFields("id")
        .setPartitionFields("region")
        .setOrderingFields("ts")
        .setRecordMergeMode(RecordMergeMode.EVENT_TIME_ORDERING)
        .setPayloadClassName(DefaultHoodieRecordPayload.class.getName())
        .setKeyGeneratorClassProp("org.apache.hudi.keygen.SimpleKeyGenerator")
        .setTableCreateSchema(SCHEMA.toString())
        .initTable(tables.storageConfiguration().newInstance(), basePath);
    return new ServicedTable(TableIds.derive(basePath), basePath, Set.of(ServiceType.values()),
        Duration.ofSeconds(30), hoodieKeys, MetadataIndexes.none());
  }

  /** Upserts {@code count} rows with ids {@code firstId..}, spread over {@link #REGIONS}, in one commit. */
  public String upsert(ServicedTable table, int firstId, int count, long ts) {
    try (HoodieJavaWriteClient<HoodieAvroPayload> client = tables.writeClient(writer(table))) {
      String instant = client.startCommit();
      List<WriteStatus> statuses = client.upsert(records(firstId, count, ts), instant);
      if (statuses.stream().anyMatch(WriteStatus::hasErrors)) {
        throw new IllegalStateException("write errors in commit " + instant + " of " + table.basePath());
      }
      client.commit(instant, statuses);
      return instant;
    }
  }

  /**
   * Writes the files of an upsert and stops before committing, as a writer that died mid-commit: the instant stays
   * inflight, and its heartbeat file stays as last written (the client is closed, so nothing renews it).
   */
  public String upsertWithoutCommit(ServicedTable table, int firstId, int count, long ts) {
    try (HoodieJavaWriteClient<HoodieAvroPayload> client = tables.writeClient(writer(table))) {
      String instant = client.startCommit();
      client.upsert(records(firstId, count, ts), instant);
      return instant;
    }
  }

  /**
   * As {@link #upsertWithoutCommit}, by a writer outside Hudi's multi-writer mode (single writer, EAGER rollback of
   * failed writes, Hudi's defaults before 1.0): it keeps no heartbeat, so its instant is pending without a heartbeat
   * file, as while such a writer is mid-write. Its start rolls back every other pending writer commit.
   */
  public String upsertWithoutCommitAsSingleWriter(ServicedTable table, int firstId, int count, long ts) {
    ServicedTable singleWriter = writer(table).withHoodieKeysOverridden(Map.of(
        "hoodie.write.concurrency.mode", "SINGLE_WRITER", "hoodie.cleaner.policy.failed.writes", "EAGER"));
    try (HoodieJavaWriteClient<HoodieAvroPayload> client = tables.writeClient(singleWriter)) {
      String instant = client.startCommit();
      client.upsert(records(firstId, count, ts), instant);
      return instant;
    }
  }

  private static ServicedTable writer(ServicedTable table) {
    return table.withHoodieKeysOverridden(WRITER_KEYS);
  }

  @SuppressWarnings({"unchecked", "rawtypes"})
  private static List<HoodieRecord<HoodieAvroPayload>> records(int firstId, int count, long ts) {
    List<HoodieRecord<HoodieAvroPayload>> records = new ArrayList<>(count);
    for (int i = firstId; i < firstId + count; i++) {
      GenericRecord row = new GenericData.Record(SCHEMA);
      String region = REGIONS.get(i % REGIONS.size());
      row.put("id", "id-" + i);
      row.put("region", region);
      row.put("ts", ts);
      row.put("amount", (long) i);
      // The table merges by event time, so the payload is the one its writers use; the client's type is erased.
      records.add((HoodieRecord) new HoodieAvroRecord<>(new HoodieKey("id-" + i, region),
          new DefaultHoodieRecordPayload(row, ts)));
    }
    return records;
  }
}
