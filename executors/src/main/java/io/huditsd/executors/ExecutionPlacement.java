package io.huditsd.executors;

import io.huditsd.config.EngineKind;
import io.huditsd.config.EnginePolicy;
import io.huditsd.config.ServiceType;
import io.huditsd.config.ServicedTable;
import org.apache.hudi.common.table.HoodieTableMetaClient;
import org.apache.hudi.common.util.ClusteringUtils;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Objects;
import java.util.Optional;

/**
 * Decides how a pending plan executes (engine and heap estimate) when it is queued: by the table's engine policy, the
 * plan's estimate against the in-process memory budget, and what a request asked for. Reads the plan (through the
 * estimator); called by whoever makes a {@link WorkItem} of a plan (its {@link Placement}), never under the pool's lock.
 *
 * <p>The rules, in order (issue 14):
 * <ol>
 *   <li>clean, archive and index always run in the daemon; a request for Spark on them is refused;</li>
 *   <li>a request ({@code POST .../execute {"engine": ...}}, {@code once --engine}) wins; asking for Spark without a
 *       {@code spark} section is refused;</li>
 *   <li>the table's {@link EnginePolicy} for the service: {@code java}, {@code spark}, or {@code auto}, which picks
 *       Spark (when configured) for a plan whose input reaches {@code tsd.engine.spark.min.bytes} or whose heap
 *       estimate exceeds the memory budget, and the daemon otherwise. Without Spark every plan stays in the daemon,
 *       where the pool refuses one over the budget at once.</li>
 * </ol>
 */
public class ExecutionPlacement {
  private static final Logger LOG = LoggerFactory.getLogger(ExecutionPlacement.class);

  private final HeapEstimator estimator;
  private final boolean sparkConfigured;
  private final long memoryBudgetBytes;

  /** No Spark, no budget: every plan in the daemon's JVM. */
  public ExecutionPlacement(HeapEstimator estimator) {
    this(estimator, false, Long.MAX_VALUE);
  }

  /**
   * @param sparkConfigured whether the daemon has a {@code spark} section to submit with
   * @param memoryBudgetBytes the in-process budget ({@code workers.memoryBudget}); a plan estimated above it goes to
   *     Spark under {@code auto}
   */
  public ExecutionPlacement(HeapEstimator estimator, boolean sparkConfigured, long memoryBudgetBytes) {
    this.estimator = Objects.requireNonNull(estimator, "estimator is null");
    if (memoryBudgetBytes <= 0) {
      throw new IllegalArgumentException("memoryBudgetBytes must be positive, got " + memoryBudgetBytes);
    }
    this.sparkConfigured = sparkConfigured;
    this.memoryBudgetBytes = memoryBudgetBytes;
  }

  /** Every plan in the daemon's JVM, whatever it asks: a daemon without a Spark section. */
  public static ExecutionPlacement inProcess() {
    return new ExecutionPlacement(new HeapEstimator());
  }

  public boolean sparkConfigured() {
    return sparkConfigured;
  }

  /**
   * How {@code plan} executes.
   *
   * @param requested the engine a request named ({@code POST .../execute {"engine": ...}}, {@code once --engine})
   * @throws EngineRefusedException when the request cannot be met: Spark for a service that always runs in the
   *     daemon, or Spark without a {@code spark} section
   */
  public Placement place(HoodieTableMetaClient metaClient, ServicedTable table, PendingPlan plan,
                         Optional<EngineKind> requested) {
    Objects.requireNonNull(requested, "requested is null");
    if (requested.isPresent()) {
      checkRequest(table, plan, requested.get());
    }
    HeapEstimate estimate = estimator.estimate(metaClient, table, plan);
    if (!runsAnywhere(plan.service())) {
      return Placement.inProcess(estimate);
    }
    if (requested.isPresent()) {
      return new Placement(requested.get(), estimate);
    }
    EnginePolicy.Mode mode = EnginePolicy.of(table.hoodieKeys()).mode(plan.service());
    if (!sparkConfigured) {
      // ConfigurationChecks refuses a spark policy without a spark section at start; a table registered later
      // (table service manager endpoint) with one still runs, in the daemon.
      if (mode == EnginePolicy.Mode.SPARK) {
        LOG.warn("table {} plan {}: engine policy is spark, but the daemon has no spark section; running in the "
            + "daemon", table.id(), plan.instant());
      }
      return Placement.inProcess(estimate);
    }
    return switch (mode) {
      case JAVA -> Placement.inProcess(estimate);
      case SPARK -> new Placement(EngineKind.SPARK, estimate);
      case AUTO -> auto(metaClient, table, plan, estimate);
    };
  }

