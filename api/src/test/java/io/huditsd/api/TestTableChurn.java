package io.huditsd.api;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.huditsd.api.metrics.TableSeriesRegistry;
import io.huditsd.config.MetadataIndexes;
import io.huditsd.config.ServiceType;
import io.huditsd.config.ServicedTable;
import io.huditsd.config.TsdConfiguration;
import io.huditsd.executors.ActionResult;
import io.huditsd.executors.LocalTables;
import io.huditsd.executors.RunRecord;
import io.huditsd.executors.RunStatus;
import io.huditsd.executors.WorkItem;
import io.huditsd.lock.LockMetrics;
import io.huditsd.lock.LockTurns;
import io.huditsd.lock.MeteredLockProvider;
import io.huditsd.scheduler.IngestionMetrics;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import org.apache.hudi.client.transaction.lock.NoopLockProvider;
import org.apache.hudi.common.config.LockConfiguration;
import org.apache.hudi.common.config.TypedProperties;
import org.apache.hudi.common.model.HoodieTableType;
import org.apache.hudi.common.table.HoodieTableMetaClient;
import org.apache.hudi.storage.StorageConfiguration;
import org.apache.hudi.storage.hadoop.HadoopStorageConfiguration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.function.Supplier;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Tables that come and go leave nothing behind: after 1,000 tables were registered, used and removed five times
 * through the daemon's own registry, every part that keeps something per table holds exactly the tables still
 * serviced, and the metric series of the removed ones are gone.
 */
class TestTableChurn {
  private static final int TABLES = 1_000;
  private static final int ROUNDS = 5;
  private static final int REAL_TABLES = 4;

  // Lock turns and the lock and ingestion metric families are process-wide: ids of this run keep tests apart.
  private final String run = "churn-" + UUID.randomUUID().toString().substring(0, 8);
  private final TableSeriesRegistry metrics = new TableSeriesRegistry();
  private Daemon daemon;
  private LocalTables local;

  @TempDir
  Path directory;

  @BeforeEach
  void setUp() {
    LockMetrics.register(metrics);
    IngestionMetrics.register(metrics);
    daemon = new Daemon(new TsdConfiguration(), Optional.empty(), metrics, new ObjectMapper());
    local = new LocalTables(daemon.tables());
  }

  @AfterEach
  void tearDown() throws Exception {
    daemon.stop();
  }

  @Test
  void everyPerTableStructureHoldsOnlyTheLiveTablesAfterAChurnOfOneThousandTablesFiveTimes() throws Exception {
    List<ServicedTable> real = new ArrayList<>();
    for (int i = 0; i < REAL_TABLES; i++) {
      real.add(local.create(directory.resolve(run + "-real" + i), HoodieTableType.MERGE_ON_READ, 9, Map.of()));
    }
    // Tables that stay through the churn: one real one, a few that are only registered.
    List<ServicedTable> staying = new ArrayList<>(List.of(real.get(0)));
    for (int i = 0; i < 5; i++) {
      staying.add(fake("stays" + i));
    }
    for (ServicedTable table : staying) {
      assertThat(daemon.registry().add(table)).isTrue();
      use(table);
    }

    for (int round = 0; round < ROUNDS; round++) {
      List<ServicedTable> churned = new ArrayList<>(real.subList(1, REAL_TABLES));
      for (int i = 0; i < TABLES - churned.size(); i++) {
        churned.add(fake("r" + round + "-t" + i));
      }
      for (ServicedTable table : churned) {
        assertThat(daemon.registry().add(table)).isTrue();
        use(table);
      }
      assertThat(ours(daemon.planner()::rememberedTables)).hasSize(staying.size() + churned.size());
      assertThat(ours(daemon.outcomes()::tables)).hasSize(staying.size() + churned.size());
      assertThat(ours(LockTurns::tables)).hasSize(staying.size() + churned.size());
      assertThat(seriesTables()).hasSize(staying.size() + churned.size());

      for (ServicedTable table : churned) {
        assertThat(daemon.registry().remove(table.id(), "churned")).isTrue();
      }

      Set<String> live = staying.stream().map(ServicedTable::id).collect(Collectors.toCollection(TreeSet::new));
      assertThat(ours(() -> daemon.registry().all().stream().map(state -> state.table().id()).toList()))
          .as("round %d: registry", round).isEqualTo(live);
      assertThat(ours(daemon.planner()::rememberedTables)).as("round %d: planning", round).isEqualTo(live);
      assertThat(daemon.tables().instantFiles().tables()).as("round %d: instant file verdicts", round)
          .containsExactly(real.get(0).basePath());
      assertThat(ours(daemon.outcomes()::tables)).as("round %d: service outcomes", round).isEqualTo(live);
      assertThat(ours(LockTurns::tables)).as("round %d: lock turns", round).isEqualTo(live);
      assertThat(seriesTables()).as("round %d: metric series", round).isEqualTo(live);
    }
  }

  /** A table that is only registered: its base path holds no table, so planning fails after taking its lock. */
  private ServicedTable fake(String name) {
    String id = run + "-fake-" + name;
    return new ServicedTable(id, "file:" + directory.resolve("missing").resolve(id), Set.of(ServiceType.values()),
        Duration.ofSeconds(30), Map.of(), MetadataIndexes.none());
  }

  /** What the daemon does with a table that makes it keep something: plan, a run ending, a lock of its own. */
  private void use(ServicedTable table) throws Exception {
    assertThat(daemon.registry().get(table.id())).isPresent();
    if (table.id().startsWith(run + "-fake-")) {
      // Only registered, no table there: a request to schedule archival (which has no plan) is refused after taking
      // the table's planning lock. (Opening a missing table would cost Hudi's retries, seconds each.)
      assertThatThrownBy(() -> daemon.planner().scheduleNow(table, ServiceType.ARCHIVE))
          .isInstanceOf(IllegalArgumentException.class);
    } else {
      HoodieTableMetaClient metaClient = daemon.tables().metaClient(table.basePath());
      daemon.tables().instantFiles().verify(metaClient);
      daemon.planner().planAndEnqueue(table, metaClient);
    }
    daemon.outcomes().onChange(new RunRecord(1, WorkItem.forArchive(table), RunStatus.SUCCEEDED, 1,
        Optional.of(Instant.now()), Optional.of(Instant.now()),
        Optional.of(new ActionResult(ServiceType.ARCHIVE, Optional.empty(), 0, 0, 0, Duration.ZERO)),
        Optional.empty()));
    TypedProperties properties = new TypedProperties();
    properties.setProperty(MeteredLockProvider.DELEGATE_KEY, NoopLockProvider.class.getName());
    properties.setProperty(MeteredLockProvider.TABLE_KEY, table.id());
    StorageConfiguration<?> storage = new HadoopStorageConfiguration(daemon.hadoopConfiguration());
    new MeteredLockProvider<>(new LockConfiguration(properties), storage).close();
  }

  private Set<String> ours(Supplier<? extends java.util.Collection<String>> tables) {
    return tables.get().stream().filter(id -> id.startsWith(run)).collect(Collectors.toCollection(TreeSet::new));
  }

  /** The tables of this run with a series in the scrape. */
  private Set<String> seriesTables() {
    Set<String> tables = new TreeSet<>();
    for (MetricSnapshot snapshot : metrics.scrape()) {
      snapshot.getDataPoints().forEach(point -> {
        String table = point.getLabels().get("table");
        if (table != null && table.startsWith(run)) {
          tables.add(table);
        }
      });
    }
    return tables;
  }
}
