package io.huditsd.executors.clustering;

import io.huditsd.config.MetadataIndexes;
import io.huditsd.config.ServiceType;
import io.huditsd.config.ServicedTable;
import io.huditsd.config.TableIds;
import io.huditsd.config.TablePaths;
import io.huditsd.executors.ClusteringStrategyMatch;
import io.huditsd.executors.HeapEstimate;
import io.huditsd.executors.HudiTables;
import io.huditsd.executors.LocalTables;
import io.huditsd.executors.PendingPlan;
import io.huditsd.executors.PendingPlans;
import io.huditsd.executors.Placement;
import io.huditsd.executors.PlanRunner;
import io.huditsd.executors.WorkItem;
import org.apache.hudi.client.HoodieJavaWriteClient;
import org.apache.hudi.common.model.HoodieAvroPayload;
import org.apache.hudi.common.model.HoodieTableType;
import org.apache.hudi.common.table.HoodieTableMetaClient;
import org.apache.hudi.common.util.Option;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The streaming rewrite's heap does not grow with the group: a child JVM whose heap is several times too small to
 * hold one group's records clusters the table through the daemon's own path (the default plan names Hudi's
 * JavaSortAndSizeExecutionStrategy, which the daemon executes with the streaming rewrite), while Hudi's strategy,
 * executing the same plan on a copy of the table at the same heap, runs out of memory.
 */
class TestStreamingRewriteHeap {
  /**
   * Two groups (one a partition) of 120,000 rows, 3.3 MB of Parquet each. Measured: Hudi's strategy needs more than
   * 96 MiB of heap (passes at 192), the streaming rewrite passes at 48.
   */
  private static final int COMMITS = 4;
  private static final int ROWS_PER_COMMIT = 60_000;
  private static final String HEAP = "-Xmx" + Integer.getInteger("tsd.test.stream.heap.mib", 96) + "m";
  /**
   * Hudi's 16 MiB read buffer per file opened (metadata-table files, a few at once) would alone fill a small heap;
   * the daemon defaults it to 1 MiB.
   */
  private static final Map<String, String> KEYS = Map.of(HotFileGroups.COMMITS_KEY, "0",
      HotFileGroups.MINUTES_KEY, "0", "hoodie.memory.dfs.buffer.max.size", Integer.toString(1 << 20));

  /**
   * Without a metadata table: its update at commit (Hudi's, whichever strategy ran) reads with buffers of its own
   * that would dominate a heap this small; what is measured here is the execution strategy.
   */
  private static final Map<String, String> NO_METADATA_TABLE = Map.of("hoodie.metadata.enable", "false");

  private final CopyTables tables = new CopyTables();

  @TempDir
  Path directory;

  @Test
  void clustersAGroupSeveralTimesTheHeapWhereHudisListStrategyRunsOutOfMemory() throws Exception {
    ServicedTable table = tables.create(directory.resolve("big"), HoodieTableType.COPY_ON_WRITE, CopyTables.V2, KEYS);
    for (int commit = 0; commit < COMMITS; commit++) {
      tables.upsert(table, CopyTables.V2, commit * ROWS_PER_COMMIT, ROWS_PER_COMMIT, 1, 1, NO_METADATA_TABLE);
    }
    // Plans name their files by full path: each copy gets a plan of its own.
    Path copy = directory.resolve("copy");
    copyTree(directory.resolve("big"), copy);
    schedule(directory.resolve("big"));
    schedule(copy);

    Result hudi = runChild(copy, "hudi-list");
    Result daemon = runChild(directory.resolve("big"), "daemon");

    assertThat(hudi.exitCode()).as("Hudi's list strategy at %s:\n%s", HEAP, hudi.output()).isEqualTo(3);
    assertThat(hudi.output()).contains("OutOfMemoryError");
    assertThat(daemon.exitCode()).as("the daemon at %s:\n%s", HEAP, daemon.output()).isZero();
    assertThat(daemon.output()).contains("@@clustered");
    HoodieTableMetaClient metaClient = tables.hudiTables().metaClient(table.basePath());
    assertThat(metaClient.getActiveTimeline().getCompletedReplaceTimeline().countInstants()).isEqualTo(1);
    List<Map<String, String>> rows = tables.latestRows(table);
    assertThat(rows).hasSize(COMMITS * ROWS_PER_COMMIT);
    assertThat(rows.stream().map(row -> row.get("id")).distinct().count()).isEqualTo(COMMITS * ROWS_PER_COMMIT);
  }

  private void schedule(Path basePath) {
    try (HoodieJavaWriteClient<HoodieAvroPayload> client = tables.hudiTables().writeClient(table(basePath))) {
      assertThat(client.scheduleClustering(Option.empty()).isPresent()).isTrue();
    }
  }

  private static ServicedTable table(Path directory) {
    String basePath = TablePaths.normalize(directory.toString());
    return new ServicedTable(TableIds.derive(basePath), basePath, Set.of(ServiceType.values()),
        Duration.ofSeconds(30), KEYS, MetadataIndexes.none());
  }

  private record Result(int exitCode, String output) {
  }

  private static Result runChild(Path table, String mode) throws IOException, InterruptedException {
    Path java = Path.of(System.getProperty("java.home"), "bin", "java");
    Process process = new ProcessBuilder(List.of(java.toString(), HEAP, "-XX:+ExitOnOutOfMemoryError",
        "-XX:ActiveProcessorCount=2", "-cp", System.getProperty("java.class.path"), Child.class.getName(),
        table.toString(), mode)).redirectErrorStream(true).start();
    // Read while it runs, or a full pipe would block the child.
    byte[] output = process.getInputStream().readAllBytes();
    assertThat(process.waitFor(5, TimeUnit.MINUTES)).isTrue();
    String text = new String(output, StandardCharsets.UTF_8);
    // Only the end: the child logs Hudi's INFO lines.
    return new Result(process.exitValue(), text.length() > 4000 ? text.substring(text.length() - 4000) : text);
  }

  private static void copyTree(Path from, Path to) throws IOException {
    try (Stream<Path> paths = Files.walk(from)) {
      for (Path path : (Iterable<Path>) paths::iterator) {
        Files.copy(path, to.resolve(from.relativize(path).toString()), StandardCopyOption.COPY_ATTRIBUTES);
      }
    }
  }

  /** Executes the table's pending clustering plan: as the daemon does, or with Hudi's list strategy. */
  public static final class Child {
    public static void main(String[] args) throws Exception {
      HudiTables hudiTables = new LocalTables().hudiTables();
      ServicedTable table = table(Path.of(args[0]));
      HoodieTableMetaClient metaClient = hudiTables.metaClient(table.basePath());
      PendingPlan plan = PendingPlans.list(metaClient).get(0);
      if (args[1].equals("daemon")) {
        PlanRunner.withDefaultActions(hudiTables).apply(WorkItem.forPlan(table, plan,
            Placement.inProcess(HeapEstimate.NONE)));
      } else {
        String instant = plan.instant();
        try (HoodieJavaWriteClient<HoodieAvroPayload> client = hudiTables.writeClient(table,
            Map.of(ClusteringStrategyMatch.EXECUTION_STRATEGY_KEY, ClusteringStrategyMatch.JAVA_SORT_AND_SIZE))) {
          client.cluster(instant, true);
        }
      }
      System.out.println("@@clustered");
      System.exit(0);
    }
  }
}
