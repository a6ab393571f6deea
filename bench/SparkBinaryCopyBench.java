import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.LogEvent;
import org.apache.logging.log4j.core.LoggerContext;
import org.apache.logging.log4j.core.appender.AbstractAppender;
import org.apache.logging.log4j.core.config.Configuration;
import org.apache.logging.log4j.core.config.LoggerConfig;
import org.apache.logging.log4j.core.config.Property;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The binary-copy benchmark's Spark side, compiled by {@code bench/binary-copy.sh} against the spark-peer module's
 * class path (Spark 3.5.5, the official {@code hudi-spark3.5-bundle_2.12:1.2.0}) and run in a JVM of its own, with
 * Spark in local[2] as the spark-peer module configures it:
 * <ul>
 *   <li>{@code cluster NAME PATH OPTIONS}: {@code CALL run_clustering(path => PATH, options => OPTIONS)}, which
 *       plans and executes one clustering as a Spark user would run it; with {@code -Dbench.warmup=OTHER_PATH}, after
 *       one unmeasured call on another copy of the table;</li>
 *   <li>{@code count PATH...}: reads each table back with the Hudi datasource, {@code count(*)} and
 *       {@code count(DISTINCT event_id)}.</li>
 * </ul>
 * It prints one {@code @@result} line of {@code key=value} pairs per command, as {@code BinaryCopyBench} does.
 *
 * <p>Phases come from Hudi's own log events in the procedure: planning is from the call to "Starting clustering at
 * INSTANT" (the procedure opens its write client and schedules the plan before that), executing from there to the
 * commit taking the table lock ("State change starting" for INSTANT; Spark runs the copy job when the commit
 * collects the write statuses, before that), committing from there to "Clustering successfully on commit".
 */
public final class SparkBinaryCopyBench {
  private static final Pattern STARTING = Pattern.compile("Starting clustering at (\\S+)");

  public static void main(String[] args) {
    if (args.length < 2 || !List.of("cluster", "count").contains(args[0])) {
      System.err.println("usage: SparkBinaryCopyBench cluster NAME PATH OPTIONS | count PATH...");
      System.exit(2);
    }
    PhaseLog phases = PhaseLog.attach();
    long sessionStart = System.currentTimeMillis();
    SparkSession spark = session();
    long sessionMs = System.currentTimeMillis() - sessionStart;
    List<Map<String, String>> results = new ArrayList<>();
    if (args[0].equals("cluster")) {
      String warmUp = System.getProperty("bench.warmup");
      if (warmUp != null) {
        // As for the daemon's warm run: Hudi's classes loaded and compiled by one unmeasured clustering first.
        cluster(spark, phases, "warm-up", warmUp, args[3]);
      }
      results.add(cluster(spark, phases, args[1], args[2], args[3]));
    } else {
      for (int i = 1; i < args.length; i++) {
        results.add(count(spark, args[i]));
      }
    }
    spark.stop();
    for (Map<String, String> result : results) {
      result.put("session_ms", Long.toString(sessionMs));
      result.put("heap_pool_peaks_mib", Long.toString(heapPoolPeaksMib()));
      StringBuilder line = new StringBuilder("@@result");
      result.forEach((key, value) -> line.append(' ').append(key).append('=').append(value));
      System.out.println(line);
    }
    // Hudi's and Spark's non-daemon threads must not keep the benchmark waiting.
    System.exit(0);
  }

