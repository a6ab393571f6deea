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
import org.apache.hudi.common.model.HoodieKey;
import org.apache.hudi.common.model.HoodieRecord;
import org.apache.hudi.common.model.HoodieTableType;
import org.apache.hudi.common.table.HoodieTableMetaClient;
import org.apache.hudi.config.HoodieWriteConfig;
import org.apache.hudi.storage.hadoop.HadoopStorageConfiguration;

import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.Random;

/**
 * The compaction benchmark's source table (issue 16), written with Hudi's Java writer: {@code java -cp
 * 'api/target/hudi-tsd.jar:api/target/lib/*' bench/CompactionTable.java PATH ROWS UPDATED BASE_FILES VERSION}.
 *
 * <p>MERGE_ON_READ, one partition, the 12-column events schema of {@code BinaryCopyTable}, gzip, metadata table with
 * files, column_stats and partition_stats as a Spark writer has it. BASE_FILES insert commits of ROWS / BASE_FILES
 * new keys each (small-file limit 0: one base file per commit), then three upserts of UPDATED / 3 distinct keys each:
 * the first two touch every file group (one log file each), the third the first 9/14 of them. The defaults (200,000
 * rows, 60,000 updated, 14 base files) give 14 base + 37 log files, about 19 MB, as in the issue. Seventeen delta
 * commits: compaction is due by Hudi's default trigger (5 delta commits). Fixed seed.
 */
public final class CompactionTable {
  static final String PARTITION = "2026-11-01";
  static final Schema SCHEMA = new Schema.Parser().parse("""
      {"type": "record", "name": "event", "namespace": "io.huditsd.bench", "fields": [
        {"name": "event_id", "type": "string"},
        {"name": "event_date", "type": "string"},
        {"name": "event_time", "type": {"type": "long", "logicalType": "timestamp-micros"}},
        {"name": "ingest_ts", "type": "long"},
        {"name": "user_id", "type": "long"},
        {"name": "session_id", "type": "string"},
        {"name": "event_type", "type": "string"},
        {"name": "page_url", "type": "string"},
        {"name": "country", "type": "string"},
        {"name": "device", "type": "string"},
        {"name": "duration_ms", "type": "int"},
        {"name": "revenue", "type": "double"}
      ]}""");
  private static final String[] EVENT_TYPES = {"view", "view", "view", "click", "click", "scroll", "add_to_cart",
      "purchase", "login", "search"};
  private static final String[] COUNTRIES = {"US", "DE", "FR", "GB", "IN", "BR", "JP", "CA", "ES", "IT", "NL", "SE",
      "PL", "MX", "AU", "KR"};
  private static final String[] DEVICES = {"ios", "android", "web-desktop", "web-mobile", "tv"};
  private static final String[] PAGES = {"/", "/search", "/cart", "/checkout", "/account", "/help", "/p/", "/c/"};
  private static final long DAY_START_MICROS = 1_793_491_200_000_000L;

