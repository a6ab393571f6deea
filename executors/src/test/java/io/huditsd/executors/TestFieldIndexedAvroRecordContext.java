package io.huditsd.executors;

import io.huditsd.config.ServicedTable;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.generic.IndexedRecord;
import org.apache.hudi.avro.AvroRecordContext;
import org.apache.hudi.client.common.HoodieJavaEngineContext;
import org.apache.hudi.common.config.TypedProperties;
import org.apache.hudi.common.engine.RecordContext;
import org.apache.hudi.common.model.HoodieAvroRecord;
import org.apache.hudi.common.model.HoodieRecord;
import org.apache.hudi.common.model.HoodieTableType;
import org.apache.hudi.common.model.PartialUpdateAvroPayload;
import org.apache.hudi.common.schema.HoodieSchema;
import org.apache.hudi.common.table.HoodieTableConfig;
import org.apache.hudi.common.table.HoodieTableMetaClient;
import org.apache.hudi.common.table.read.BufferedRecord;
import org.apache.hudi.common.table.read.BufferedRecords;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The daemon's record context reads the same values as Hudi's own for every kind of field name a merge asks for,
 * and the daemon's engine context hands it to every Avro reader context it makes, with the same payload class.
 */
class TestFieldIndexedAvroRecordContext {
  private static final Schema SCHEMA = new Schema.Parser().parse("""
      {"type": "record", "name": "orders", "fields": [
        {"name": "_hoodie_commit_time", "type": ["null", "string"], "default": null},
        {"name": "_hoodie_commit_seqno", "type": ["null", "string"], "default": null},
        {"name": "_hoodie_record_key", "type": ["null", "string"], "default": null},
        {"name": "_hoodie_partition_path", "type": ["null", "string"], "default": null},
        {"name": "_hoodie_file_name", "type": ["null", "string"], "default": null},
        {"name": "id", "type": "string"},
        {"name": "ts", "type": "long"},
        {"name": "seq", "type": ["null", "int"], "default": null},
        {"name": "price", "type": "double"},
        {"name": "detail", "type": ["null", {"type": "record", "name": "detail", "fields": [
          {"name": "ts", "type": "long"},
          {"name": "note", "type": ["null", "string"], "default": null}]}], "default": null}]}""");
  private static final List<String> NAMES = List.of("_hoodie_record_key", "_hoodie_commit_time", "id", "ts", "seq",
      "price", "detail", "missing", "detail.ts", "detail.note", "detail.missing", "ID", "Ts");

  @Test
  void everyFieldNameReadsWhatHudisLookupReads() {
    FieldIndexedAvroRecordContext context = new FieldIndexedAvroRecordContext(new HoodieTableConfig(), null);
    HoodieSchema schema = HoodieSchema.fromAvroSchema(SCHEMA);
    for (GenericRecord record : records()) {
      for (String name : NAMES) {
        assertThat(context.getValue(record, schema, name))
            .as("%s of %s", name, record)
            .isEqualTo(AvroRecordContext.getFieldValueFromIndexedRecord(record, name));
      }
    }
    // The top-level names found something, so the comparison above is not of nulls alone.
    assertThat(context.getValue(records().get(0), schema, "ts")).isEqualTo(7L);
    assertThat(context.getValue(records().get(0), schema, "detail.note")).hasToString("first");
  }

  @Test
  void keysAndOrderingValuesAreHudis() {
    HoodieTableConfig config = new HoodieTableConfig();
    RecordContext<IndexedRecord> hudis = new AvroRecordContext(config, null);
    RecordContext<IndexedRecord> daemons = new FieldIndexedAvroRecordContext(config, null);
    HoodieSchema schema = HoodieSchema.fromAvroSchema(SCHEMA);
    List<List<String>> orderings = List.of(List.of("ts"), List.of("seq"), List.of("ts", "seq"),
        List.of("detail.ts"), List.of("missing"), List.of());
    for (GenericRecord record : records()) {
      for (List<String> ordering : orderings) {
        BufferedRecord<IndexedRecord> expected = BufferedRecords.fromEngineRecord(record, schema, hudis, ordering,
            false);
        BufferedRecord<IndexedRecord> actual = BufferedRecords.fromEngineRecord(record, schema, daemons, ordering,
            false);
        assertThat(actual.getRecordKey()).as("key of %s", record).isEqualTo(expected.getRecordKey());
        assertThat(actual.getOrderingValue()).as("ordering %s of %s", ordering, record)
            .isEqualTo(expected.getOrderingValue());
      }
    }
  }

