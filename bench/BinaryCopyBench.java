import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.AppenderBase;
import io.huditsd.config.HeartbeatSettings;
import io.huditsd.config.MetadataIndexes;
import io.huditsd.config.TableWriteConfigs;
import io.huditsd.lock.DefaultTableLock;
import org.apache.hadoop.conf.Configuration;
import org.apache.hudi.client.HoodieJavaWriteClient;
import org.apache.hudi.client.common.HoodieJavaEngineContext;
import org.apache.hudi.common.model.HoodieAvroPayload;
import org.apache.hudi.common.model.HoodieBaseFile;
import org.apache.hudi.common.table.HoodieTableMetaClient;
import org.apache.hudi.common.table.timeline.HoodieTimeline;
import org.apache.hudi.common.table.view.HoodieTableFileSystemView;
import org.apache.hudi.common.util.Option;
import org.apache.hudi.config.HoodieWriteConfig;
import org.apache.hudi.storage.hadoop.HadoopStorageConfiguration;
import org.apache.parquet.format.converter.ParquetMetadataConverter;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Stream;

/**
 * The binary-copy benchmark's Java side, compiled by {@code bench/binary-copy.sh} and run on the built daemon's class
 * path, one JVM per contender so that heap figures belong to one contender:
 * <ul>
 *   <li>{@code cluster NAME PATH KEY=VALUE...}: plans and executes one clustering on the table at PATH with a plain
 *       {@code HoodieJavaWriteClient} on the write config the daemon would use for it ({@link TableWriteConfigs}: the
 *       table's own keys, metadata writes matching its metadata partitions, optimistic concurrency with the in-process
 *       lock) plus the given keys (the strategy classes, group sizes). With {@code -Dbench.warmup=OTHER_PATH} it
 *       first does the same, unmeasured, on another copy of the table, so that the measured run finds the JVM warm
 *       as a daemon's is;</li>
 *   <li>{@code describe PATH INSTANT}: what the table's latest base files are, and which of them INSTANT wrote, from
 *       their Parquet footers;</li>
 *   <li>{@code copy FROM TO}: copies the base files under FROM into TO with {@code Files.copy}, the floor that any
 *       copy of the same bytes has.</li>
 * </ul>
 * Each prints one line starting with {@code @@result} of {@code key=value} pairs for the script.
 *
 * <p>Phases: planning is from opening the table to {@code scheduleClustering} returning (Spark's {@code CALL
 * run_clustering} also opens its client inside); executing is from {@code cluster(instant, true)} being called to the
 * moment Hudi's commit takes the table lock (its {@code TransactionManager} logs "State change starting" for the
 * clustering instant; everything after is finalizing, the metadata-table update and the timeline transition);
 * committing is from there until {@code cluster} returns.
 */
public final class BinaryCopyBench {
  public static void main(String[] args) throws Exception {
    if (args.length < 3) {
      usage();
    }
    Map<String, String> result = switch (args[0]) {
      case "cluster" -> {
        String warmUp = System.getProperty("bench.warmup");
        if (warmUp != null) {
          // A daemon's JVM has loaded and compiled Hudi long before a plan is due: one unmeasured run first.
          cluster("warm-up", warmUp, keys(args));
        }
        yield cluster(args[1], args[2], keys(args));
      }
      case "describe" -> describe(args[1], args[2]);
      case "copy" -> copy(Path.of(args[1]), Path.of(args[2]));
      default -> {
        usage();
        yield Map.of();
      }
    };
    result.put("heap_pool_peaks_mib", Long.toString(heapPoolPeaksMib()));
    StringBuilder line = new StringBuilder("@@result");
    result.forEach((key, value) -> line.append(' ').append(key).append('=').append(value));
    System.out.println(line);
    // Hudi's clients can leave non-daemon threads behind.
    System.exit(0);
  }

  private static void usage() {
    System.err.println("usage: BinaryCopyBench cluster NAME PATH [KEY=VALUE...] | describe PATH INSTANT | copy FROM TO");
    System.exit(2);
  }

  private static Map<String, String> keys(String[] args) {
    Map<String, String> keys = new LinkedHashMap<>();
    for (int i = 3; i < args.length; i++) {
      int equals = args[i].indexOf('=');
      if (equals <= 0) {
        throw new IllegalArgumentException("expected KEY=VALUE, got '" + args[i] + "'");
      }
      keys.put(args[i].substring(0, equals), args[i].substring(equals + 1));
    }
    return keys;
  }

