package io.huditsd.api.demo;

import io.huditsd.lock.DefaultTableLock;
import io.huditsd.lock.HadoopStorageLockProvider;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.hudi.client.HoodieJavaWriteClient;
import org.apache.hudi.client.WriteStatus;
import org.apache.hudi.client.common.HoodieJavaEngineContext;
import org.apache.hudi.common.config.RecordMergeMode;
import org.apache.hudi.common.engine.EngineType;
import org.apache.hudi.common.model.DefaultHoodieRecordPayload;
import org.apache.hudi.common.model.HoodieAvroRecord;
import org.apache.hudi.common.model.HoodieKey;
import org.apache.hudi.common.model.HoodieRecord;
import org.apache.hudi.common.model.HoodieTableType;
import org.apache.hudi.common.table.HoodieTableMetaClient;
import org.apache.hudi.config.HoodieWriteConfig;
import org.apache.hudi.storage.hadoop.HadoopStorageConfiguration;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;

/**
 * A small partitioned Hudi table written with Hudi's Java writer, as an ingestion job would write it: optimistic
 * concurrency with a lock provider, no inline table services (the daemon runs them). Used by {@code bin/tsd demo}
 * and by the tests.
 */
public final class SampleTable implements AutoCloseable {
  public static final Schema SCHEMA = new Schema.Parser().parse("""
      {"type": "record", "name": "sample", "namespace": "io.huditsd.demo", "fields": [
        {"name": "id", "type": "string"},
        {"name": "partition", "type": "string"},
        {"name": "ts", "type": "long"},
        {"name": "name", "type": "string"},
        {"name": "amount", "type": "long"},
        {"name": "_hoodie_is_deleted", "type": "boolean", "default": false}
      ]}""");

  private final HoodieJavaWriteClient<DefaultHoodieRecordPayload> client;
  private final String basePath;

  private SampleTable(String basePath, HoodieWriteConfig config, Configuration hadoopConfiguration) {
    this.basePath = basePath;
    this.client = new HoodieJavaWriteClient<>(
        new HoodieJavaEngineContext(new HadoopStorageConfiguration(hadoopConfiguration)), config);
  }

  /**
   * Creates the table if it does not exist, at {@code tableVersion}, and opens a writer on it.
   *
   * @param writerKeys extra {@code hoodie.*} keys for the writer (lock provider, file sizing, metadata)
   */
  public static SampleTable open(String basePath, String tableName, HoodieTableType type, int tableVersion,
                                 Map<String, String> writerKeys) throws IOException {
    return open(basePath, tableName, type, tableVersion, writerKeys, new Configuration());
  }

