package io.huditsd.executors;

import io.huditsd.config.ServiceType;
import io.huditsd.config.ServicedTable;
import org.apache.hudi.client.HoodieJavaWriteClient;
import org.apache.hudi.common.model.HoodieAvroPayload;
import org.apache.hudi.common.model.HoodieTableType;
import org.apache.hudi.common.model.TableServiceType;
import org.apache.hudi.common.table.HoodieTableMetaClient;
import org.apache.hudi.common.table.timeline.HoodieInstant;
import org.apache.hudi.common.util.Option;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/** Pending plans read from the timelines of real tables, with plans scheduled by Hudi's Java write client. */
class TestPendingPlans {
  private final LocalTables localTables = new LocalTables();

  @TempDir
  Path directory;

  private Option<String> schedule(ServicedTable table, TableServiceType service) {
    try (HoodieJavaWriteClient<HoodieAvroPayload> client = localTables.hudiTables().writeClient(table)) {
      return client.scheduleTableService(Option.empty(), service);
    }
  }

  private HoodieTableMetaClient metaClient(ServicedTable table) {
    return localTables.hudiTables().metaClient(table.basePath());
  }

  @ParameterizedTest
  @ValueSource(ints = {6, 9})
  void aScheduledCompactionIsListedWithItsFileGroupsAndLogBytes(int version) throws IOException {
    Path tableDirectory = directory.resolve("orders");
    ServicedTable table = localTables.create(tableDirectory, HoodieTableType.MERGE_ON_READ, version,
        Map.of("hoodie.compact.inline.max.delta.commits", "1"));
    localTables.upsert(table, 0, 20, 1);
    localTables.upsert(table, 0, 10, 2);
    assertThat(PendingPlans.list(metaClient(table))).isEmpty();

    String instant = schedule(table, TableServiceType.COMPACT).get();
    List<PendingPlan> plans = PendingPlans.list(metaClient(table));

    assertThat(plans).hasSize(1);
    PendingPlan plan = plans.get(0);
    assertThat(plan.service()).isEqualTo(ServiceType.COMPACTION);
    assertThat(plan.instant()).isEqualTo(instant);
    assertThat(plan.inflight()).isFalse();
    // Both regions got an upsert into the file group the first commit created; the plan covers those file groups.
    assertThat(plan.fileGroupIds()).isEqualTo(logFileGroups(tableDirectory));
    assertThat(plan.inputBytes()).isEqualTo(logBytes(tableDirectory)).isPositive();
  }

  @Test
  void aCompactionWhoseExecutionStartedIsInflight() throws IOException {
    ServicedTable table = localTables.create(directory.resolve("orders"), HoodieTableType.MERGE_ON_READ, 9,
        Map.of("hoodie.compact.inline.max.delta.commits", "1"));
    localTables.upsert(table, 0, 10, 1);
    localTables.upsert(table, 0, 10, 2);
    String instant = schedule(table, TableServiceType.COMPACT).get();
    HoodieTableMetaClient metaClient = metaClient(table);
    HoodieInstant requested = metaClient.getActiveTimeline().filterPendingCompactionTimeline().lastInstant().get();
    metaClient.getActiveTimeline().transitionCompactionRequestedToInflight(requested);

    assertThat(PendingPlans.list(metaClient(table)))
        .extracting(PendingPlan::service, PendingPlan::instant, PendingPlan::inflight)
        .containsExactly(org.assertj.core.groups.Tuple.tuple(ServiceType.COMPACTION, instant, true));
  }

  @Test
  void aScheduledClusteringIsListedWithItsFileGroups() throws IOException {
    Path tableDirectory = directory.resolve("events");
    ServicedTable table = localTables.create(tableDirectory, HoodieTableType.COPY_ON_WRITE, 9,
        Map.of("hoodie.clustering.inline.max.commits", "1",
            // Every file group was just written: nothing is cold enough for the daemon's default planner.
            "hoodie.clustering.plan.strategy.hot.commits", "0", "hoodie.clustering.plan.strategy.hot.minutes", "0"));
    // Two inserts of new keys make two small files per region: something to cluster.
    localTables.upsert(table, 0, 10, 1);
    localTables.upsert(table, 10, 10, 1);

    String instant = schedule(table, TableServiceType.CLUSTER).get();
    List<PendingPlan> plans = PendingPlans.list(metaClient(table));

    assertThat(plans).extracting(PendingPlan::service, PendingPlan::instant, PendingPlan::inflight)
        .containsExactly(org.assertj.core.groups.Tuple.tuple(ServiceType.CLUSTERING, instant, false));
    assertThat(plans.get(0).fileGroupIds()).isEqualTo(baseFileGroups(tableDirectory)).hasSize(4);
  }

