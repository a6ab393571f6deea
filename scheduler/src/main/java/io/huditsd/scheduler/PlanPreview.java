package io.huditsd.scheduler;

import io.huditsd.config.ServiceType;
import io.huditsd.config.ServicedTable;
import io.huditsd.executors.HudiTables;
import io.huditsd.scheduler.view.CleanCandidates;
import org.apache.hudi.avro.model.HoodieActionInstant;
import org.apache.hudi.avro.model.HoodieCleanFileInfo;
import org.apache.hudi.avro.model.HoodieCleanerPlan;
import org.apache.hudi.avro.model.HoodieClusteringPlan;
import org.apache.hudi.avro.model.HoodieCompactionPlan;
import org.apache.hudi.client.common.HoodieJavaEngineContext;
import org.apache.hudi.common.engine.HoodieEngineContext;
import org.apache.hudi.common.model.CleanFileInfo;
import org.apache.hudi.common.model.HoodieTableType;
import org.apache.hudi.common.model.TableServiceType;
import org.apache.hudi.common.model.WriteOperationType;
import org.apache.hudi.common.table.HoodieTableMetaClient;
import org.apache.hudi.common.util.Option;
import org.apache.hudi.common.util.ReflectionUtils;
import org.apache.hudi.config.HoodieWriteConfig;
import org.apache.hudi.table.HoodieJavaTable;
import org.apache.hudi.table.HoodieTable;
import org.apache.hudi.table.action.clean.CleanPlanner;
import org.apache.hudi.table.action.cluster.ClusteringPlanActionExecutor;
import org.apache.hudi.table.action.cluster.strategy.ClusteringPlanStrategy;
import org.apache.hudi.table.action.compact.ScheduleCompactionActionExecutor;
import org.apache.hudi.table.action.compact.plan.generators.HoodieCompactionPlanGenerator;
import org.apache.hudi.util.Lazy;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Computes the plan Hudi's planners would write now, without writing anything: the same plan generators and
 * strategies that scheduling uses, minus the trigger check and the write to the timeline. A dry run therefore
 * answers "what would be planned if it were due".
 */
public final class PlanPreview {
  /** A previewed plan: exactly one of the three is present, or none when there is nothing to plan. */
  public record Preview(ServiceType service, Optional<HoodieCompactionPlan> compaction,
                        Optional<HoodieClusteringPlan> clustering, Optional<HoodieCleanerPlan> clean) {
    public boolean isEmpty() {
      return compaction.isEmpty() && clustering.isEmpty() && clean.isEmpty();
    }
  }

  private final HudiTables tables;

  public PlanPreview(HudiTables tables) {
    this.tables = tables;
  }

  public Preview preview(ServicedTable table, ServiceType service) {
    return preview(table, service, tables.metaClient(table.basePath()));
  }

  /** As {@link #preview(ServicedTable, ServiceType)}, over a meta client the caller opened (and checked). */
  public Preview preview(ServicedTable table, ServiceType service, HoodieTableMetaClient metaClient) {
    HoodieWriteConfig config = tables.writeConfig(table, metaClient);
    HoodieJavaEngineContext context = tables.engineContext();
    HoodieJavaTable<?> hoodieTable = HoodieJavaTable.create(config, context, metaClient);
    // Any instant later than the timeline's last one: the planners only compare against it.
    String instant = metaClient.createNewInstantTime(false);
    try {
      return switch (service) {
        case COMPACTION -> new Preview(service, compaction(metaClient, config, context, hoodieTable, instant),
            Optional.empty(), Optional.empty());
        case CLUSTERING -> new Preview(service, Optional.empty(),
            clustering(config, context, hoodieTable, instant), Optional.empty());
        case CLEAN -> new Preview(service, Optional.empty(), Optional.empty(), clean(config, context, hoodieTable));
        case ARCHIVE -> throw new IllegalArgumentException("archive has no plan to preview");
        case INDEX -> throw new IllegalArgumentException("index plans are previewed from the table's indexes");
      };
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot preview a " + service.configName() + " plan of " + table.basePath(), e);
    }
  }

  private static Optional<HoodieCompactionPlan> compaction(HoodieTableMetaClient metaClient, HoodieWriteConfig config,
                                                           HoodieEngineContext context, HoodieTable<?, ?, ?, ?> table,
                                                           String instant) throws IOException {
    if (metaClient.getTableType() != HoodieTableType.MERGE_ON_READ) {
      return Optional.empty();
    }
    ScheduleCompactionActionExecutor<?, ?, ?, ?> executor = new ScheduleCompactionActionExecutor<>(context, config,
        table, instant, Option.empty(), WriteOperationType.COMPACT);
    HoodieCompactionPlan plan = new HoodieCompactionPlanGenerator<>(table, context, config, executor)
        .generateCompactionPlan(instant);
    return plan == null || plan.getOperations() == null || plan.getOperations().isEmpty()
        ? Optional.empty() : Optional.of(plan);
  }

  @SuppressWarnings({"unchecked", "rawtypes"})
  private static Optional<HoodieClusteringPlan> clustering(HoodieWriteConfig config, HoodieEngineContext context,
                                                           HoodieTable<?, ?, ?, ?> table, String instant) {
    ClusteringPlanActionExecutor executor = new ClusteringPlanActionExecutor(context, config, table, instant,
        Option.empty());
    ClusteringPlanStrategy strategy = (ClusteringPlanStrategy) ReflectionUtils.loadClass(
        ClusteringPlanStrategy.checkAndGetClusteringPlanStrategy(config),
        new Class<?>[] {HoodieTable.class, HoodieEngineContext.class, HoodieWriteConfig.class}, table, context,
        config);
    Option<HoodieClusteringPlan> plan = strategy.generateClusteringPlan(executor,
        Lazy.lazily(() -> executor.getPartitions(strategy, TableServiceType.CLUSTER)));
    return plan.isPresent() ? Optional.of(plan.get()) : Optional.empty();
  }

  private static Optional<HoodieCleanerPlan> clean(HoodieWriteConfig config, HoodieEngineContext context,
                                                   HoodieTable<?, ?, ?, ?> table) throws IOException {
    CleanCandidates candidates = CleanCandidates.of(context, table, config);
    if (candidates.isEmpty()) {
      return Optional.empty();
    }
    Map<String, List<HoodieCleanFileInfo>> files = new HashMap<>();
    candidates.filesByPartition().forEach((partition, deletes) ->
        files.put(partition, deletes.stream().map(CleanFileInfo::toHoodieFileCleanInfo).toList()));
    HoodieCleanerPlan.Builder plan = HoodieCleanerPlan.newBuilder()
        .setPolicy(config.getCleanerPolicy().name())
        .setVersion(CleanPlanner.LATEST_CLEAN_PLAN_VERSION)
        .setFilePathsToBeDeletedPerPartition(files)
        .setLastCompletedCommitTimestamp(candidates.lastCompletedCommit());
    candidates.earliestCommitToRetain().ifPresent(instant -> plan.setEarliestInstantToRetain(
        new HoodieActionInstant(instant.requestedTime(), instant.getAction(), instant.getState().name())));
    return Optional.of(plan.build());
  }
}
