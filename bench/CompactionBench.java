import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.PatternLayoutEncoder;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.FileAppender;
import io.huditsd.config.HeartbeatSettings;
import io.huditsd.config.MetadataIndexes;
import io.huditsd.config.ServiceType;
import io.huditsd.config.ServicedTable;
import io.huditsd.config.TableIds;
import io.huditsd.executors.HudiTables;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hudi.client.HoodieJavaWriteClient;
import org.apache.hudi.client.common.HoodieJavaEngineContext;
import org.apache.hudi.common.engine.EngineType;
import org.apache.hudi.common.model.HoodieAvroPayload;
import org.apache.hudi.common.table.HoodieTableConfig;
import org.apache.hudi.common.table.HoodieTableMetaClient;
import org.apache.hudi.common.table.TableSchemaResolver;
import org.apache.hudi.common.util.Option;
import org.apache.hudi.config.HoodieWriteConfig;
import org.apache.hudi.metadata.HoodieTableMetadataUtil;
import org.apache.hudi.storage.hadoop.HadoopStorageConfiguration;
import org.slf4j.LoggerFactory;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;

/**
 * The compaction benchmark's Java side (issue 16), compiled by {@code bench/compaction.sh} against the daemon's class
 * path. Two programs, one JVM each:
 * <ul>
 *   <li>{@code compact NAME PATH minimal|daemon [KEY=VALUE...]}: Hudi's plain Java engine client on the table at
 *       PATH: {@code scheduleCompaction} then {@code compact(instant, true)} (execute and commit, as the daemon's
 *       CompactionAction calls it). {@code minimal}: only what the Java engine needs and what keeps the metadata
 *       table in sync (no lock, single writer, Hudi's default markers/heartbeat/streaming settings). {@code daemon}:
 *       exactly the write config the daemon builds for the table ({@link HudiTables#writeConfig}: optimistic
 *       concurrency, its fenced storage lock, heartbeats, metadata streaming writes, ...). The KEY=VALUE pairs are
 *       put on top of either, last, so one suspect at a time can be switched;</li>
 *   <li>{@code once ARGS...}: {@code TsdApplication}'s own {@code main} path ({@code bin/tsd once ARGS}) with Hudi's
 *       INFO log lines written, timestamped, to {@code -Dbench.timeline=FILE}: the phase timeline and the counts of
 *       meta-client / view / metadata-table loads come from those lines.</li>
 * </ul>
 * With {@code -Dbench.timeline=FILE} both write the log lines of org.apache.hudi and io.huditsd at INFO to FILE, and
 * print Hadoop's file-system statistics (reads, lists, bytes) at exit.
 */