  private static Map<String, String> cluster(String name, String basePath, Map<String, String> keys) {
    PhaseLog phases = PhaseLog.attached();
    long start = System.currentTimeMillis();
    long startCpu = processCpuNanos();
    Configuration hadoop = new Configuration();
    HadoopStorageConfiguration storage = new HadoopStorageConfiguration(hadoop);
    HoodieTableMetaClient metaClient = HoodieTableMetaClient.builder().setConf(storage).setBasePath(basePath).build();
    // As the daemon: its default lock for the table's store (the storage lock on local tables).
    HoodieWriteConfig config = TableWriteConfigs.build(metaClient, DefaultTableLock.apply(basePath, keys),
        new HeartbeatSettings(60_000, 2), MetadataIndexes.none());
    Map<String, String> result = new LinkedHashMap<>();
    result.put("name", name);
    try (HoodieJavaWriteClient<HoodieAvroPayload> client =
             new HoodieJavaWriteClient<>(new HoodieJavaEngineContext(storage), config)) {
      Option<String> instant = client.scheduleClustering(Option.empty());
      long planned = System.currentTimeMillis();
      long plannedCpu = processCpuNanos();
      if (!instant.isPresent()) {
        throw new IllegalStateException("no clustering plan for " + basePath + " with " + keys);
      }
      client.cluster(instant.get(), true);
      long done = System.currentTimeMillis();
      long doneCpu = processCpuNanos();
      PhaseLog.Event lock = phases.firstEventAfter(planned, "State change starting", instant.get());
      long lockTaken = lock == null ? -1 : lock.millis();
      result.put("instant", instant.get());
      result.put("plan_ms", Long.toString(planned - start));
      result.put("exec_ms", lockTaken < 0 ? "NA" : Long.toString(lockTaken - planned));
      result.put("commit_ms", lockTaken < 0 ? "NA" : Long.toString(done - lockTaken));
      result.put("total_ms", Long.toString(done - start));
      result.put("plan_cpu_ms", cpuMs(plannedCpu - startCpu));
      result.put("exec_cpu_ms", lock == null ? "NA" : cpuMs(lock.cpuNanos() - plannedCpu));
      result.put("commit_cpu_ms", lock == null ? "NA" : cpuMs(doneCpu - lock.cpuNanos()));
      result.put("total_cpu_ms", cpuMs(doneCpu - startCpu));
      // The execute phase in JVM uptime, as -Xlog:gc stamps its lines, to single out the collections during it.
      long jvmStart = ManagementFactory.getRuntimeMXBean().getStartTime();
      result.put("exec_window_ms", (planned - jvmStart) + "-" + ((lockTaken < 0 ? done : lockTaken) - jvmStart));
    }
    return result;
  }

  private static Map<String, String> describe(String basePath, String instant) throws IOException {
    Configuration hadoop = new Configuration();
    HadoopStorageConfiguration storage = new HadoopStorageConfiguration(hadoop);
    HoodieTableMetaClient metaClient = HoodieTableMetaClient.builder().setConf(storage).setBasePath(basePath).build();
    HoodieTimeline completed = metaClient.getActiveTimeline().getCommitsTimeline().filterCompletedInstants();
    long files = 0;
    long rows = 0;
    long newFiles = 0;
    long newBytes = 0;
    long newRowGroups = 0;
    long newRows = 0;
    try (HoodieTableFileSystemView view = HoodieTableFileSystemView.fileListingBasedFileSystemView(
        new HoodieJavaEngineContext(storage), metaClient, completed)) {
      for (String partition : partitions(Path.of(basePath))) {
        for (HoodieBaseFile file : view.getLatestBaseFiles(partition).toList()) {
          ParquetMetadata footer = ParquetFileReader.readFooter(hadoop,
              new org.apache.hadoop.fs.Path(file.getPath()), ParquetMetadataConverter.NO_FILTER);
          long fileRows = footer.getBlocks().stream().mapToLong(BlockMetaData::getRowCount).sum();
          files++;
          rows += fileRows;
          if (file.getCommitTime().equals(instant)) {
            newFiles++;
            newBytes += file.getFileSize();
            newRowGroups += footer.getBlocks().size();
            newRows += fileRows;
          }
        }
      }
    }
    Map<String, String> result = new LinkedHashMap<>();
    result.put("latest_files", Long.toString(files));
    result.put("rows", Long.toString(rows));
    result.put("files_out", Long.toString(newFiles));
    result.put("bytes_out", Long.toString(newBytes));
    result.put("row_groups_out", Long.toString(newRowGroups));
    result.put("rows_out", Long.toString(newRows));
    return result;
  }