  @Test
  void theEngineContextsReaderContextsUseItWithHudisPayloadClass(@TempDir Path directory) throws IOException {
    LocalTables tables = new LocalTables();
    ServicedTable table = tables.create(directory.resolve("t"), HoodieTableType.MERGE_ON_READ, 9, Map.of());
    HoodieTableMetaClient metaClient = tables.hudiTables().metaClient(table.basePath());
    TypedProperties properties = new TypedProperties();
    // A payload class Hudi 1.2.0 has not deprecated, so that the records made carry it (see madeRecord).
    properties.setProperty("hoodie.datasource.write.payload.class", PartialUpdateAvroPayload.class.getName());
    FieldIndexedJavaEngineContext daemons = new FieldIndexedJavaEngineContext(metaClient.getStorageConf());
    HoodieJavaEngineContext hudis = new HoodieJavaEngineContext(metaClient.getStorageConf());

    assertThat(tables.hudiTables().engineContext()).isInstanceOf(FieldIndexedJavaEngineContext.class);
    assertThat(daemons.getReaderContextFactory(metaClient).getContext().getRecordContext())
        .isInstanceOf(FieldIndexedAvroRecordContext.class);
    for (HoodieRecord.HoodieRecordType type : HoodieRecord.HoodieRecordType.values()) {
      assertThat(daemons.getReaderContextFactoryForWrite(metaClient, type, properties).getContext()
          .getRecordContext()).as("%s", type).isInstanceOf(FieldIndexedAvroRecordContext.class);
    }
    // The records a record context makes follow its payload class: the writer's for writes, the table's else (a
    // deprecated one, DefaultHoodieRecordPayload, for which Hudi makes indexed records without a payload).
    HoodieSchema schema = HoodieSchema.fromAvroSchema(SCHEMA);
    GenericRecord record = records().get(0);
    assertThat(madeRecord(daemons.getReaderContextFactoryForWrite(metaClient, HoodieRecord.HoodieRecordType.AVRO,
        properties).getContext().getRecordContext(), record, schema))
        .isEqualTo("HoodieAvroRecord of " + PartialUpdateAvroPayload.class.getName())
        .isEqualTo(madeRecord(hudis.getReaderContextFactoryForWrite(metaClient, HoodieRecord.HoodieRecordType.AVRO,
            properties).getContext().getRecordContext(), record, schema));
    assertThat(madeRecord(daemons.getReaderContextFactory(metaClient).getContext().getRecordContext(), record,
        schema))
        .isEqualTo("HoodieAvroIndexedRecord")
        .isEqualTo(madeRecord(hudis.getReaderContextFactory(metaClient).getContext().getRecordContext(), record,
            schema));
  }

  /** The class of the record {@code context} makes of {@code record}, and of its payload if it has one. */
  @SuppressWarnings("unchecked")
  private static String madeRecord(RecordContext<?> context, GenericRecord record, HoodieSchema schema) {
    RecordContext<IndexedRecord> avro = (RecordContext<IndexedRecord>) context;
    BufferedRecord<IndexedRecord> buffered = BufferedRecords.fromEngineRecord(record, schema, avro, List.of("ts"),
        false);
    HoodieRecord<?> made = avro.constructHoodieRecord(buffered, "eu");
    return made instanceof HoodieAvroRecord<?> withPayload
        ? "HoodieAvroRecord of " + withPayload.getData().getClass().getName()
        : made.getClass().getSimpleName();
  }

  private static List<GenericRecord> records() {
    Schema detailSchema = SCHEMA.getField("detail").schema().getTypes().get(1);
    List<GenericRecord> records = new ArrayList<>();
    GenericRecord full = new GenericData.Record(SCHEMA);
    full.put("_hoodie_record_key", "k1");
    full.put("_hoodie_commit_time", "20261206000000000");
    full.put("id", "k1");
    full.put("ts", 7L);
    full.put("seq", 3);
    full.put("price", 1.5);
    GenericRecord detail = new GenericData.Record(detailSchema);
    detail.put("ts", 9L);
    detail.put("note", "first");
    full.put("detail", detail);
    records.add(full);

    GenericRecord sparse = new GenericData.Record(SCHEMA);
    sparse.put("_hoodie_record_key", "k2");
    sparse.put("id", "k2");
    sparse.put("ts", -1L);
    sparse.put("price", 0.0);
    GenericRecord emptyDetail = new GenericData.Record(detailSchema);
    emptyDetail.put("ts", 0L);
    sparse.put("detail", emptyDetail);
    records.add(sparse);
    return records;
  }
}
