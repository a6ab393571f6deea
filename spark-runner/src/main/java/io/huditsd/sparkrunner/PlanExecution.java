package io.huditsd.sparkrunner;

import io.huditsd.sparkrunner.SparkExecutionStrategy.Choice;
import org.apache.hudi.avro.model.HoodieClusteringPlan;
import org.apache.hudi.client.SparkRDDWriteClient;
import org.apache.hudi.client.common.HoodieSparkEngineContext;
import org.apache.hudi.client.heartbeat.HoodieHeartbeatClient;
import org.apache.hudi.common.model.HoodieTableType;
import org.apache.hudi.common.table.HoodieTableMetaClient;
import org.apache.hudi.common.util.ClusteringUtils;
import org.apache.hudi.config.HoodieWriteConfig;
import org.apache.spark.api.java.JavaSparkContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;

/** Executes one pending compaction or clustering plan with Hudi's Spark write client, and commits it. */
final class PlanExecution {
  private static final Logger LOG = LoggerFactory.getLogger(PlanExecution.class);

  private final JavaSparkContext spark;
  private final HoodieTableMetaClient metaClient;
  private final Properties daemonKeys;

  PlanExecution(JavaSparkContext spark, HoodieTableMetaClient metaClient, Properties daemonKeys) {
    this.spark = Objects.requireNonNull(spark, "spark is null");
    this.metaClient = Objects.requireNonNull(metaClient, "metaClient is null");
    this.daemonKeys = Objects.requireNonNull(daemonKeys, "daemonKeys is null");
  }

  /**
   * {@code compact(instant, true)}: Hudi rolls back an inflight attempt, executes, commits, and keeps a heartbeat of
   * the instant while it runs (checked under the table lock by a second executor of the same plan).
   */
  void compact(String instant) {
    if (metaClient.getTableType() != HoodieTableType.MERGE_ON_READ) {
      throw new PlanRefusedException("Table " + metaClient.getBasePath() + " is " + metaClient.getTableType()
          + ": only MERGE_ON_READ tables have compaction plans");
    }
    if (!metaClient.getActiveTimeline().filterPendingCompactionTimeline().containsInstant(instant)) {
      throw new PlanNotExecutableException("compaction plan " + instant + " of " + metaClient.getBasePath()
          + " is not pending (completed or rolled back elsewhere, or never scheduled)");
    }
    HoodieWriteConfig config = RunnerWriteConfig.build(daemonKeys, metaClient, Map.of());
    requireNoLiveHeartbeat(config, instant);
    try (SparkRDDWriteClient<?> client = new SparkRDDWriteClient<>(new HoodieSparkEngineContext(spark), config)) {
      client.compact(instant, true);
    }
  }

  /**
   * Claims the plan's heartbeat under the table lock, then {@code cluster(instant, true)} with Spark's counterpart of
   * the strategy the plan names (see {@link SparkExecutionStrategy}).
   */
  void cluster(String instant) {
    HoodieClusteringPlan plan = ClusteringUtils.getPendingClusteringPlan(metaClient, instant);
    String planStrategy = plan.getStrategy() == null ? null : plan.getStrategy().getStrategyClassName();
    Choice strategy = SparkExecutionStrategy.forPlan(planStrategy, daemonKeys.getProperty(SparkExecutionStrategy.KEY));
    LOG.info("Clustering {} of {}: execution strategy {} ({})", instant, metaClient.getBasePath(),
        strategy.className(), strategy.reason());
    HoodieWriteConfig config = RunnerWriteConfig.build(daemonKeys, metaClient,
        Map.of(SparkExecutionStrategy.KEY, strategy.className()));
    try (ClusteringClaim claim = ClusteringClaim.claim(config, metaClient, instant);
         SparkRDDWriteClient<?> client = new SparkRDDWriteClient<>(new HoodieSparkEngineContext(spark), config)) {
      client.cluster(instant, true);
    }
  }

  /** A clear refusal before Hudi's own check (which fails with a generic exception under the lock). */
  private void requireNoLiveHeartbeat(HoodieWriteConfig config, String instant) {
    try (HoodieHeartbeatClient heartbeats = new HoodieHeartbeatClient(metaClient.getStorage(), config.getBasePath(),
        config.getHoodieClientHeartbeatIntervalInMs(), config.getHoodieClientHeartbeatTolerableMisses())) {
      if (!heartbeats.isHeartbeatExpired(instant)) {
        throw new PlanNotExecutableException("compaction plan " + instant + " of " + metaClient.getBasePath()
            + " is being executed by another process (its heartbeat is alive)");
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read the heartbeat of " + instant, e);
    }
  }
}
