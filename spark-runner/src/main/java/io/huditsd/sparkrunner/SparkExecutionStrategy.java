package io.huditsd.sparkrunner;

import java.util.Map;
import java.util.Objects;

/**
 * Spark's execution strategy for a pending clustering plan. Hudi executes a plan with the executing client's
 * {@code hoodie.clustering.execution.strategy.class}, not with the strategy the plan names: a binary-copy plan run
 * with the default would silently rewrite every record. The plan names the class of the engine that scheduled it
 * (the daemon's Java classes, or a Spark writer's), so the runner maps it to its Spark counterpart.
 *
 * <p>Only the two layouts the daemon schedules are executed: size-based rewrite (sort-and-size) and binary copy
 * (row groups copied, no records decoded). Other strategies keep file group ids or buckets, or register external
 * files; running them here is refused with a message rather than guessed at.
 */
public final class SparkExecutionStrategy {
  public static final String KEY = "hoodie.clustering.execution.strategy.class";
  public static final String SPARK_SORT_AND_SIZE =
      "org.apache.hudi.client.clustering.run.strategy.SparkSortAndSizeExecutionStrategy";
  public static final String SPARK_BINARY_COPY =
      "org.apache.hudi.client.clustering.run.strategy.SparkBinaryCopyClusteringExecutionStrategy";
  /** The daemon's own binary copy (executors module); the runner never loads it, it only reads the name. */
  static final String JAVA_BINARY_COPY = "io.huditsd.executors.clustering.JavaBinaryCopyClusteringExecutionStrategy";

  private static final String RUN = "org.apache.hudi.client.clustering.run.strategy.";
  private static final String PLAN = "org.apache.hudi.client.clustering.plan.strategy.";

  private static final Map<String, String> SPARK_COUNTERPARTS = Map.of(
      RUN + "JavaSortAndSizeExecutionStrategy", SPARK_SORT_AND_SIZE,
      SPARK_SORT_AND_SIZE, SPARK_SORT_AND_SIZE,
      PLAN + "SparkSizeBasedClusteringPlanStrategy", SPARK_SORT_AND_SIZE,
      JAVA_BINARY_COPY, SPARK_BINARY_COPY,
      SPARK_BINARY_COPY, SPARK_BINARY_COPY,
      RUN + "SparkStreamCopyClusteringExecutionStrategy", SPARK_BINARY_COPY,
      PLAN + "SparkStreamCopyClusteringPlanStrategy", SPARK_BINARY_COPY);

  private SparkExecutionStrategy() {
  }

  /**
   * @param className the class to set as {@code hoodie.clustering.execution.strategy.class}
   * @param reason a sentence for the log
   */
  public record Choice(String className, String reason) {
    public Choice {
      Objects.requireNonNull(className, "className is null");
      Objects.requireNonNull(reason, "reason is null");
    }
  }

  /**
   * @param planStrategyClass the strategy the plan names ({@code HoodieClusteringPlan.strategy.strategyClassName}),
   *     null or blank when it names none
   * @param configuredClass the table's {@code hoodie.clustering.execution.strategy.class}, null when not set; used
   *     when the plan names no strategy (Hudi's default is the rewrite)
   * @throws PlanRefusedException naming the class when it has no Spark counterpart here
   */
  public static Choice forPlan(String planStrategyClass, String configuredClass) {
    boolean named = planStrategyClass != null && !planStrategyClass.isBlank();
    String source = named ? planStrategyClass : configuredClass;
    if (source == null || source.isBlank()) {
      return new Choice(SPARK_SORT_AND_SIZE, "neither the plan nor the table names a strategy; Hudi's default "
          + "rewrite " + SPARK_SORT_AND_SIZE);
    }
    String counterpart = SPARK_COUNTERPARTS.get(source);
    if (counterpart == null) {
      throw new PlanRefusedException("Cannot execute a clustering plan with strategy " + source
          + (named ? " (named by the plan)" : " (the table's " + KEY + ")") + " on Spark: the runner executes "
          + "size-based rewrite and binary-copy plans only (" + String.join(", ", SPARK_COUNTERPARTS.keySet()) + ")");
    }
    String from = named ? "the plan names " : "the plan names no strategy and the table's is ";
    return new Choice(counterpart, counterpart.equals(source) ? from + source
        : from + source + ", whose Spark counterpart is " + counterpart);
  }

}
