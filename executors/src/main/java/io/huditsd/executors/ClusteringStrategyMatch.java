package io.huditsd.executors;

import io.huditsd.executors.clustering.JavaBinaryCopyClusteringExecutionStrategy;
import io.huditsd.executors.clustering.JavaStreamingRewriteExecutionStrategy;
import org.apache.hudi.table.action.cluster.strategy.ClusteringExecutionStrategy;

import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * Picks the Java execution strategy for a pending clustering plan. Hudi executes a plan with the executing client's
 * {@code hoodie.clustering.execution.strategy.class}, not with the strategy the plan names: a binary-copy plan
 * executed with the default would silently rewrite every record, and a plan a Spark writer scheduled names a class
 * the Java engine does not have. So the daemon reads the class the plan names and executes with its Java
 * counterpart.
 *
 * <p>Plans of Hudi's sort-and-size rewrite (the daemon's default plans name it, and Spark's size-based plans name
 * Spark's) are executed with {@link JavaStreamingRewriteExecutionStrategy}: the same files, without holding a
 * group's records in memory. It hands plans with sort columns to Hudi's strategy itself.
 */
public final class ClusteringStrategyMatch {
  public static final String EXECUTION_STRATEGY_KEY = "hoodie.clustering.execution.strategy.class";
  public static final String JAVA_SORT_AND_SIZE =
      "org.apache.hudi.client.clustering.run.strategy.JavaSortAndSizeExecutionStrategy";
  public static final String JAVA_BINARY_COPY = JavaBinaryCopyClusteringExecutionStrategy.class.getName();
  public static final String JAVA_STREAMING_REWRITE = JavaStreamingRewriteExecutionStrategy.class.getName();

  private static final String SPARK_RUN = "org.apache.hudi.client.clustering.run.strategy.";
  private static final String SPARK_PLAN = "org.apache.hudi.client.clustering.plan.strategy.";

  /**
   * Strategies executed by another class: Spark's with a Java counterpart (plans name execution strategies; plan
   * strategies for safety), and Hudi's Java sort-and-size rewrite with its streaming equivalent.
   */
  private static final Map<String, String> JAVA_COUNTERPARTS = Map.of(
      JAVA_SORT_AND_SIZE, JAVA_STREAMING_REWRITE,
      SPARK_RUN + "SparkSortAndSizeExecutionStrategy", JAVA_STREAMING_REWRITE,
      SPARK_PLAN + "SparkSizeBasedClusteringPlanStrategy", JAVA_STREAMING_REWRITE,
      SPARK_RUN + "SparkBinaryCopyClusteringExecutionStrategy", JAVA_BINARY_COPY,
      SPARK_RUN + "SparkStreamCopyClusteringExecutionStrategy", JAVA_BINARY_COPY,
      SPARK_PLAN + "SparkStreamCopyClusteringPlanStrategy", JAVA_BINARY_COPY);

  /**
   * Spark strategies whose output layout the Java engine cannot reproduce: they keep file group ids (single-file
   * sort) or bucket assignments (consistent hashing), or register external files. Executing them with a rewrite
   * would break the table's layout, so the plan is left for a Spark writer.
   */
  private static final Map<String, String> NO_COUNTERPART = Map.of(
      SPARK_RUN + "SparkSingleFileSortExecutionStrategy", "it keeps each file group's id",
      SPARK_RUN + "SparkConsistentBucketClusteringExecutionStrategy", "it keeps the consistent-hashing buckets",
      SPARK_RUN + "SingleSparkJobConsistentHashingExecutionStrategy", "it keeps the consistent-hashing buckets",
      SPARK_RUN + "SparkExternalFileClusteringExecutionStrategy", "it registers external files");

  private ClusteringStrategyMatch() {
  }

  /**
   * The execution strategy for a plan, and why.
   *
   * @param className the class to set as {@code hoodie.clustering.execution.strategy.class}; empty to keep the
   *     table's configuration
   * @param reason a sentence for the log
   */
  public record Choice(Optional<String> className, String reason) {
    public Choice {
      Objects.requireNonNull(className, "className is null");
      Objects.requireNonNull(reason, "reason is null");
    }
  }

  /**
   * @param planStrategyClass the strategy class the plan names ({@code HoodieClusteringPlan.strategy.strategyClassName}),
   *     null when it names none
   * @throws UnsupportedClusteringPlanException when the plan's strategy has no Java counterpart
   */
  public static Choice forPlan(String planStrategyClass) {
    if (planStrategyClass == null || planStrategyClass.isBlank()) {
      return new Choice(Optional.empty(), "the plan names no strategy; using the table's configured one");
    }
    String counterpart = JAVA_COUNTERPARTS.get(planStrategyClass);
    if (counterpart != null) {
      return new Choice(Optional.of(counterpart), "the plan names " + planStrategyClass
          + ", executed on the Java engine by " + counterpart);
    }
    String why = NO_COUNTERPART.get(planStrategyClass);
    if (why != null) {
      throw new UnsupportedClusteringPlanException("Cannot execute clustering plan with strategy "
          + planStrategyClass + " on the Java engine: " + why + "; leaving the plan to a Spark writer");
    }
    if (isJavaExecutionStrategy(planStrategyClass)) {
      return new Choice(Optional.of(planStrategyClass), "the plan names " + planStrategyClass);
    }
    return new Choice(Optional.empty(), "the plan names " + planStrategyClass
        + ", which is not on the daemon's class path and has no known Java counterpart; using the table's"
        + " configured strategy");
  }

  /**
   * The class a run executes a plan naming {@code planStrategyClass} with: {@link #forPlan}'s choice, else
   * {@code configured} (the table's {@value #EXECUTION_STRATEGY_KEY}); empty when the run refuses the plan.
   */
  public static Optional<String> executedWith(String planStrategyClass, String configured) {
    try {
      return Optional.ofNullable(forPlan(planStrategyClass).className().orElse(configured));
    } catch (UnsupportedClusteringPlanException e) {
      return Optional.empty();
    }
  }

  private static boolean isJavaExecutionStrategy(String className) {
    try {
      return ClusteringExecutionStrategy.class.isAssignableFrom(
          Class.forName(className, false, ClusteringStrategyMatch.class.getClassLoader()));
    } catch (ClassNotFoundException | LinkageError e) {
      return false;
    }
  }

  /** A pending clustering plan that the Java engine must not execute. */
  public static final class UnsupportedClusteringPlanException extends RuntimeException {
    public UnsupportedClusteringPlanException(String message) {
      super(message);
    }
  }
}
