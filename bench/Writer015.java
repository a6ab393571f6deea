import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SaveMode;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The Hudi 0.15.0 Spark writer of {@code bench/writer-015.sh}: Spark local[2] on the spark-peer module's class path
 * with the official {@code hudi-spark3.5-bundle_2.12:0.15.0} in place of the 1.2.0 one, writing with the DataFrame API
 * as a user's 0.15 job does (0.15's SQL DDL needs spark-hive, which the peer does not carry).
 *
 * <ul>
 *   <li>{@code write PATH FIRST LAST services=off|on}: upserts rounds FIRST..LAST (inclusive), one commit each, into a
 *       MERGE_ON_READ table (created by round 0 at 0.15's default table version 6). With {@code off} the writer's own
 *       table services are off (no inline compaction, clean or archival: the daemon's job); with {@code on} it cleans
 *       and archives after every commit, as a 0.15 job that owns its services does, so its archiver reads every
 *       clean instant already on the timeline, the daemon's included.</li>
 *   <li>{@code verify PATH LAST} (or {@code verify} after a {@code write}'s arguments, in the same session): reads the table back (snapshot) and compares it with the model of rounds 0..LAST.</li>
 * </ul>
 *
 * <p>The rows are a function of the round, so the model needs no state: round r inserts keys [r*INSERTS,
 * (r+1)*INSERTS) and updates every earlier key k with (k + r) % 4 == 0; a row's value is {@code r<round>-k<key>} and its
 * precombine field the round. The model is the last round that wrote each key. One {@code @@result} or {@code @@error}
 * line per command.
 */
public final class Writer015 {
  static final int INSERTS = Integer.getInteger("writer015.inserts", 300);
  private static final StructType SCHEMA = new StructType()
      .add("id", DataTypes.StringType, false)
      .add("part", DataTypes.StringType, false)
      .add("ts", DataTypes.LongType, false)
      .add("round", DataTypes.IntegerType, false)
      .add("val", DataTypes.StringType, false);

  public static void main(String[] args) {
    if (args.length < 3 || !List.of("write", "verify").contains(args[0])
        || args[0].equals("write") && args.length != 5 && args.length != 6) {
      System.err.println("usage: Writer015 write PATH FIRST LAST services=off|on [verify] | verify PATH LAST");
      System.exit(2);
    }
    SparkSession spark = session();
    int status;
    if (args[0].equals("write")) {
      status = write(spark, args[1], Integer.parseInt(args[2]), Integer.parseInt(args[3]),
          args[4].equals("services=on"));
      // One Spark session for the last rounds and the read back: a session costs about 20 s of CPU on 2 cores.
      if (status == 0 && args.length == 6 && args[5].equals("verify")) {
        status = verify(spark, args[1], Integer.parseInt(args[3]));
      }
    } else {
      status = verify(spark, args[1], Integer.parseInt(args[2]));
    }
    spark.stop();
    System.exit(status);
  }

  private static int write(SparkSession spark, String path, int first, int last, boolean services) {
    for (int round = first; round <= last; round++) {
      List<Row> rows = new ArrayList<>();
      for (Map.Entry<Integer, Integer> entry : keysOf(round).entrySet()) {
        rows.add(row(entry.getKey(), round));
      }
      Dataset<Row> batch = spark.createDataFrame(rows, SCHEMA).repartition(2);
      long start = System.currentTimeMillis();
      try {
        batch.write().format("hudi").options(options(services)).mode(SaveMode.Append).save(path);
      } catch (RuntimeException e) {
        e.printStackTrace();
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) {
          root = root.getCause();
        }
        System.out.println("@@error round=" + round + " services=" + (services ? "on" : "off") + " error="
            + oneLine(e) + " root=" + oneLine(root));
        return 1;
      }
      System.out.println("@@result round=" + round + " services=" + (services ? "on" : "off") + " rows="
          + rows.size() + " ms=" + (System.currentTimeMillis() - start));
    }
    return 0;
  }

  private static int verify(SparkSession spark, String path, int last) {
    Map<Integer, Integer> model = new TreeMap<>();
    for (int round = 0; round <= last; round++) {
      for (Integer key : keysOf(round).keySet()) {
        model.put(key, round);
      }
    }
    List<Row> read = spark.read().format("hudi").load(path).select("id", "part", "ts", "round", "val")
        .collectAsList();
    Map<Integer, Row> actual = new HashMap<>();
    List<String> problems = new ArrayList<>();
    for (Row row : read) {
      int key = Integer.parseInt(row.getString(0).substring(1));
      if (actual.put(key, row) != null) {
        problems.add("key " + row.getString(0) + " read twice");
      }
    }
    for (Map.Entry<Integer, Integer> entry : model.entrySet()) {
      Row expected = row(entry.getKey(), entry.getValue());
      Row got = actual.get(entry.getKey());
      if (got == null) {
        problems.add("key " + expected.getString(0) + " missing (expected round " + entry.getValue() + ")");
      } else if (!got.equals(expected)) {
        problems.add("key " + expected.getString(0) + ": expected " + expected + ", read " + got);
      }
    }
    for (Integer key : actual.keySet()) {
      if (!model.containsKey(key)) {
        problems.add("key k" + key + " read but never written");
      }
    }
    System.out.println("@@result verify rows=" + read.size() + " model=" + model.size() + " problems="
        + problems.size() + (problems.isEmpty() ? "" : " first=" + String.join("; ",
            problems.subList(0, Math.min(5, problems.size())))));
    return problems.isEmpty() ? 0 : 1;
  }

  /** The keys round {@code round} writes, each to the round (a map for the same order on every call). */
  static Map<Integer, Integer> keysOf(int round) {
    Map<Integer, Integer> keys = new TreeMap<>();
    for (int key = 0; key < round * INSERTS; key++) {
      if ((key + round) % 4 == 0) {
        keys.put(key, round);
      }
    }
    for (int key = round * INSERTS; key < (round + 1) * INSERTS; key++) {
      keys.put(key, round);
    }
    return keys;
  }

  private static Row row(int key, int round) {
    return RowFactory.create("k" + key, "p" + (key % 2), (long) round, round, "r" + round + "-k" + key);
  }

  private static Map<String, String> options(boolean services) {
    Map<String, String> options = new HashMap<>();
    options.put("hoodie.table.name", "writer015");
    options.put("hoodie.datasource.write.table.type", "MERGE_ON_READ");
    options.put("hoodie.datasource.write.operation", "upsert");
    options.put("hoodie.datasource.write.recordkey.field", "id");
    options.put("hoodie.datasource.write.partitionpath.field", "part");
    options.put("hoodie.datasource.write.precombine.field", "ts");
    options.put("hoodie.datasource.write.payload.class", "org.apache.hudi.common.model.DefaultHoodieRecordPayload");
    options.put("hoodie.upsert.shuffle.parallelism", "2");
    options.put("hoodie.insert.shuffle.parallelism", "2");
    // Inserts go to new file groups, so updates land in log files and the daemon has slices to compact (with 0.15's
    // default of 100 MB every round would rewrite the few small base files instead).
    options.put("hoodie.parquet.small.file.limit", "0");
    // Table services: the daemon's while off; the writer's own, inline, while on. Compaction stays the daemon's.
    options.put("hoodie.compact.inline", "false");
    options.put("hoodie.datasource.compaction.async.enable", "false");
    options.put("hoodie.clean.automatic", Boolean.toString(services));
    options.put("hoodie.clean.async", "false");
    options.put("hoodie.archive.automatic", Boolean.toString(services));
    options.put("hoodie.archive.async", "false");
    // What the daemon is given too: cleans that remove the slices before the latest commit, and an archiver that
    // keeps 2 to 3 instants of each kind, so that the daemon's cleans reach the writer's archiver within a few rounds.
    options.put("hoodie.cleaner.commits.retained", "1");
    options.put("hoodie.keep.min.commits", "2");
    options.put("hoodie.keep.max.commits", "3");
    // The metadata table compacts and cleans every 2 delta commits (default 10); 0.15 archives it keeping 3 to 4.
    options.put("hoodie.metadata.compact.max.delta.commits", "2");
    return options;
  }

  private static String oneLine(Throwable t) {
    return (t.getClass().getName() + ": " + t.getMessage()).replace('\n', ' ');
  }

  private static SparkSession session() {
    String work = System.getProperty("bench.spark.dir", System.getProperty("java.io.tmpdir"));
    return SparkSession.builder()
        .appName("hudi-tsd-writer-015")
        .master("local[2]")
        .config("spark.driver.host", "localhost")
        .config("spark.driver.bindAddress", "127.0.0.1")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.default.parallelism", "2")
        .config("spark.local.dir", work + "/spark-local")
        .config("spark.sql.warehouse.dir", work + "/spark-warehouse")
        .config("spark.serializer", "org.apache.spark.serializer.KryoSerializer")
        .config("spark.kryo.registrator", "org.apache.spark.HoodieSparkKryoRegistrar")
        .getOrCreate();
  }
}
