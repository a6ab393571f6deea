package io.huditsd.scheduler;

import io.huditsd.config.MetadataIndexKind;
import io.huditsd.config.MetadataIndexState;
import io.huditsd.config.ServicedTable;
import org.apache.hudi.client.HoodieJavaWriteClient;
import org.apache.hudi.common.model.HoodieAvroPayload;
import org.apache.hudi.common.table.HoodieTableMetaClient;
import org.apache.hudi.common.util.Option;
import org.apache.hudi.metadata.MetadataPartitionType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Clock;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Decides which wanted metadata indexes a table lacks and plans their build with Hudi's {@code scheduleIndexing},
 * which writes the indexing plan under the table lock. An index already built, being built or in a pending plan
 * (the daemon's or another process's) is not planned again.
 */
public final class IndexTrigger {
  private static final Logger LOG = LoggerFactory.getLogger(IndexTrigger.class);

  /** Problems already logged, by table, so a table that cannot get its indexes does not flood the log. */
  private final Map<String, Set<String>> warned = new ConcurrentHashMap<>();
  private final PlanAttempts attempts;

  /** Index builds of a table that keep failing are planned again after 1 min, 2 min, 4 min... at most 1 h. */
  public IndexTrigger() {
    this(new PlanAttempts(Clock.systemUTC(), Duration.ofMinutes(1), Duration.ofHours(1)));
  }

  IndexTrigger(PlanAttempts attempts) {
    this.attempts = Objects.requireNonNull(attempts, "attempts is null");
  }

  /** The wanted indexes the table lacks and can get now; empty when nothing is to be planned. */
  public Set<MetadataIndexKind> missing(ServicedTable table, HoodieTableMetaClient metaClient) {
    if (table.indexes().isEmpty()) {
      return Set.of();
    }
    MetadataIndexState state = MetadataIndexState.read(metaClient);
    for (MetadataIndexKind kind : table.indexes().kinds()) {
      if (state.completed().contains(kind.partitionPath())) {
        attempts.reached(goal(table, kind));
      }
    }
    Set<MetadataIndexKind> missing = EnumSet.noneOf(MetadataIndexKind.class);
    missing.addAll(state.missing(table.indexes()));
    if (missing.isEmpty()) {
      return Set.of();
    }
    if (!metaClient.getTableConfig().isMetadataTableAvailable()) {
      warnOnce(table, "has no metadata table (files partition); indexes " + missing + " need one: writers create it "
          + "with hoodie.metadata.enable=true");
      return Set.of();
    }
    if (missing.contains(MetadataIndexKind.PARTITION_STATS) && !metaClient.getTableConfig().isTablePartitioned()) {
      warnOnce(table, "is not partitioned; Hudi builds no partition_stats index for it");
      missing.remove(MetadataIndexKind.PARTITION_STATS);
    }
    return missing;
  }

  /**
   * The missing indexes that polling may plan now: those whose earlier builds did not fail recently (see
   * {@link PlanAttempts}). A build requested through the REST API is not held back.
   */
  public Set<MetadataIndexKind> due(ServicedTable table, HoodieTableMetaClient metaClient) {
    Set<MetadataIndexKind> due = EnumSet.noneOf(MetadataIndexKind.class);
    for (MetadataIndexKind kind : missing(table, metaClient)) {
      String goal = goal(table, kind);
      if (attempts.mayPlan(goal)) {
        due.add(kind);
      } else {
        LOG.debug("Table {}: index {} was planned before and is still missing; next plan at {}", table.id(),
            kind.partitionPath(), attempts.nextPlanAt(goal));
      }
    }
    return due;
  }

  /**
   * Writes an indexing plan for the first of {@code kinds} (in {@link MetadataIndexKind} order, so column stats come
   * before partition stats); the others are planned once it is built. One index per plan: Hudi 1.2.0's indexer
   * initializes every partition of a plan with a metadata-table commit at the same instant (the indexing instant),
   * and with two partitions the second commit's files are rolled back later as those of a failed commit (seen here:
   * 9 of 10 record-index file groups lost).
   *
   * @return the plan's instant, or empty when Hudi found nothing to plan
   */
  Option<String> schedule(ServicedTable table, HoodieJavaWriteClient<HoodieAvroPayload> client,
                          Set<MetadataIndexKind> kinds) {
    MetadataIndexKind first = kinds.stream().sorted().findFirst()
        .orElseThrow(() -> new IllegalArgumentException("no index to plan"));
    List<MetadataPartitionType> types = List.of(first.partitionType());
    Option<String> instant = client.scheduleIndexing(types, List.of());
    if (instant.isPresent()) {
      attempts.planned(goal(table, first));
    }
    return instant;
  }

  private static String goal(ServicedTable table, MetadataIndexKind kind) {
    return goalPrefix(table.id()) + kind.partitionPath();
  }

  /** A table id has no slash ({@link io.huditsd.config.TableIds}), so this prefix names one table's goals only. */
  private static String goalPrefix(String tableId) {
    return tableId + "/";
  }

  /** Forgets the warnings and attempts of a table no longer serviced. */
  void forget(String tableId) {
    warned.remove(tableId);
    attempts.forget(goal -> goal.startsWith(goalPrefix(tableId)));
  }

  /** The tables warned about or with attempts counted. */
  Set<String> tables() {
    Set<String> tables = new TreeSet<>(warned.keySet());
    attempts.goals().forEach(goal -> tables.add(goal.substring(0, goal.indexOf('/'))));
    return tables;
  }

  private void warnOnce(ServicedTable table, String problem) {
    if (warned.computeIfAbsent(table.id(), id -> ConcurrentHashMap.newKeySet()).add(problem)) {
      LOG.warn("Table {} ({}) {}", table.id(), table.basePath(), problem);
    }
  }
}
