package io.huditsd.executors;

import io.huditsd.config.ServiceType;
import io.huditsd.config.ServicedTable;
import org.apache.avro.file.DataFileReader;
import org.apache.avro.file.SeekableByteArrayInput;
import org.apache.avro.specific.SpecificDatumReader;
import org.apache.hudi.avro.model.HoodieCleanerPlan;
import org.apache.hudi.client.HoodieJavaWriteClient;
import org.apache.hudi.common.model.HoodieAvroPayload;
import org.apache.hudi.common.model.HoodieTableType;
import org.apache.hudi.common.model.TableServiceType;
import org.apache.hudi.common.table.HoodieTableMetaClient;
import org.apache.hudi.common.util.Option;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The clean instants the daemon leaves on a version-6 table are what Hudi 0.14/0.15 writers write, byte for byte:
 * their archiver reads {@code .clean.inflight} as a cleaner plan (an Avro data file) and fails every later commit of
 * the writer when it is empty.
 */
class TestCleanInflightPlans {
  private final LocalTables localTables = new LocalTables();
  private final PlanRunner runner = PlanRunner.withDefaultActions(localTables.hudiTables());

  @TempDir
  Path directory;

  private ServicedTable cleanableTable(String name, int version) throws IOException {
    ServicedTable table = localTables.create(directory.resolve(name), HoodieTableType.COPY_ON_WRITE, version,
        Map.of("hoodie.clean.commits.retained", "1"));
    localTables.upsert(table, 0, 10, 1);
    localTables.upsert(table, 0, 10, 2);
    localTables.upsert(table, 0, 10, 3);
    return table;
  }

  private String scheduleClean(ServicedTable table) {
    try (HoodieJavaWriteClient<HoodieAvroPayload> client = localTables.hudiTables().writeClient(table)) {
      return client.scheduleTableService(Option.empty(), TableServiceType.CLEAN).orElseThrow(
          () -> new AssertionError("no clean plan for " + table.basePath()));
    }
  }

  private ActionResult runClean(ServicedTable table) {
    HoodieTableMetaClient metaClient = localTables.hudiTables().metaClient(table.basePath());
    PendingPlan clean = PendingPlans.list(metaClient).stream()
        .filter(plan -> plan.service() == ServiceType.CLEAN).findFirst().orElseThrow();
    return runner.apply(WorkItem.forPlan(table, clean, Placement.inProcess(HeapEstimate.NONE)));
  }

  /** What 0.15's {@code CleanerUtils.getCleanerPlan} does with the bytes: read them as an Avro data file. */
  private static HoodieCleanerPlan readAsPlan(byte[] bytes) throws IOException {
    try (DataFileReader<HoodieCleanerPlan> reader = new DataFileReader<>(new SeekableByteArrayInput(bytes),
        new SpecificDatumReader<>(HoodieCleanerPlan.class))) {
      return reader.next();
    }
  }

  @Test
  void aCleanOnAVersionSixTableLeavesItsPlanInTheInflightFileAsWritersOfThatVersionDo() throws IOException {
    ServicedTable table = cleanableTable("orders", 6);
    String instant = scheduleClean(table);

    ActionResult result = runClean(table);

    assertThat(result.instant()).contains(instant);
    assertThat(result.fileGroups()).as("files deleted").isPositive();
    Path timeline = directory.resolve("orders/.hoodie");
    byte[] requested = Files.readAllBytes(timeline.resolve(instant + ".clean.requested"));
    byte[] inflight = Files.readAllBytes(timeline.resolve(instant + ".clean.inflight"));
    assertThat(timeline.resolve(instant + ".clean")).isNotEmptyFile();
    assertThat(requested).isNotEmpty();
    assertThat(inflight).isEqualTo(requested);
    assertThat(readAsPlan(inflight).getEarliestInstantToRetain().getTimestamp())
        .isEqualTo(readAsPlan(requested).getEarliestInstantToRetain().getTimestamp());
    HoodieTableMetaClient metaClient = localTables.hudiTables().metaClient(table.basePath());
    assertThat(metaClient.getActiveTimeline().getCleanerTimeline().filterCompletedInstants().lastInstant().get()
        .requestedTime()).isEqualTo(instant);
    assertThat(metaClient.getTableConfig().getTableVersion().versionCode()).isEqualTo(6);
  }

  /**
   * Tables an earlier run left with empty inflight files (the table's own timeline, and the metadata table's, where
   * Hudi's metadata writer cleans on its own) get the plans back on the next poll or run.
   */
  @Test
  void emptyInflightFilesLeftBehindAreRewrittenWithTheirPlans() throws IOException {
    ServicedTable table = cleanableTable("events", 6);
    String instant = scheduleClean(table);
    runClean(table);
    Path timeline = directory.resolve("events/.hoodie");
    byte[] plan = Files.readAllBytes(timeline.resolve(instant + ".clean.requested"));
    Files.write(timeline.resolve(instant + ".clean.inflight"), new byte[0]);
    Path metadataTimeline = Files.createDirectories(timeline.resolve("metadata/.hoodie"));
    Files.write(metadataTimeline.resolve("20261207093000000.clean.requested"), plan);
    Files.write(metadataTimeline.resolve("20261207093000000.clean.inflight"), new byte[0]);
    // An inflight without its requested plan is not the daemon's to fill.
    Files.write(metadataTimeline.resolve("20261207094000000.clean.inflight"), new byte[0]);

    HoodieTableMetaClient metaClient = localTables.hudiTables().metaClient(table.basePath());
    assertThat(CleanInflightPlans.repair(metaClient)).hasSize(2);

    assertThat(Files.readAllBytes(timeline.resolve(instant + ".clean.inflight"))).isEqualTo(plan);
    assertThat(Files.readAllBytes(metadataTimeline.resolve("20261207093000000.clean.inflight"))).isEqualTo(plan);
    assertThat(metadataTimeline.resolve("20261207094000000.clean.inflight")).isEmptyFile();
    assertThat(CleanInflightPlans.repair(metaClient)).isEmpty();
  }

  /** From table version 8 Hudi's own layout applies: the daemon adds nothing to it. */
  @Test
  void tablesOfVersionEightAndLaterAreLeftAsHudiWritesThem() throws IOException {
    ServicedTable table = cleanableTable("sales", 9);
    String instant = scheduleClean(table);

    runClean(table);

    HoodieTableMetaClient metaClient = localTables.hudiTables().metaClient(table.basePath());
    assertThat(CleanInflightPlans.apply(metaClient)).isFalse();
    assertThat(metaClient.getActiveTimeline().getCleanerTimeline().filterCompletedInstants().lastInstant().get()
        .requestedTime()).isEqualTo(instant);
    assertThat(CleanInflightPlans.repair(metaClient)).isEmpty();
  }
}