  private static Map<String, String> cluster(SparkSession spark, PhaseLog phases, String name, String basePath,
                                             String options) {
    long start = System.currentTimeMillis();
    long startCpu = processCpuNanos();
    List<Row> rows = spark.sql("CALL run_clustering(path => '" + basePath + "', options => '" + options + "')")
        .collectAsList();
    long done = System.currentTimeMillis();
    long doneCpu = processCpuNanos();
    Map<String, String> result = new LinkedHashMap<>();
    result.put("name", name);
    if (rows.isEmpty()) {
      throw new IllegalStateException("run_clustering made no clustering on " + basePath);
    }
    // The procedure's rows name the instant (timestamp first). On the rewrite path (SparkSortAndSize) Hudi logs no
    // "Starting clustering at" through the loggers watched here: its phases are then NA, the totals still hold.
    String logged = phases.instantAfter(start);
    String instant = logged != null ? logged : String.valueOf(rows.get(0).get(0));
    PhaseLog.Event called = new PhaseLog.Event(start, startCpu, "");
    PhaseLog.Event executing = logged == null ? null
        : phases.firstEventAfter(called, "Starting clustering at " + instant);
    PhaseLog.Event lock = phases.firstEventAfter(executing, "State change starting", instant);
    PhaseLog.Event committed = phases.firstEventAfter(lock, "Clustering successfully on commit " + instant);
    result.put("instant", instant);
    result.put("rows", rows.toString().replace(' ', '_'));
    result.put("plan_ms", executing == null ? "NA" : Long.toString(executing.millis() - start));
    result.put("exec_ms", lock == null ? "NA" : Long.toString(lock.millis() - executing.millis()));
    result.put("commit_ms", committed == null ? "NA" : Long.toString(committed.millis() - lock.millis()));
    result.put("after_commit_ms", committed == null ? "NA" : Long.toString(done - committed.millis()));
    result.put("plan_cpu_ms", executing == null ? "NA" : cpuMs(executing.cpuNanos() - startCpu));
    result.put("exec_cpu_ms", lock == null ? "NA" : cpuMs(lock.cpuNanos() - executing.cpuNanos()));
    result.put("commit_cpu_ms", committed == null ? "NA" : cpuMs(committed.cpuNanos() - lock.cpuNanos()));
    result.put("total_cpu_ms", cpuMs(doneCpu - startCpu));
    result.put("total_ms", Long.toString(done - start));
    return result;
  }

  private static Map<String, String> count(SparkSession spark, String basePath) {
    spark.read().format("hudi").load(basePath).createOrReplaceTempView("t");
    Row row = spark.sql("SELECT count(*), count(DISTINCT event_id) FROM t").first();
    Map<String, String> result = new LinkedHashMap<>();
    result.put("path", basePath);
    result.put("spark_rows", Long.toString(row.getLong(0)));
    result.put("spark_distinct_keys", Long.toString(row.getLong(1)));
    return result;
  }

  /** As the spark-peer module starts its session (io.huditsd.sparkpeer.SparkPeer), local[2]. */
  private static SparkSession session() {
    String work = System.getProperty("bench.spark.dir", System.getProperty("java.io.tmpdir"));
    return SparkSession.builder()
        .appName("hudi-tsd-binary-copy-bench")
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

  /** CPU time of the whole process (every thread: the work's, the collector's, the JIT's), which load barely moves. */
  static long processCpuNanos() {
    return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime();
  }

  private static String cpuMs(long nanos) {
    return Long.toString(nanos / 1_000_000);
  }

  private static long heapPoolPeaksMib() {
    long bytes = 0;
    for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
      if (pool.getType() == MemoryType.HEAP) {
        bytes += pool.getPeakUsage().getUsed();
      }
    }
    return bytes >> 20;
  }

  /** Hudi's clustering and commit log events with their timestamps (log4j2, as Spark logs). */
  private static final class PhaseLog extends AbstractAppender {
    /** A log event, with the process's CPU time when it was logged. */
    record Event(long millis, long cpuNanos, String message) {
    }

    private final List<Event> events = new CopyOnWriteArrayList<>();

    private PhaseLog() {
      super("bench-phases", null, null, true, Property.EMPTY_ARRAY);
    }

    static PhaseLog attach() {
      LoggerContext context = (LoggerContext) LogManager.getContext(false);
      Configuration configuration = context.getConfiguration();
      PhaseLog log = new PhaseLog();
      log.start();
      configuration.addAppender(log);
      for (String name : List.of("org.apache.hudi.client.transaction.TransactionManager",
          "org.apache.hudi.client.BaseHoodieTableServiceClient")) {
        LoggerConfig logger = new LoggerConfig(name, Level.INFO, false);
        logger.addAppender(log, Level.INFO, null);
        configuration.addLogger(name, logger);
      }
      context.updateLoggers();
      return log;
    }

    @Override
    public void append(LogEvent event) {
      events.add(new Event(event.getTimeMillis(), processCpuNanos(), event.getMessage().getFormattedMessage()));
    }

    /** The instant of the first "Starting clustering at" event at or after {@code millis}, or null. */
    String instantAfter(long millis) {
      for (Event event : events) {
        Matcher matcher = STARTING.matcher(event.message());
        if (event.millis() >= millis && matcher.find()) {
          return matcher.group(1);
        }
      }
      return null;
    }

    /** The first event at or after {@code after}'s time containing every one of {@code parts}, or null. */
    Event firstEventAfter(Event after, String... parts) {
      if (after == null) {
        return null;
      }
      for (Event event : events) {
        if (event.millis() >= after.millis() && Stream.of(parts).allMatch(event.message()::contains)) {
          return event;
        }
      }
      return null;
    }
  }
}