  private Placement auto(HoodieTableMetaClient metaClient, ServicedTable table, PendingPlan plan,
                         HeapEstimate estimate) {
    long minBytes = EnginePolicy.of(table.hoodieKeys()).sparkMinBytes();
    if (estimate.bytes() > memoryBudgetBytes) {
      LOG.info("Placed table={} service={} instant={} engine=spark: heap estimate {} bytes ({}) exceeds the memory "
          + "budget of {} bytes", table.id(), plan.service().configName(), plan.instant(), estimate.bytes(),
          estimate.basis(), memoryBudgetBytes);
      return new Placement(EngineKind.SPARK, estimate);
    }
    long inputBytes = inputBytes(metaClient, table, plan);
    if (inputBytes >= minBytes) {
      LOG.info("Placed table={} service={} instant={} engine=spark: input {} bytes reaches {} = {}", table.id(),
          plan.service().configName(), plan.instant(), inputBytes, EnginePolicy.SPARK_MIN_BYTES, minBytes);
      return new Placement(EngineKind.SPARK, estimate);
    }
    return Placement.inProcess(estimate);
  }

  /**
   * Bytes the plan decodes: log bytes for compaction; for clustering the files of the slices it rewrites (which the
   * plan does not record, so they are looked up), without the groups a binary copy copies: the crossover behind
   * {@code tsd.engine.spark.min.bytes} is a rewrite's, and a copy is faster in the daemon at any size than a Spark
   * submission's fixed cost.
   */
  private long inputBytes(HoodieTableMetaClient metaClient, ServicedTable table, PendingPlan plan) {
    if (plan.service() != ServiceType.CLUSTERING) {
      return plan.inputBytes();
    }
    try {
      return estimator.clusteringBytesRewritten(metaClient, table.hoodieKeys(),
          ClusteringUtils.getPendingClusteringPlan(metaClient, plan.instant()));
    } catch (RuntimeException e) {
      // As for the estimate: the run reads the same plan and reports the problem with its own message.
      return plan.inputBytes();
    }
  }

  private void checkRequest(ServicedTable table, PendingPlan plan, EngineKind requested) {
    if (requested != EngineKind.SPARK) {
      return;
    }
    if (!runsAnywhere(plan.service())) {
      throw new EngineRefusedException("table " + table.id() + ": plan " + plan.instant() + " is a "
          + plan.service().configName() + " plan, which always runs in the daemon; engine spark applies to "
          + "compaction and clustering");
    }
    if (!sparkConfigured) {
      throw new EngineRefusedException("table " + table.id() + ": plan " + plan.instant() + " cannot run on engine "
          + "spark: tsd.yml has no spark section to submit with");
    }
  }

  /** The services whose plans may run on Spark; the others always run in the daemon. */
  public static boolean runsAnywhere(ServiceType service) {
    return service == ServiceType.COMPACTION || service == ServiceType.CLUSTERING;
  }

  /** A request for an engine that cannot run the plan; the message names the table, plan and reason. */
  public static final class EngineRefusedException extends IllegalArgumentException {
    public EngineRefusedException(String message) {
      super(message);
    }
  }
}
