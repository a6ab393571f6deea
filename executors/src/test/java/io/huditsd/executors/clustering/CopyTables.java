package io.huditsd.executors.clustering;

import io.huditsd.config.MetadataIndexes;
import io.huditsd.config.ServiceType;
import io.huditsd.config.ServicedTable;
import io.huditsd.config.TableIds;
import io.huditsd.config.TablePaths;
import io.huditsd.executors.HudiTables;
import io.huditsd.executors.LocalTables;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.apache.hadoop.conf.Configuration;
import org.apache.hudi.client.HoodieJavaWriteClient;
import org.apache.hudi.client.WriteStatus;
import org.apache.hudi.client.common.HoodieJavaEngineContext;
import org.apache.hudi.common.config.RecordMergeMode;
import org.apache.hudi.common.engine.EngineType;
import org.apache.hudi.common.model.DefaultHoodieRecordPayload;
import org.apache.hudi.common.model.HoodieAvroRecord;
import org.apache.hudi.common.model.HoodieBaseFile;
import org.apache.hudi.common.model.HoodieKey;
import org.apache.hudi.common.model.HoodieRecord;
import org.apache.hudi.common.model.HoodieTableType;
import org.apache.hudi.common.table.HoodieTableMetaClient;
import org.apache.hudi.common.table.view.HoodieTableFileSystemView;
import org.apache.hudi.config.HoodieWriteConfig;
import org.apache.parquet.avro.AvroParquetReader;
import org.apache.parquet.hadoop.ParquetReader;
import org.apache.parquet.hadoop.util.HadoopInputFile;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.stream.Stream;

/**
 * Real Hudi tables on local disk for the binary-copy tests: written by a plain Java-engine writer with the metadata
 * table and its column stats on (as a writer that owns the table would), in as many small files as commits, with a
 * schema per commit so that groups of mixed schemas can be made.
 */
final class CopyTables {
  static final Schema V1 = new Schema.Parser().parse("""
      {"type": "record", "name": "orders", "fields": [
        {"name": "id", "type": "string"}, {"name": "region", "type": "string"}, {"name": "ts", "type": "long"},
        {"name": "amount", "type": "long"}]}""");
  /** V1 with a column added later: files written before lack it. */
  static final Schema V2 = new Schema.Parser().parse("""
      {"type": "record", "name": "orders", "fields": [
        {"name": "id", "type": "string"}, {"name": "region", "type": "string"}, {"name": "ts", "type": "long"},
        {"name": "amount", "type": "long"}, {"name": "note", "type": ["null", "string"], "default": null}]}""");
  /** V1 with an int amount: promoting it to long changes the Parquet type of the column. */
  static final Schema INT_AMOUNT = new Schema.Parser().parse("""
      {"type": "record", "name": "orders", "fields": [
        {"name": "id", "type": "string"}, {"name": "region", "type": "string"}, {"name": "ts", "type": "long"},
        {"name": "amount", "type": "int"}]}""");
  static final List<String> REGIONS = List.of("eu", "us");

  private final LocalTables localTables = new LocalTables();
  private final Configuration hadoop = new Configuration();

  HudiTables hudiTables() {
    return localTables.hudiTables();
  }

  ServicedTable create(Path directory, HoodieTableType type, Schema schema, Map<String, String> daemonKeys)
      throws IOException {
    String basePath = TablePaths.normalize(directory.toString());
    HoodieTableMetaClient.newTableBuilder()
        .setTableType(type)
        .setTableName(directory.getFileName().toString())
        .setTableVersion(9)
        .setRecordKeyFields("id")
        .setPartitionFields("region")
        .setOrderingFields("ts")
        .setRecordMergeMode(RecordMergeMode.EVENT_TIME_ORDERING)
        .setPayloadClassName(DefaultHoodieRecordPayload.class.getName())
        .setKeyGeneratorClassProp("org.apache.hudi.keygen.SimpleKeyGenerator")
        .setTableCreateSchema(schema.toString())
        .initTable(hudiTables().storageConfiguration().newInstance(), basePath);
    return new ServicedTable(TableIds.derive(basePath), basePath, Set.of(ServiceType.values()),
        Duration.ofSeconds(30), daemonKeys, MetadataIndexes.none());
  }

