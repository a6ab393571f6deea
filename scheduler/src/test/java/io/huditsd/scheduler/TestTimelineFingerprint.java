package io.huditsd.scheduler;

import io.huditsd.config.ServicedTable;
import io.huditsd.executors.HudiTables;
import io.huditsd.executors.LocalTables;
import org.apache.hadoop.conf.Configuration;
import org.apache.hudi.common.model.HoodieTableType;
import org.apache.hudi.common.table.HoodieTableConfig;
import org.apache.hudi.common.table.HoodieTableMetaClient;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Properties;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class TestTimelineFingerprint {
  private final LocalTables localTables = new LocalTables();
  private final Configuration hadoopConfiguration = HudiTables.defaultHadoopConfiguration();

  @TempDir
  Path directory;

  private TimelineFingerprint read(ServicedTable table) throws IOException {
    HoodieTableMetaClient metaClient = localTables.hudiTables().metaClient(table.basePath());
    return TimelineFingerprint.read(hadoopConfiguration, table.basePath(), metaClient.getTimelinePath().toString());
  }

  @ParameterizedTest
  @ValueSource(ints = {6, 9})
  void changesWhenACommitLandsAndNotOtherwise(int version) throws IOException {
    Path tableDirectory = directory.resolve("orders");
    ServicedTable table = localTables.create(tableDirectory, HoodieTableType.MERGE_ON_READ, version, Map.of());
    localTables.upsert(table, 0, 10, 1);

    TimelineFingerprint before = read(table);
    assertThat(read(table)).isEqualTo(before);
    // Data files, heartbeats and the metadata table live outside the timeline folder's own files.
    Files.writeString(tableDirectory.resolve("eu").resolve("stray.txt"), "not a commit");
    Files.createDirectories(tableDirectory.resolve(".hoodie/.heartbeat"));
    Files.writeString(tableDirectory.resolve(".hoodie/.heartbeat/20990101000000000"), "");
    assertThat(read(table)).isEqualTo(before);

    localTables.upsert(table, 0, 10, 2);
    TimelineFingerprint after = read(table);

    assertThat(after).isNotEqualTo(before);
    // requested, inflight and completed files of the new delta commit
    assertThat(after.entries()).isEqualTo(before.entries() + 3);
    assertThat(read(table)).isEqualTo(after);
  }

  @ParameterizedTest
  @ValueSource(ints = {6, 9})
  void changesWhenHoodiePropertiesChange(int version) throws IOException {
    Path tableDirectory = directory.resolve("orders");
    ServicedTable table = localTables.create(tableDirectory, HoodieTableType.COPY_ON_WRITE, version, Map.of());
    TimelineFingerprint before = read(table);

    HoodieTableMetaClient metaClient = localTables.hudiTables().metaClient(table.basePath());
    Properties update = new Properties();
    update.setProperty("hoodie.table.metadata.partitions", "files");
    HoodieTableConfig.update(metaClient.getStorage(), metaClient.getMetaPath(), update);

    assertThat(read(table)).isNotEqualTo(before);
  }

  /**
   * Local timelines are listed with java.nio: the listing must be exactly what Hadoop's gives (names, lengths, the
   * modification time of hoodie.properties at version 6 where .hoodie is the timeline; .crc files and folders left
   * out), or every poll of a table would see a change, or none.
   */
  @ParameterizedTest
  @ValueSource(ints = {6, 9})
  void theLocalListingIsHadoopsListing(int version) throws IOException {
    Path tableDirectory = directory.resolve("orders");
    ServicedTable table = localTables.create(tableDirectory, HoodieTableType.MERGE_ON_READ, version, Map.of());
    localTables.upsert(table, 0, 10, 1);
    localTables.upsert(table, 0, 10, 2);
    org.apache.hadoop.fs.Path timeline = new org.apache.hadoop.fs.Path(
        localTables.hudiTables().metaClient(table.basePath()).getTimelinePath().toString());
    org.apache.hadoop.fs.FileSystem fileSystem = timeline.getFileSystem(hadoopConfiguration);
    assertThat(fileSystem).isInstanceOf(org.apache.hadoop.fs.LocalFileSystem.class);
    Path folder = Path.of(timeline.toUri());
    try (var files = Files.list(folder)) {
      assertThat(files.map(file -> file.getFileName().toString())).as("the folder has checksum files")
          .anyMatch(name -> name.endsWith(".crc"));
    }

    TimelineFingerprint.Listing local = TimelineFingerprint.list(fileSystem, timeline);

    assertThat(local).isEqualTo(TimelineFingerprint.hadoopListing(fileSystem, timeline));
    assertThat(local.entries()).isPositive();
  }

  @ParameterizedTest
  @ValueSource(ints = {6, 9})
  void aDeletedLocalTimelineIsReportedAsHadoopReportsIt(int version) throws IOException {
    Path tableDirectory = directory.resolve("orders");
    ServicedTable table = localTables.create(tableDirectory, HoodieTableType.COPY_ON_WRITE, version, Map.of());
    org.apache.hadoop.fs.Path timeline = new org.apache.hadoop.fs.Path(
        localTables.hudiTables().metaClient(table.basePath()).getTimelinePath().toString());
    org.apache.hadoop.fs.FileSystem fileSystem = timeline.getFileSystem(hadoopConfiguration);
    Directories.delete(tableDirectory);

    String hadoops = null;
    try {
      TimelineFingerprint.hadoopListing(fileSystem, timeline);
    } catch (FileNotFoundException e) {
      hadoops = e.getMessage();
    }
    assertThat(hadoops).isNotNull();
    assertThatThrownBy(() -> TimelineFingerprint.list(fileSystem, timeline))
        .isInstanceOf(FileNotFoundException.class).hasMessage(hadoops);
  }

  @ParameterizedTest
  @ValueSource(ints = {6, 9})
  void aDeletedTableIsReportedAsMissing(int version) throws IOException {
    Path tableDirectory = directory.resolve("orders");
    ServicedTable table = localTables.create(tableDirectory, HoodieTableType.COPY_ON_WRITE, version, Map.of());
    String timelinePath = localTables.hudiTables().metaClient(table.basePath()).getTimelinePath().toString();
    Directories.delete(tableDirectory);

    assertThatThrownBy(() -> TimelineFingerprint.read(hadoopConfiguration, table.basePath(), timelinePath))
        .isInstanceOf(FileNotFoundException.class);
  }
}