  /** Partition directories: those Hudi marked with a partition metadata file, the metadata table's excluded. */
  private static List<String> partitions(Path basePath) throws IOException {
    try (Stream<Path> walk = Files.walk(basePath)) {
      return walk.filter(path -> path.getFileName().toString().equals(".hoodie_partition_metadata"))
          .map(path -> basePath.relativize(path.getParent()).toString())
          .filter(relative -> !relative.startsWith(".hoodie"))
          .toList();
    }
  }

  private static Map<String, String> copy(Path from, Path to) throws IOException {
    List<Path> files;
    try (Stream<Path> walk = Files.walk(from)) {
      files = walk.filter(path -> path.getFileName().toString().endsWith(".parquet"))
          .filter(path -> !from.relativize(path).toString().startsWith(".hoodie"))
          .toList();
    }
    Files.createDirectories(to);
    long start = System.nanoTime();
    long startCpu = processCpuNanos();
    long bytes = 0;
    for (Path file : files) {
      Path target = Files.copy(file, to.resolve(file.getFileName()));
      bytes += Files.size(target);
    }
    long elapsedMs = (System.nanoTime() - start) / 1_000_000;
    Map<String, String> result = new LinkedHashMap<>();
    result.put("exec_ms", Long.toString(elapsedMs));
    result.put("exec_cpu_ms", cpuMs(processCpuNanos() - startCpu));
    result.put("total_cpu_ms", result.get("exec_cpu_ms"));
    result.put("files_out", Integer.toString(files.size()));
    result.put("bytes_out", Long.toString(bytes));
    return result;
  }

  /** CPU time of the whole process (every thread: the work's, the collector's, the JIT's), which load barely moves. */
  static long processCpuNanos() {
    return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime();
  }

  private static String cpuMs(long nanos) {
    return Long.toString(nanos / 1_000_000);
  }

  /** Sum of each heap pool's peak use: an upper bound of the heap in use at any one moment. */
  private static long heapPoolPeaksMib() {
    long bytes = 0;
    for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
      if (pool.getType() == MemoryType.HEAP) {
        bytes += pool.getPeakUsage().getUsed();
      }
    }
    return bytes >> 20;
  }

  /** Log events of Hudi's commit path with their timestamps, to split executing from committing. */
  private static final class PhaseLog extends AppenderBase<ILoggingEvent> {
    /** A log event, with the process's CPU time when it was logged. */
    record Event(long millis, long cpuNanos, String message) {
    }

    private final List<Event> events = new CopyOnWriteArrayList<>();

    private static PhaseLog attached;

    static synchronized PhaseLog attached() {
      if (attached == null) {
        attached = attach();
      }
      return attached;
    }

    private static PhaseLog attach() {
      LoggerContext context = (LoggerContext) LoggerFactory.getILoggerFactory();
      PhaseLog log = new PhaseLog();
      log.setContext(context);
      log.start();
      for (String name : List.of("org.apache.hudi.client.transaction.TransactionManager",
          "org.apache.hudi.client.BaseHoodieTableServiceClient")) {
        Logger logger = context.getLogger(name);
        logger.setLevel(Level.INFO);
        logger.setAdditive(false);
        logger.addAppender(log);
      }
      return log;
    }

    @Override
    protected void append(ILoggingEvent event) {
      events.add(new Event(event.getTimeStamp(), processCpuNanos(), event.getFormattedMessage()));
    }

    /** The first event at or after {@code millis} containing every one of {@code parts}, or null. */
    Event firstEventAfter(long millis, String... parts) {
      for (Event event : events) {
        if (event.millis() >= millis && Stream.of(parts).allMatch(event.message()::contains)) {
          return event;
        }
      }
      return null;
    }
  }
}