  public static void main(String[] args) throws Exception {
    if (args.length != 5) {
      System.err.println("usage: CompactionTable PATH ROWS UPDATED BASE_FILES VERSION");
      System.exit(2);
    }
    String basePath = args[0];
    int rows = Integer.parseInt(args[1]);
    int updated = Integer.parseInt(args[2]);
    int baseFiles = Integer.parseInt(args[3]);
    int version = Integer.parseInt(args[4]);
    int perCommit = rows / baseFiles;
    HadoopStorageConfiguration storage = new HadoopStorageConfiguration(new Configuration());
    HoodieTableMetaClient.newTableBuilder()
        .setTableType(HoodieTableType.MERGE_ON_READ)
        .setTableName("events")
        .setTableVersion(version)
        .setRecordKeyFields("event_id")
        .setPartitionFields("event_date")
        .setOrderingFields("ingest_ts")
        .setRecordMergeMode(RecordMergeMode.EVENT_TIME_ORDERING)
        .setPayloadClassName(DefaultHoodieRecordPayload.class.getName())
        .setKeyGeneratorClassProp("org.apache.hudi.keygen.SimpleKeyGenerator")
        .setPopulateMetaFields(true)
        .initTable(storage, basePath);
    Properties properties = new Properties();
    properties.put("hoodie.embed.timeline.server", "false");
    properties.put("hoodie.write.markers.type", "DIRECT");
    properties.put("hoodie.write.table.version", Integer.toString(version));
    properties.put("hoodie.write.auto.upgrade", "false");
    properties.put("hoodie.datasource.write.recordkey.field", "event_id");
    properties.put("hoodie.datasource.write.partitionpath.field", "event_date");
    properties.put("hoodie.datasource.write.precombine.field", "ingest_ts");
    properties.put("hoodie.write.record.merge.mode", RecordMergeMode.EVENT_TIME_ORDERING.name());
    properties.put("hoodie.datasource.write.payload.class", DefaultHoodieRecordPayload.class.getName());
    properties.put("hoodie.parquet.compression.codec", "gzip");
    // One new file group per insert; and Hudi 1.2.0's Java writer loses log updates on MOR when an upsert's new keys
    // are packed into small base files (shared notes).
    properties.put("hoodie.parquet.small.file.limit", "0");
    properties.put("hoodie.compact.inline", "false");
    properties.put("hoodie.clean.automatic", "false");
    properties.put("hoodie.archive.automatic", "false");
    properties.put("hoodie.metadata.enable", "true");
    properties.put("hoodie.metadata.index.column.stats.enable", "true");
    properties.put("hoodie.metadata.index.partition.stats.enable", "true");
    properties.put("hoodie.insert.shuffle.parallelism", "2");
    properties.put("hoodie.upsert.shuffle.parallelism", "2");
    HoodieWriteConfig config = HoodieWriteConfig.newBuilder()
        .withEngineType(EngineType.JAVA)
        .withPath(basePath)
        .withSchema(SCHEMA.toString())
        .forTable("events")
        .withProps(properties)
        .build();
    Random random = new Random(20261201L);
    String[][] ids = new String[baseFiles][perCommit];
    long[][] times = new long[baseFiles][perCommit];
    long start = System.nanoTime();
    try (HoodieJavaWriteClient<DefaultHoodieRecordPayload> client =
             new HoodieJavaWriteClient<>(new HoodieJavaEngineContext(storage), config)) {
      for (int commit = 0; commit < baseFiles; commit++) {
        List<HoodieRecord<DefaultHoodieRecordPayload>> records = new ArrayList<>(perCommit);
        for (int i = 0; i < perCommit; i++) {
          GenericRecord row = row(random, commit, baseFiles, i, perCommit, null, 0);
          ids[commit][i] = (String) row.get("event_id");
          times[commit][i] = (Long) row.get("event_time");
          records.add(record(row));
        }
        write(client, records, true);
      }
      System.err.printf("%d inserts, %d s%n", baseFiles, (System.nanoTime() - start) / 1_000_000_000L);
      // Three upserts of distinct keys: residues 0 and 1 (of 10) of every file group, then residues 2 and 3 of the
      // first 9/14 of the file groups, an equal share from each, so that the last touches fewer file groups.
      int third = updated / 3;
      int lastGroups = Math.max(1, Math.round(baseFiles * 9f / 14f));
      for (int pass = 0; pass < 3; pass++) {
        List<HoodieRecord<DefaultHoodieRecordPayload>> records = new ArrayList<>(third);
        int groups = pass < 2 ? baseFiles : lastGroups;
        int quota = third / groups;
        for (int commit = 0; commit < groups; commit++) {
          int taken = 0;
          for (int i = 0; i < perCommit && taken < quota; i++) {
            int residue = i % 10;
            boolean pick = pass < 2 ? residue == pass : (residue == 2 || residue == 3);
            if (pick) {
              records.add(record(row(random, commit, baseFiles, i, perCommit, ids[commit][i], times[commit][i])));
              taken++;
            }
          }
        }
        write(client, records, false);
        System.err.printf("upsert %d: %d keys over %d file groups, %d s%n", pass + 1, records.size(), groups,
            (System.nanoTime() - start) / 1_000_000_000L);
      }
    }
    System.exit(0);
  }

  private static HoodieRecord<DefaultHoodieRecordPayload> record(GenericRecord row) {
    return new HoodieAvroRecord<>(new HoodieKey((String) row.get("event_id"), PARTITION),
        new DefaultHoodieRecordPayload(row, (Long) row.get("ingest_ts")));
  }

  private static void write(HoodieJavaWriteClient<DefaultHoodieRecordPayload> client,
                            List<HoodieRecord<DefaultHoodieRecordPayload>> records, boolean insert) {
    String instant = client.startCommit();
    List<WriteStatus> statuses = insert ? client.insert(records, instant) : client.upsert(records, instant);
    if (statuses.stream().anyMatch(WriteStatus::hasErrors)) {
      throw new IllegalStateException("commit " + instant + " has write errors");
    }
    client.commit(instant, statuses);
  }

  /** A new event, or (id given) a later version of event {@code id}: a larger ingest_ts and changed values. */
  private static GenericRecord row(Random random, int commit, int commits, int i, int perCommit, String id,
                                   long time) {
    long sliceMicros = 86_400_000_000L / commits;
    long eventTime = id != null ? time
        : DAY_START_MICROS + commit * sliceMicros + (long) i * sliceMicros / perCommit + random.nextInt(1_000_000);
    long userId = 1_000_000L + (long) (Math.pow(random.nextDouble(), 2) * 5_000_000);
    String eventType = EVENT_TYPES[random.nextInt(EVENT_TYPES.length)];
    GenericRecord row = new GenericData.Record(SCHEMA);
    row.put("event_id", id != null ? id
        : Long.toString(eventTime, 36) + "-" + String.format("%014x", random.nextLong() & 0xFF_FFFF_FFFF_FFFFL));
    row.put("event_date", PARTITION);
    row.put("event_time", eventTime);
    row.put("ingest_ts", eventTime / 1000 + (id != null ? 50_000_000 : 2_000 + random.nextInt(60_000)));
    row.put("user_id", userId);
    row.put("session_id", Long.toHexString(userId * 31 + eventTime / 1_800_000_000L));
    row.put("event_type", eventType);
    String page = PAGES[random.nextInt(PAGES.length)];
    row.put("page_url", page.endsWith("/") && page.length() > 1 ? page + random.nextInt(50_000) : page);
    row.put("country", COUNTRIES[Math.min(random.nextInt(COUNTRIES.length), random.nextInt(COUNTRIES.length))]);
    row.put("device", DEVICES[random.nextInt(DEVICES.length)]);
    row.put("duration_ms", (int) Math.min(600_000, Math.abs(random.nextGaussian()) * 20_000));
    row.put("revenue", eventType.equals("purchase") ? Math.round(random.nextDouble() * 20_000) / 100.0 : 0.0);
    return row;
  }
}