  /** As {@link #open(String, String, HoodieTableType, int, Map)} with Hadoop settings of the caller's (S3A keys). */
  public static SampleTable open(String basePath, String tableName, HoodieTableType type, int tableVersion,
                                 Map<String, String> writerKeys, Configuration hadoopConfiguration)
      throws IOException {
    HadoopStorageConfiguration storage = new HadoopStorageConfiguration(hadoopConfiguration);
    Path propertiesPath = new Path(basePath + "/.hoodie/hoodie.properties");
    if (!propertiesPath.getFileSystem(hadoopConfiguration).exists(propertiesPath)) {
      HoodieTableMetaClient.newTableBuilder()
          .setTableType(type)
          .setTableName(tableName)
          .setTableVersion(tableVersion)
          .setRecordKeyFields("id")
          .setPartitionFields("partition")
          .setOrderingFields("ts")
          .setRecordMergeMode(RecordMergeMode.EVENT_TIME_ORDERING)
          .setPayloadClassName(DefaultHoodieRecordPayload.class.getName())
          .setKeyGeneratorClassProp("org.apache.hudi.keygen.SimpleKeyGenerator")
          .setPopulateMetaFields(true)
          .initTable(storage, basePath);
    }
    Properties properties = new Properties();
    properties.put("hoodie.write.concurrency.mode", "OPTIMISTIC_CONCURRENCY_CONTROL");
    properties.put("hoodie.cleaner.policy.failed.writes", "LAZY");
    // The daemon's default lock on the table's store (file and hdfs, s3 and s3a): the writer excludes the daemon's
    // services whether they run in this JVM (bin/tsd demo) or in other processes.
    properties.put("hoodie.write.lock.provider",
        DefaultTableLock.forBasePath(basePath).orElse(HadoopStorageLockProvider.class.getName()));
    // Ingestion first: a pending clustering plan never fails this writer; the clustering yields (docs/writers.md).
    properties.put("hoodie.write.lock.conflict.resolution.strategy",
        "io.huditsd.lock.IngestionFirstConflictResolutionStrategy");
    properties.put("hoodie.embed.timeline.server", "false");
    properties.put("hoodie.write.markers.type", "DIRECT");
    properties.put("hoodie.compact.inline", "false");
    properties.put("hoodie.clustering.inline", "false");
    properties.put("hoodie.clean.automatic", "false");
    properties.put("hoodie.archive.automatic", "false");
    properties.put("hoodie.metadata.enable", "true");
    properties.put("hoodie.write.table.version", Integer.toString(tableVersion));
    properties.put("hoodie.write.auto.upgrade", "false");
    properties.put("hoodie.datasource.write.recordkey.field", "id");
    properties.put("hoodie.datasource.write.partitionpath.field", "partition");
    properties.put("hoodie.datasource.write.precombine.field", "ts");
    properties.put("hoodie.write.record.merge.mode", RecordMergeMode.EVENT_TIME_ORDERING.name());
    properties.put("hoodie.datasource.write.payload.class", DefaultHoodieRecordPayload.class.getName());
    properties.put("hoodie.insert.shuffle.parallelism", "2");
    properties.put("hoodie.upsert.shuffle.parallelism", "2");
    if (type == HoodieTableType.MERGE_ON_READ) {
      // Hudi 1.2.0's Java writer packs new keys of an upsert into small base files with the copy-on-write path,
      // which rewrites the base file without the slice's log files: updates and deletes in those logs are lost.
      // No small files on MOR, then.
      properties.put("hoodie.parquet.small.file.limit", "0");
    }
    properties.putAll(writerKeys);
    HoodieWriteConfig config = HoodieWriteConfig.newBuilder()
        .withEngineType(EngineType.JAVA)
        .withPath(basePath)
        .withSchema(SCHEMA.toString())
        .forTable(tableName)
        .withProps(properties)
        .build();
    return new SampleTable(basePath, config, hadoopConfiguration);
  }

  public String basePath() {
    return basePath;
  }

  /** Upserts {@code rows} in one commit; returns the commit's instant. */
  public String upsert(List<SampleRow> rows) {
    String instant = client.startCommit();
    List<WriteStatus> statuses = client.upsert(records(rows), instant);
    long errors = statuses.stream().filter(WriteStatus::hasErrors).count();
    if (errors > 0) {
      throw new IllegalStateException(errors + " write statuses with errors in commit " + instant + " of " + basePath);
    }
    client.commit(instant, statuses);
    return instant;
  }

  /**
   * Writes the files of an upsert of {@code rows} and returns its instant without committing: the instant stays
   * inflight with a live heartbeat, as a writer that dies mid-commit leaves it (tests kill the process next).
   */
  public String upsertWithoutCommit(List<SampleRow> rows) {
    String instant = client.startCommit();
    client.upsert(records(rows), instant);
    return instant;
  }

  /** Inserts {@code rows} in one commit (new keys only; no index lookup). */
  public String insert(List<SampleRow> rows) {
    String instant = client.startCommit();
    List<WriteStatus> statuses = client.insert(records(rows), instant);
    client.commit(instant, statuses);
    return instant;
  }

  private static List<HoodieRecord<DefaultHoodieRecordPayload>> records(List<SampleRow> rows) {
    List<HoodieRecord<DefaultHoodieRecordPayload>> records = new ArrayList<>(rows.size());
    for (SampleRow row : rows) {
      records.add(new HoodieAvroRecord<>(new HoodieKey(row.id(), row.partition()),
          new DefaultHoodieRecordPayload(toAvro(row), row.ts())));
    }
    return records;
  }

  public static GenericRecord toAvro(SampleRow row) {
    GenericRecord record = new GenericData.Record(SCHEMA);
    record.put("id", row.id());
    record.put("partition", row.partition());
    record.put("ts", row.ts());
    record.put("name", row.name());
    record.put("amount", row.amount());
    record.put("_hoodie_is_deleted", row.deleted());
    return record;
  }

  @Override
  public void close() {
    client.close();
  }
}
