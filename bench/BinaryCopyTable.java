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
 * The binary-copy benchmark's source table, written with Hudi's Java writer: {@code java -cp
 * 'api/target/hudi-tsd.jar:api/target/lib/*' bench/BinaryCopyTable.java PATH [COMMITS] [ROWS_PER_COMMIT]}.
 *
 * <p>An events table as a Spark job would leave it after many small appends: COPY_ON_WRITE, table version 9, one
 * partition ({@code event_date=2026-11-01}), 12 columns, gzip, Hudi's default bloom filter in every footer, and the
 * metadata table a Spark writer has by default (files, column_stats, partition_stats). Each commit inserts
 * ROWS_PER_COMMIT new keys (default 15,000) and, with the small-file limit at 0, makes one new base file of one row
 * group; 200 commits (the default) give 200 files, 3,000,000 rows. Clean and archive run as Hudi's defaults have
 * them, so the active timeline stays the usual length. The rows come from a fixed seed: every build is the same
 * table apart from instant times and file ids.
 */
public final class BinaryCopyTable {
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
  /** 2026-11-01T00:00:00Z in microseconds. */
  private static final long DAY_START_MICROS = 1_793_491_200_000_000L;

  public static void main(String[] args) throws Exception {
    if (args.length < 1 || args.length > 3) {
      System.err.println("usage: BinaryCopyTable PATH [COMMITS] [ROWS_PER_COMMIT]");
      System.exit(2);
    }
    String basePath = args[0];
    int commits = args.length > 1 ? Integer.parseInt(args[1]) : 200;
    int rowsPerCommit = args.length > 2 ? Integer.parseInt(args[2]) : 15_000;
    Configuration hadoop = new Configuration();
    HadoopStorageConfiguration storage = new HadoopStorageConfiguration(hadoop);
    HoodieTableMetaClient.newTableBuilder()
        .setTableType(HoodieTableType.COPY_ON_WRITE)
        .setTableName("events")
        .setTableVersion(9)
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
    properties.put("hoodie.write.table.version", "9");
    properties.put("hoodie.write.auto.upgrade", "false");
    properties.put("hoodie.datasource.write.recordkey.field", "event_id");
    properties.put("hoodie.datasource.write.partitionpath.field", "event_date");
    properties.put("hoodie.datasource.write.precombine.field", "ingest_ts");
    properties.put("hoodie.write.record.merge.mode", RecordMergeMode.EVENT_TIME_ORDERING.name());
    properties.put("hoodie.datasource.write.payload.class", DefaultHoodieRecordPayload.class.getName());
    properties.put("hoodie.parquet.compression.codec", "gzip");
    // One new file per commit, as many small appends leave a table that clustering is for.
    properties.put("hoodie.parquet.small.file.limit", "0");
    // What a Spark writer of Hudi 1.2.0 has by default; the Java engine's defaults are off.
    properties.put("hoodie.metadata.enable", "true");
    properties.put("hoodie.metadata.index.column.stats.enable", "true");
    properties.put("hoodie.metadata.index.partition.stats.enable", "true");
    properties.put("hoodie.insert.shuffle.parallelism", "2");
    HoodieWriteConfig config = HoodieWriteConfig.newBuilder()
        .withEngineType(EngineType.JAVA)
        .withPath(basePath)
        .withSchema(SCHEMA.toString())
        .forTable("events")
        .withProps(properties)
        .build();
    Random random = new Random(20261129L);
    long start = System.nanoTime();
    try (HoodieJavaWriteClient<DefaultHoodieRecordPayload> client =
             new HoodieJavaWriteClient<>(new HoodieJavaEngineContext(storage), config)) {
      for (int commit = 0; commit < commits; commit++) {
        List<HoodieRecord<DefaultHoodieRecordPayload>> records = new ArrayList<>(rowsPerCommit);
        for (int i = 0; i < rowsPerCommit; i++) {
          GenericRecord row = row(random, commit, commits, i, rowsPerCommit);
          records.add(new HoodieAvroRecord<>(new HoodieKey((String) row.get("event_id"), PARTITION),
              new DefaultHoodieRecordPayload(row, (Long) row.get("ingest_ts"))));
        }
        String instant = client.startCommit();
        List<WriteStatus> statuses = client.insert(records, instant);
        if (statuses.stream().anyMatch(WriteStatus::hasErrors)) {
          throw new IllegalStateException("commit " + instant + " has write errors");
        }
        client.commit(instant, statuses);
        if ((commit + 1) % 20 == 0) {
          System.err.printf("%d/%d commits, %d s%n", commit + 1, commits, (System.nanoTime() - start) / 1_000_000_000L);
        }
      }
    }
    // Hudi's clients can leave non-daemon threads behind.
    System.exit(0);
  }

  /** Events of one day in arrival order: commit c carries the c-th slice of the day. */
  private static GenericRecord row(Random random, int commit, int commits, int i, int rowsPerCommit) {
    long sliceMicros = 86_400_000_000L / commits;
    long eventTime = DAY_START_MICROS + commit * sliceMicros + (long) i * sliceMicros / rowsPerCommit
        + random.nextInt(1_000_000);
    long userId = 1_000_000L + (long) (Math.pow(random.nextDouble(), 2) * 5_000_000);
    String eventType = EVENT_TYPES[random.nextInt(EVENT_TYPES.length)];
    GenericRecord row = new GenericData.Record(SCHEMA);
    // Time-ordered ids (arrival time, then 56 random bits), as event pipelines often mint them.
    row.put("event_id", Long.toString(eventTime, 36) + "-" + String.format("%014x", random.nextLong() & 0xFF_FFFF_FFFF_FFFFL));
    row.put("event_date", PARTITION);
    row.put("event_time", eventTime);
    row.put("ingest_ts", eventTime / 1000 + 2_000 + random.nextInt(60_000));
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
