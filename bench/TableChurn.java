import com.fasterxml.jackson.databind.ObjectMapper;
import io.huditsd.api.Daemon;
import io.huditsd.api.metrics.TableSeriesRegistry;
import io.huditsd.config.MetadataIndexes;
import io.huditsd.config.ServiceType;
import io.huditsd.config.ServicedTable;
import io.huditsd.config.TsdConfiguration;
import io.huditsd.executors.ActionResult;
import io.huditsd.executors.RunRecord;
import io.huditsd.executors.RunStatus;
import io.huditsd.executors.WorkItem;
import io.huditsd.lock.LockMetrics;
import io.huditsd.lock.LockTurns;
import io.huditsd.lock.MeteredLockProvider;
import io.huditsd.scheduler.IngestionMetrics;
import org.apache.hudi.client.transaction.lock.NoopLockProvider;
import org.apache.hudi.common.config.LockConfiguration;
import org.apache.hudi.common.config.TypedProperties;
import org.apache.hudi.storage.StorageConfiguration;
import org.apache.hudi.storage.hadoop.HadoopStorageConfiguration;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Registers TABLES tables in one daemon, has each one plan (a REST-style schedule that takes its planning lock), end
 * a run and take a lock of its own, removes them all, and prints the live heap after a full GC; ROUNDS times. The
 * heap should stay flat. Usage: java -cp CLASSPATH TableChurn.java TABLES ROUNDS
 */
public final class TableChurn {
  public static void main(String[] args) throws Exception {
    int tables = Integer.parseInt(args[0]);
    int rounds = Integer.parseInt(args[1]);
    TableSeriesRegistry metrics = new TableSeriesRegistry();
    LockMetrics.register(metrics);
    IngestionMetrics.register(metrics);
    Daemon daemon = new Daemon(new TsdConfiguration(), Optional.empty(), metrics, new ObjectMapper());
    StorageConfiguration<?> storage = new HadoopStorageConfiguration(daemon.hadoopConfiguration());
    System.out.printf("round  tables-registered  heap-after-full-gc-MiB  planner  outcomes  lock-turns  series%n");
    System.out.printf("%5s  %17d  %22.1f%n", "start", daemon.registry().size(), liveHeapMiB());
    for (int round = 1; round <= rounds; round++) {
      List<ServicedTable> churned = new ArrayList<>();
      for (int i = 0; i < tables; i++) {
        String id = "churn-r" + round + "-t" + i;
        ServicedTable table = new ServicedTable(id, "file:/tmp/table-churn-missing/" + id,
            Set.of(ServiceType.values()), Duration.ofSeconds(30), Map.of(), MetadataIndexes.none());
        daemon.registry().add(table);
        use(daemon, table, storage);
        churned.add(table);
      }
      int registered = daemon.registry().size();
      for (ServicedTable table : churned) {
        daemon.registry().remove(table.id(), "churned");
      }
      long series = metrics.scrape().stream().flatMap(snapshot -> snapshot.getDataPoints().stream())
          .filter(point -> point.getLabels().get("table") != null
              && point.getLabels().get("table").startsWith("churn-")).count();
      System.out.printf("%5d  %17d  %22.1f  %7d  %8d  %10d  %6d%n", round, registered, liveHeapMiB(),
          daemon.planner().rememberedTables().size(), daemon.outcomes().tables().size(), LockTurns.tables().size(),
          series);
    }
    daemon.stop();
  }

  private static void use(Daemon daemon, ServicedTable table, StorageConfiguration<?> storage) throws Exception {
    try {
      daemon.planner().scheduleNow(table, ServiceType.ARCHIVE);
    } catch (IllegalArgumentException expected) {
      // Archival has no plan: refused after taking the table's planning lock, as any request takes it.
    }
    daemon.outcomes().onChange(new RunRecord(1, WorkItem.forArchive(table), RunStatus.SUCCEEDED, 1,
        Optional.of(Instant.now()), Optional.of(Instant.now()),
        Optional.of(new ActionResult(ServiceType.ARCHIVE, Optional.empty(), 0, 0, 0, Duration.ZERO)),
        Optional.empty()));
    TypedProperties properties = new TypedProperties();
    properties.setProperty(MeteredLockProvider.DELEGATE_KEY, NoopLockProvider.class.getName());
    properties.setProperty(MeteredLockProvider.TABLE_KEY, table.id());
    new MeteredLockProvider<>(new LockConfiguration(properties), storage).close();
  }

  /** Heap in use after two full collections (System.gc() is a full, stop-the-world collection with G1's defaults). */
  private static double liveHeapMiB() {
    System.gc();
    System.gc();
    return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed() / (1024.0 * 1024.0);
  }
}