  /**
   * A copy of a written table, as {@code cp -a} (timeline, metadata table, data files and their {@code .crc}s), under
   * {@code parent} with the template's directory name, so that a test class writes a table once and each test
   * changes a copy of its own.
   */
  ServicedTable copy(Path template, Path parent, Map<String, String> daemonKeys) throws IOException {
    Path directory = parent.resolve(template.getFileName().toString());
    try (Stream<Path> paths = Files.walk(template)) {
      for (Path path : (Iterable<Path>) paths::iterator) {
        Files.copy(path, directory.resolve(template.relativize(path).toString()),
            StandardCopyOption.COPY_ATTRIBUTES);
      }
    }
    String basePath = TablePaths.normalize(directory.toString());
    return new ServicedTable(TableIds.derive(basePath), basePath, Set.of(ServiceType.values()),
        Duration.ofSeconds(30), daemonKeys, MetadataIndexes.none());
  }

  /** Upserts rows with ids {@code firstId..firstId+count-1} (amount = id * factor) in one commit. */
  String upsert(ServicedTable table, Schema schema, int firstId, int count, long ts, long factor) {
    return upsert(table, schema, firstId, count, ts, factor, Map.of());
  }

  /** As above, with extra keys for the writer (file and row-group sizes). */
  String upsert(ServicedTable table, Schema schema, int firstId, int count, long ts, long factor,
                Map<String, String> writerKeys) {
    try (HoodieJavaWriteClient<DefaultHoodieRecordPayload> client = writer(table, schema, writerKeys)) {
      String instant = client.startCommit();
      List<WriteStatus> statuses = client.upsert(records(schema, firstId, count, ts, factor), instant);
      if (statuses.stream().anyMatch(WriteStatus::hasErrors)) {
        throw new IllegalStateException("write errors in " + instant);
      }
      client.commit(instant, statuses);
      return instant;
    }
  }

  /** Deletes the rows with ids {@code firstId..firstId+count-1} in one commit (MOR: delete blocks in the logs). */
  String delete(ServicedTable table, Schema schema, int firstId, int count) {
    try (HoodieJavaWriteClient<DefaultHoodieRecordPayload> client = writer(table, schema, Map.of())) {
      String instant = client.startCommit();
      List<HoodieKey> keys = new ArrayList<>(count);
      for (int i = firstId; i < firstId + count; i++) {
        keys.add(new HoodieKey(String.format("id-%05d", i), REGIONS.get(i % REGIONS.size())));
      }
      List<WriteStatus> statuses = client.delete(keys, instant);
      if (statuses.stream().anyMatch(WriteStatus::hasErrors)) {
        throw new IllegalStateException("delete errors in " + instant);
      }
      client.commit(instant, statuses);
      return instant;
    }
  }

  private HoodieJavaWriteClient<DefaultHoodieRecordPayload> writer(ServicedTable table, Schema schema,
                                                                   Map<String, String> writerKeys) {
    Properties properties = new Properties();
    properties.put("hoodie.write.concurrency.mode", "OPTIMISTIC_CONCURRENCY_CONTROL");
    properties.put("hoodie.cleaner.policy.failed.writes", "LAZY");
    // The daemon's default lock on local tables, so the writer and the services under test exclude each other.
    properties.put("hoodie.write.lock.provider", "io.huditsd.lock.HadoopStorageLockProvider");
    properties.put("hoodie.embed.timeline.server", "false");
    properties.put("hoodie.write.markers.type", "DIRECT");
    properties.put("hoodie.compact.inline", "false");
    properties.put("hoodie.clustering.inline", "false");
    properties.put("hoodie.clean.automatic", "false");
    properties.put("hoodie.archive.automatic", "false");
    properties.put("hoodie.metadata.enable", "true");
    properties.put("hoodie.metadata.index.column.stats.enable", "true");
    properties.put("hoodie.write.table.version", "9");
    properties.put("hoodie.write.auto.upgrade", "false");
    properties.put("hoodie.datasource.write.recordkey.field", "id");
    properties.put("hoodie.datasource.write.partitionpath.field", "region");
    properties.put("hoodie.datasource.write.precombine.field", "ts");
    properties.put("hoodie.write.record.merge.mode", RecordMergeMode.EVENT_TIME_ORDERING.name());
    properties.put("hoodie.datasource.write.payload.class", DefaultHoodieRecordPayload.class.getName());
    properties.put("hoodie.index.type", "BLOOM");
    properties.put("hoodie.parquet.small.file.limit", "0");
    properties.put("hoodie.insert.shuffle.parallelism", "1");
    properties.put("hoodie.upsert.shuffle.parallelism", "1");
    properties.putAll(writerKeys);
    HoodieWriteConfig config = HoodieWriteConfig.newBuilder()
        .withEngineType(EngineType.JAVA)
        .withPath(table.basePath())
        .withSchema(schema.toString())
        .forTable(table.basePath().substring(table.basePath().lastIndexOf('/') + 1))
        .withProps(properties)
        .build();
    return new HoodieJavaWriteClient<>(new HoodieJavaEngineContext(hudiTables().storageConfiguration().newInstance()),
        config);
  }