  /** The "Scheduled" log line prints these sizes, the "Finished" line the run's result: one plan, same counts. */
  @Test
  void aClusteringPlansSizesAreWhatItsRunReports() throws IOException {
    Path tableDirectory = directory.resolve("events");
    ServicedTable table = localTables.create(tableDirectory, HoodieTableType.COPY_ON_WRITE, 9,
        Map.of("hoodie.clustering.inline.max.commits", "1",
            "hoodie.clustering.plan.strategy.hot.commits", "0", "hoodie.clustering.plan.strategy.hot.minutes", "0"));
    localTables.upsert(table, 0, 10, 1);
    localTables.upsert(table, 10, 10, 1);
    long baseBytes = 0;
    for (Path file : dataFiles(tableDirectory).filter(f -> f.getFileName().toString().endsWith(".parquet")).toList()) {
      baseBytes += Files.size(file);
    }
    String instant = schedule(table, TableServiceType.CLUSTER).get();

    PlanSizes sizes = PlanSizes.of(metaClient(table), PendingPlans.list(metaClient(table)).get(0));
    ActionResult result;
    try (HoodieJavaWriteClient<HoodieAvroPayload> client = localTables.hudiTables().writeClient(table)) {
      result = new ClusteringAction().execute(client, java.util.Optional.of(instant));
    }

    // Four small files in two regions, rewritten into one file group per region.
    assertThat(sizes).isEqualTo(new PlanSizes(2, baseBytes));
    assertThat(sizes).isEqualTo(new PlanSizes(result.fileGroups(), result.bytesIn()));
  }

  @Test
  void aScheduledCleanIsListedWithoutFileGroups() throws IOException {
    ServicedTable table = localTables.create(directory.resolve("events"), HoodieTableType.COPY_ON_WRITE, 9,
        Map.of("hoodie.clean.commits.retained", "1"));
    localTables.upsert(table, 0, 10, 1);
    localTables.upsert(table, 0, 10, 2);
    localTables.upsert(table, 0, 10, 3);

    String instant = schedule(table, TableServiceType.CLEAN).get();

    assertThat(PendingPlans.list(metaClient(table)))
        .containsExactly(new PendingPlan(ServiceType.CLEAN, instant, false, Set.of(), 0));
  }

  /** {@code region/fileId} of every file group with a log file. */
  private static Set<String> logFileGroups(Path table) throws IOException {
    return dataFiles(table).filter(file -> file.getFileName().toString().contains(".log."))
        .map(file -> table.relativize(file.getParent()) + "/" + logFileId(file.getFileName().toString()))
        .collect(Collectors.toSet());
  }

  private static Set<String> baseFileGroups(Path table) throws IOException {
    return dataFiles(table).filter(file -> file.getFileName().toString().endsWith(".parquet"))
        .map(file -> table.relativize(file.getParent()) + "/" + file.getFileName().toString().split("_")[0])
        .collect(Collectors.toSet());
  }

  private static long logBytes(Path table) throws IOException {
    long bytes = 0;
    for (Path file : dataFiles(table).filter(f -> f.getFileName().toString().contains(".log.")).toList()) {
      bytes += Files.size(file);
    }
    return bytes;
  }

  /** Log files are named {@code .<fileId>_<instant>.log.<version>_<writeToken>}. */
  private static String logFileId(String name) {
    return name.substring(1, name.indexOf('_'));
  }

  private static Stream<Path> dataFiles(Path table) throws IOException {
    return LocalTables.REGIONS.stream().flatMap(region -> {
      try (Stream<Path> files = Files.list(table.resolve(region))) {
        return files.filter(file -> !file.getFileName().toString().endsWith(".crc")).toList().stream();
      } catch (IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
    });
  }
}
