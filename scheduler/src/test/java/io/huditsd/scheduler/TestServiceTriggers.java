package io.huditsd.scheduler;

import io.huditsd.config.HeartbeatSettings;
import io.huditsd.config.MetadataIndexes;
import io.huditsd.config.ServicedTable;
import io.huditsd.config.TableWriteConfigs;
import io.huditsd.executors.LocalTables;
import org.apache.hudi.common.model.HoodieTableType;
import org.apache.hudi.common.table.HoodieTableMetaClient;
import org.apache.hudi.config.HoodieWriteConfig;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** Hudi's triggers as the daemon pre-checks them, on real timelines and write configs. */
class TestServiceTriggers {
  private static final HeartbeatSettings HEARTBEAT = new HeartbeatSettings(60_000, 2);
  private static final LocalTables LOCAL_TABLES = new LocalTables();

  @TempDir
  static Path directory;

  /** Two delta commits, no compaction, clustering or clean yet. */
  private static HoodieTableMetaClient morWithTwoDeltaCommits;
  private static HoodieTableMetaClient emptyMor;
  private static HoodieTableMetaClient cowWithThreeCommits;

  @BeforeAll
  static void createTables() throws IOException {
    ServicedTable mor = LOCAL_TABLES.create(directory.resolve("mor"), HoodieTableType.MERGE_ON_READ, 9, Map.of());
    LOCAL_TABLES.upsert(mor, 0, 10, 1);
    LOCAL_TABLES.upsert(mor, 0, 10, 2);
    morWithTwoDeltaCommits = LOCAL_TABLES.hudiTables().metaClient(mor.basePath());
    ServicedTable empty = LOCAL_TABLES.create(directory.resolve("empty"), HoodieTableType.MERGE_ON_READ, 9, Map.of());
    emptyMor = LOCAL_TABLES.hudiTables().metaClient(empty.basePath());
    ServicedTable cow = LOCAL_TABLES.create(directory.resolve("cow"), HoodieTableType.COPY_ON_WRITE, 9, Map.of());
    LOCAL_TABLES.upsert(cow, 0, 10, 1);
    LOCAL_TABLES.upsert(cow, 0, 10, 2);
    LOCAL_TABLES.upsert(cow, 0, 10, 3);
    cowWithThreeCommits = LOCAL_TABLES.hudiTables().metaClient(cow.basePath());
  }

  private static HoodieWriteConfig config(HoodieTableMetaClient metaClient, Map<String, String> keys) {
    return TableWriteConfigs.build(metaClient, keys, HEARTBEAT, MetadataIndexes.none());
  }

  private boolean compactionDue(Map<String, String> keys, long nowMillis) {
    return CompactionService.triggerDue(morWithTwoDeltaCommits, config(morWithTwoDeltaCommits, keys), nowMillis);
  }

  @Test
  void compactionIsDueAfterEnoughDeltaCommits() {
    long now = System.currentTimeMillis();
    assertThat(compactionDue(Map.of("hoodie.compact.inline.max.delta.commits", "2"), now)).isTrue();
    assertThat(compactionDue(Map.of("hoodie.compact.inline.max.delta.commits", "3"), now)).isFalse();
    // Hudi's default is 5 delta commits.
    assertThat(compactionDue(Map.of(), now)).isFalse();
  }

  @Test
  void compactionByElapsedTimeCountsFromTheFirstDeltaCommitSinceTheLastCompaction() {
    Map<String, String> timeOnly = Map.of("hoodie.compact.inline.trigger.strategy", "TIME_ELAPSED",
        "hoodie.compact.inline.max.delta.seconds", "3600");
    long now = System.currentTimeMillis();
    assertThat(compactionDue(timeOnly, now)).isFalse();
    assertThat(compactionDue(timeOnly, now + 3_601_000)).isTrue();

    Map<String, String> numAndTime = Map.of("hoodie.compact.inline.trigger.strategy", "NUM_AND_TIME",
        "hoodie.compact.inline.max.delta.commits", "2", "hoodie.compact.inline.max.delta.seconds", "3600");
    assertThat(compactionDue(numAndTime, now)).isFalse();
    assertThat(compactionDue(numAndTime, now + 3_601_000)).isTrue();

    Map<String, String> numOrTime = Map.of("hoodie.compact.inline.trigger.strategy", "NUM_OR_TIME",
        "hoodie.compact.inline.max.delta.commits", "2", "hoodie.compact.inline.max.delta.seconds", "3600");
    assertThat(compactionDue(numOrTime, now)).isTrue();
  }

  @Test
  void compactionIsNeverDueOnCopyOnWriteOrWithoutDeltaCommits() {
    Map<String, String> eager = Map.of("hoodie.compact.inline.max.delta.commits", "1");
    assertThat(CompactionService.triggerDue(cowWithThreeCommits, config(cowWithThreeCommits, eager),
        System.currentTimeMillis())).isFalse();
    assertThat(CompactionService.triggerDue(emptyMor, config(emptyMor, eager), System.currentTimeMillis()))
        .isFalse();
  }

  @Test
  void onlyTimeBasedCompactionTriggersNeedPollsWithoutChange() {
    assertThat(CompactionService.triggerUsesTime(config(emptyMor, Map.of()))).isFalse();
    for (String strategy : new String[] {"TIME_ELAPSED", "NUM_OR_TIME", "NUM_AND_TIME"}) {
      assertThat(CompactionService.triggerUsesTime(
          config(emptyMor, Map.of("hoodie.compact.inline.trigger.strategy", strategy)))).as(strategy).isTrue();
    }
    assertThat(CompactionService.triggerUsesTime(
        config(emptyMor, Map.of("hoodie.compact.inline.trigger.strategy", "NUM_COMMITS_AFTER_LAST_REQUEST"))))
        .isFalse();
  }

  @Test
  void clusteringIsDueAfterEnoughCommits() {
    assertThat(ClusteringService.triggerDue(cowWithThreeCommits,
        config(cowWithThreeCommits, Map.of("hoodie.clustering.inline.max.commits", "3")))).isTrue();
    assertThat(ClusteringService.triggerDue(cowWithThreeCommits,
        config(cowWithThreeCommits, Map.of("hoodie.clustering.inline.max.commits", "4")))).isFalse();
    assertThat(ClusteringService.triggerDue(emptyMor,
        config(emptyMor, Map.of("hoodie.clustering.inline.max.commits", "1")))).isFalse();
  }

  @Test
  void cleanMayBeDueOnceAnythingWasCommittedSinceTheLastClean() {
    assertThat(CleanService.mayBeDue(cowWithThreeCommits)).isTrue();
    assertThat(CleanService.mayBeDue(morWithTwoDeltaCommits)).isTrue();
    assertThat(CleanService.mayBeDue(emptyMor)).isFalse();
  }

  @Test
  void archiveIsDuePastTheMaximumCommitsKept() {
    Map<String, String> small = Map.of("hoodie.keep.min.commits", "1", "hoodie.keep.max.commits", "2",
        "hoodie.clean.commits.retained", "1");
    assertThat(ArchiveService.pastMaxCommits(cowWithThreeCommits, config(cowWithThreeCommits, small))).isTrue();
    assertThat(ArchiveService.pastMaxCommits(cowWithThreeCommits, config(cowWithThreeCommits, Map.of()))).isFalse();
  }
}
