package io.huditsd.scheduler.view;

import io.huditsd.config.ServicedTable;
import io.huditsd.executors.HudiTables;
import io.huditsd.executors.LocalTables;
import org.apache.hudi.avro.model.HoodieCleanMetadata;
import org.apache.hudi.client.HoodieJavaWriteClient;
import org.apache.hudi.common.model.HoodieAvroPayload;
import org.apache.hudi.common.model.HoodieTableType;
import org.apache.hudi.common.table.HoodieTableMetaClient;
import org.apache.hudi.common.util.Option;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The cleanable figures are what Hudi's clean then deletes: the same files, and the bytes those files took on disk.
 */
class TestCleanableFiles {
  private final LocalTables localTables = new LocalTables();
  private final HudiTables hudiTables = localTables.hudiTables();

  @TempDir
  Path directory;

  private CleanableFiles read(ServicedTable table) {
    HoodieTableMetaClient metaClient = hudiTables.metaClient(table.basePath());
    return CleanableFiles.read(hudiTables.engineContext(), metaClient, hudiTables.writeConfig(table, metaClient))
        .orElseThrow();
  }

  /** Base and log files (not under .hoodie) with their sizes. */
  private static Map<Path, Long> dataFiles(ServicedTable table) throws IOException {
    Path base = Path.of(table.basePath().replaceFirst("^file:", ""));
    Map<Path, Long> sizes = new HashMap<>();
    try (Stream<Path> files = Files.walk(base)) {
      files.filter(Files::isRegularFile)
          .filter(file -> !base.relativize(file).startsWith(".hoodie"))
          // Log files are hidden (.fileid_instant.log.N); partition metadata and checksums are not data.
          .filter(file -> !file.getFileName().toString().startsWith(".hoodie_partition_metadata"))
          .filter(file -> !file.getFileName().toString().endsWith(".crc"))
          .forEach(file -> {
            try {
              sizes.put(file, Files.size(file));
            } catch (IOException e) {
              throw new UncheckedIOException(e);
            }
          });
    }
    return sizes;
  }

  private void compact(ServicedTable table) {
    try (HoodieJavaWriteClient<HoodieAvroPayload> client = hudiTables.writeClient(table)) {
      String instant = client.scheduleCompaction(Option.empty()).get();
      client.compact(instant, true);
    }
  }

  @ParameterizedTest
  @EnumSource(HoodieTableType.class)
  void theFiguresAreWhatTheNextCleanDeletes(HoodieTableType type) throws IOException {
    ServicedTable table = localTables.create(directory.resolve("orders"), type, 9,
        Map.of("hoodie.clean.commits.retained", "1", "hoodie.compact.inline.max.delta.commits", "1"));
    localTables.upsert(table, 0, 20, 1);
    assertThat(read(table)).as("one version of each file").isEqualTo(new CleanableFiles(0, 0));
    for (int ts = 2; ts <= 4; ts++) {
      localTables.upsert(table, 0, 20, ts);
      if (type == HoodieTableType.MERGE_ON_READ) {
        // A merge-on-read table's updates go to log files of the same slice until a compaction starts a new one.
        compact(table);
      }
    }
    CleanableFiles before = read(table);
    Map<Path, Long> filesBefore = dataFiles(table);

    HoodieCleanMetadata clean;
    try (HoodieJavaWriteClient<HoodieAvroPayload> client = hudiTables.writeClient(table)) {
      clean = client.clean();
    }

    Map<Path, Long> deleted = new HashMap<>(filesBefore);
    deleted.keySet().removeAll(dataFiles(table).keySet());
    assertThat(clean.getTotalFilesDeleted()).isPositive();
    assertThat(before.files()).isEqualTo(clean.getTotalFilesDeleted()).isEqualTo(deleted.size());
    assertThat(before.bytes()).isEqualTo(deleted.values().stream().mapToLong(Long::longValue).sum());
    assertThat(read(table)).as("after the clean").isEqualTo(new CleanableFiles(0, 0));
  }
}
