import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

import java.lang.management.ManagementFactory;
import java.util.List;

/**
 * The compaction benchmark's Spark side (issue 16), compiled by {@code bench/compaction.sh} against the spark-peer
 * module's class path (Spark 3.5.5, the official {@code hudi-spark3.5-bundle_2.12:1.2.0}), Spark in local[2] as in
 * {@code SparkBinaryCopyBench}:
 * <ul>
 *   <li>{@code compact NAME PATH}: {@code CALL run_compaction(op => 'scheduleAndExecute', path => PATH)}, as a Spark
 *       user schedules and runs one compaction;</li>
 *   <li>{@code count PATH...}: each table read back with the Hudi datasource (snapshot and read_optimized), so that
 *       every contender's result can be compared: rows, distinct keys, and the sum of a column the upserts changed.</li>
 * </ul>
 * One {@code @@result} line of {@code key=value} pairs per table.
 */
public final class SparkCompactionBench {
  public static void main(String[] args) {
    if (args.length < 2 || !List.of("compact", "count").contains(args[0])) {
      System.err.println("usage: SparkCompactionBench compact NAME PATH | count PATH...");
      System.exit(2);
    }
    long sessionStart = System.currentTimeMillis();
    SparkSession spark = session();
    long sessionMs = System.currentTimeMillis() - sessionStart;
    if (args[0].equals("compact")) {
      long start = System.currentTimeMillis();
      long startCpu = cpuNanos();
      List<Row> rows = spark.sql("CALL run_compaction(op => 'scheduleAndExecute', path => '" + args[2] + "')")
          .collectAsList();
      long done = System.currentTimeMillis();
      System.out.println("@@result name=" + args[1] + " session_ms=" + sessionMs + " total_ms=" + (done - start)
          + " total_cpu_ms=" + (cpuNanos() - startCpu) / 1_000_000 + " rows=" + rows.size()
          + " instant=" + (rows.isEmpty() ? "none" : rows.get(0).get(0)));
    } else {
      for (int i = 1; i < args.length; i++) {
        String path = args[i];
        Row snapshot = spark.read().format("hudi").load(path)
            .selectExpr("count(*)", "count(DISTINCT event_id)", "sum(ingest_ts)").first();
        Row optimized = spark.read().format("hudi").option("hoodie.datasource.query.type", "read_optimized")
            .load(path).selectExpr("count(*)", "sum(ingest_ts)").first();
        System.out.println("@@result path=" + path + " snapshot_rows=" + snapshot.getLong(0)
            + " distinct_keys=" + snapshot.getLong(1) + " snapshot_sum=" + snapshot.get(2)
            + " ro_rows=" + optimized.getLong(0) + " ro_sum=" + optimized.get(1));
      }
    }
    spark.stop();
    System.exit(0);
  }

  private static SparkSession session() {
    String work = System.getProperty("bench.spark.dir", System.getProperty("java.io.tmpdir"));
    return SparkSession.builder()
        .appName("hudi-tsd-compaction-bench")
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
        .config("spark.sql.extensions", "org.apache.spark.sql.hudi.HoodieSparkSessionExtension")
        .config("spark.sql.catalog.spark_catalog", "org.apache.spark.sql.hudi.catalog.HoodieCatalog")
        .getOrCreate();
  }

  private static long cpuNanos() {
    return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime();
  }
}