public final class CompactionBench {
  public static void main(String[] args) throws Exception {
    if (args.length < 1) {
      usage();
    }
    attachTimeline();
    Runtime.getRuntime().addShutdownHook(new Thread(CompactionBench::printStatistics));
    switch (args[0]) {
      case "compact" -> {
        if (args.length < 4) {
          usage();
        }
        System.out.println(compact(args));
        System.exit(0);
      }
      case "once" -> {
        // As TsdApplication.main: the widened common pool unless the JVM was given one.
        String key = "java.util.concurrent.ForkJoinPool.common.parallelism";
        if (System.getProperty(key) == null) {
          System.setProperty(key, Integer.toString(Math.max(8, 4 * Runtime.getRuntime().availableProcessors())));
        }
        String[] rest = new String[args.length];
        System.arraycopy(args, 0, rest, 0, args.length);
        // Dropwizard configures logging when the application is constructed; the timeline appender goes on after.
        io.huditsd.api.TsdApplication application = new io.huditsd.api.TsdApplication();
        attachTimeline();
        // Dropwizard's bootstrap logging filters the console appender at WARN but leaves the root logger's level
        // alone (logback's default: DEBUG unless a logback configuration set one): every isDebugEnabled() is true.
        System.err.println("@@rootlevel " + ((LoggerContext) LoggerFactory.getILoggerFactory())
            .getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME).getLevel()
            + " parquet-debug=" + LoggerFactory.getLogger("org.apache.parquet.io.MessageColumnIO").isDebugEnabled());
        mark("once start");
        application.run(rest);
      }
      default -> usage();
    }
  }

  private static void usage() {
    System.err.println("usage: CompactionBench compact NAME PATH minimal|daemon [KEY=VALUE...] | once ARGS...");
    System.exit(2);
  }

  private static String compact(String[] args) {
    String name = args[1];
    String basePath = args[2];
    String mode = args[3];
    Map<String, String> overrides = new LinkedHashMap<>();
    for (int i = 4; i < args.length; i++) {
      int equals = args[i].indexOf('=');
      if (equals <= 0) {
        throw new IllegalArgumentException("expected KEY=VALUE, got '" + args[i] + "'");
      }
      overrides.put(args[i].substring(0, equals), args[i].substring(equals + 1));
    }
    long jvmStart = ManagementFactory.getRuntimeMXBean().getStartTime();
    long start = System.currentTimeMillis();
    long startCpu = cpuNanos();
    mark("bench start");
    HudiTables tables = new HudiTables(HudiTables.defaultHadoopConfiguration(), new HeartbeatSettings(60_000, 2));
    HoodieTableMetaClient metaClient = tables.metaClient(basePath);
    HoodieWriteConfig base = switch (mode) {
      case "minimal" -> minimal(metaClient);
      case "daemon" -> tables.writeConfig(new ServicedTable(TableIds.derive(basePath), basePath,
          EnumSet.of(ServiceType.COMPACTION), Duration.ofSeconds(30), Map.of(), MetadataIndexes.none()), metaClient);
      default -> throw new IllegalArgumentException("mode must be minimal or daemon, got " + mode);
    };
    Properties properties = new Properties();
    properties.putAll(base.getProps());
    properties.putAll(overrides);
    HoodieWriteConfig config = HoodieWriteConfig.newBuilder().withEngineType(EngineType.JAVA)
        .withPath(basePath).withProps(properties).build();
    long configured = System.currentTimeMillis();
    mark("bench configured");
    String instant;
    long scheduled;
    long done;
    long scheduledCpu;
    try (HoodieJavaWriteClient<HoodieAvroPayload> client =
             new HoodieJavaWriteClient<>(new HoodieJavaEngineContext(tables.storageConfiguration().newInstance()),
                 config)) {
      Option<String> planned = client.scheduleCompaction(Option.empty());
      if (!planned.isPresent()) {
        throw new IllegalStateException("no compaction plan for " + basePath);
      }
      instant = planned.get();
      scheduled = System.currentTimeMillis();
      scheduledCpu = cpuNanos();
      mark("bench scheduled " + instant);
      client.compact(instant, true);
      done = System.currentTimeMillis();
      mark("bench compacted " + instant);
    }
    long closed = System.currentTimeMillis();
    mark("bench closed");
    return "@@result name=" + name + " mode=" + mode + " instant=" + instant
        + " jvm_to_main_ms=" + (start - jvmStart)
        + " config_ms=" + (configured - start) + " schedule_ms=" + (scheduled - configured)
        + " compact_ms=" + (done - scheduled) + " close_ms=" + (closed - done) + " total_ms=" + (closed - start)
        + " schedule_cpu_ms=" + (scheduledCpu - startCpu) / 1_000_000
        + " compact_cpu_ms=" + (cpuNanos() - scheduledCpu) / 1_000_000
        + " total_cpu_ms=" + (cpuNanos() - startCpu) / 1_000_000;
  }

  /**
   * What the Java engine needs on this table and nothing else: the table's own fields, no timeline server, the
   * table's version, and metadata writes matching its metadata partitions (files, column stats) so that the
   * metadata table stays in sync. Hudi's defaults for everything else: single writer, no lock, default heartbeat.
   */
  private static HoodieWriteConfig minimal(HoodieTableMetaClient metaClient) {
    HoodieTableConfig table = metaClient.getTableConfig();
    Properties properties = new Properties();
    properties.put("hoodie.table.name", table.getTableName());
    properties.put("hoodie.embed.timeline.server", "false");
    properties.put("hoodie.write.table.version", Integer.toString(table.getTableVersion().versionCode()));
    properties.put("hoodie.write.auto.upgrade", "false");
    properties.put("hoodie.datasource.write.recordkey.field", table.getRawRecordKeyFieldProp());
    properties.put("hoodie.datasource.write.partitionpath.field", table.getPartitionFieldProp());
    properties.put("hoodie.datasource.write.keygenerator.class", table.getKeyGeneratorClassName());
    properties.put("hoodie.datasource.write.precombine.field", table.getOrderingFieldsStr().orElse(""));
    // Table version 6 has no merge mode in hoodie.properties: Hudi derives it from the payload.
    if (table.getRecordMergeMode() != null) {
      properties.put("hoodie.write.record.merge.mode", table.getRecordMergeMode().name());
    }
    table.getPayloadClassIfPresent().ifPresent(payload -> properties.put("hoodie.datasource.write.payload.class", payload));
    properties.put("hoodie.metadata.enable",
        Boolean.toString(table.getMetadataPartitions().contains(HoodieTableMetadataUtil.PARTITION_NAME_FILES)));
    properties.put("hoodie.metadata.index.column.stats.enable", Boolean.toString(
        table.getMetadataPartitions().contains(HoodieTableMetadataUtil.PARTITION_NAME_COLUMN_STATS)));
    properties.put("hoodie.clean.automatic", "false");
    properties.put("hoodie.archive.automatic", "false");
    properties.put("hoodie.avro.schema",
        new TableSchemaResolver(metaClient).getTableSchemaIfPresent(false).get().toString());
    return HoodieWriteConfig.newBuilder().withEngineType(EngineType.JAVA)
        .withPath(metaClient.getBasePath().toString()).withProps(properties).build();
  }

  private static long cpuNanos() {
    return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime();
  }

  private static final org.slf4j.Logger MARKS = LoggerFactory.getLogger("bench.mark");

  private static void mark(String what) {
    MARKS.info("@@mark {}", what);
  }

  /** Hudi's and the daemon's INFO lines, with time and thread, into -Dbench.timeline (when given). */
  private static void attachTimeline() {
    String file = System.getProperty("bench.timeline");
    if (file == null) {
      return;
    }
    LoggerContext context = (LoggerContext) LoggerFactory.getILoggerFactory();
    PatternLayoutEncoder encoder = new PatternLayoutEncoder();
    encoder.setContext(context);
    encoder.setPattern("%d{HH:mm:ss.SSS} [%thread] %-5level %logger{60} - %msg%n");
    encoder.start();
    FileAppender<ILoggingEvent> appender = new FileAppender<>();
    appender.setContext(context);
    appender.setName("bench-timeline");
    appender.setFile(file);
    appender.setAppend(true);
    appender.setEncoder(encoder);
    appender.start();
    for (String name : new String[] {"org.apache.hudi", "io.huditsd", "bench.mark"}) {
      Logger logger = context.getLogger(name);
      logger.setLevel(Level.INFO);
      logger.setAdditive(name.equals("io.huditsd"));
      logger.detachAppender("bench-timeline");
      logger.addAppender(appender);
    }
  }

  /** Hadoop's per-scheme counters: how many reads, lists and bytes the process did on the file system. */
  private static void printStatistics() {
    if (System.getProperty("bench.timeline") == null) {
      return;
    }
    StringBuilder line = new StringBuilder("@@fsstats");
    for (FileSystem.Statistics statistics : FileSystem.getAllStatistics()) {
      line.append(' ').append(statistics.getScheme()).append(":read_ops=").append(statistics.getReadOps())
          .append(",large_read_ops=").append(statistics.getLargeReadOps())
          .append(",write_ops=").append(statistics.getWriteOps())
          .append(",bytes_read=").append(statistics.getBytesRead())
          .append(",bytes_written=").append(statistics.getBytesWritten());
    }
    System.err.println(line);
    System.err.flush();
  }
}