  @SuppressWarnings({"unchecked", "rawtypes"})
  private static List<HoodieRecord<DefaultHoodieRecordPayload>> records(Schema schema, int firstId, int count,
                                                                       long ts, long factor) {
    List<HoodieRecord<DefaultHoodieRecordPayload>> records = new ArrayList<>(count);
    for (int i = firstId; i < firstId + count; i++) {
      GenericRecord row = new GenericData.Record(schema);
      String region = REGIONS.get(i % REGIONS.size());
      row.put("id", String.format("id-%05d", i));
      row.put("region", region);
      row.put("ts", ts);
      if (schema.getField("amount").schema().getType() == Schema.Type.INT) {
        row.put("amount", (int) (i * factor));
      } else {
        row.put("amount", i * factor);
      }
      if (schema.getField("note") != null) {
        row.put("note", "note-" + i);
      }
      records.add(new HoodieAvroRecord<>(new HoodieKey(row.get("id").toString(), region),
          new DefaultHoodieRecordPayload(row, ts)));
    }
    return records;
  }

  /** The latest base file of every file group, by the completed timeline. */
  List<org.apache.hadoop.fs.Path> latestBaseFiles(ServicedTable table) {
    HoodieTableMetaClient metaClient = hudiTables().metaClient(table.basePath());
    try (HoodieTableFileSystemView view = HoodieTableFileSystemView.fileListingBasedFileSystemView(
        hudiTables().engineContext(), metaClient,
        metaClient.getActiveTimeline().getCommitsTimeline().filterCompletedInstants())) {
      List<org.apache.hadoop.fs.Path> files = new ArrayList<>();
      for (String region : REGIONS) {
        view.getLatestBaseFiles(region).map(HoodieBaseFile::getPath)
            .forEach(path -> files.add(new org.apache.hadoop.fs.Path(path)));
      }
      return files;
    }
  }

  /** Every row of {@code file}, each as column name to value text, in file order. */
  List<Map<String, String>> rows(org.apache.hadoop.fs.Path file) throws IOException {
    List<Map<String, String>> rows = new ArrayList<>();
    try (ParquetReader<GenericRecord> reader = AvroParquetReader.<GenericRecord>builder(
        HadoopInputFile.fromPath(file, hadoop)).withConf(hadoop).build()) {
      for (GenericRecord record = reader.read(); record != null; record = reader.read()) {
        Map<String, String> row = new LinkedHashMap<>();
        for (Schema.Field field : record.getSchema().getFields()) {
          Object value = record.get(field.name());
          row.put(field.name(), value == null ? null : value.toString());
        }
        rows.add(row);
      }
    }
    return rows;
  }

  /** Rows of all latest base files. */
  List<Map<String, String>> latestRows(ServicedTable table) throws IOException {
    List<Map<String, String>> rows = new ArrayList<>();
    for (org.apache.hadoop.fs.Path file : latestBaseFiles(table)) {
      rows.addAll(rows(file));
    }
    return rows;
  }

  Configuration hadoop() {
    return hadoop;
  }
}
