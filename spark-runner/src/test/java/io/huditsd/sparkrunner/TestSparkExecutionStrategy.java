package io.huditsd.sparkrunner;

import org.junit.jupiter.api.Test;

import static io.huditsd.sparkrunner.SparkExecutionStrategy.SPARK_BINARY_COPY;
import static io.huditsd.sparkrunner.SparkExecutionStrategy.SPARK_SORT_AND_SIZE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class TestSparkExecutionStrategy {
  private static final String RUN = "org.apache.hudi.client.clustering.run.strategy.";

  @Test
  void binaryCopyPlansOfEitherEngineRunWithSparksBinaryCopy() {
    assertThat(SparkExecutionStrategy.forPlan(SparkExecutionStrategy.JAVA_BINARY_COPY, null).className())
        .isEqualTo(SPARK_BINARY_COPY);
    assertThat(SparkExecutionStrategy.forPlan(SPARK_BINARY_COPY, SPARK_SORT_AND_SIZE).className())
        .isEqualTo(SPARK_BINARY_COPY);
    assertThat(SparkExecutionStrategy.forPlan(RUN + "SparkStreamCopyClusteringExecutionStrategy", null).className())
        .isEqualTo(SPARK_BINARY_COPY);
  }

  @Test
  void rewritePlansOfEitherEngineRunWithSparksSortAndSize() {
    SparkExecutionStrategy.Choice java = SparkExecutionStrategy.forPlan(RUN + "JavaSortAndSizeExecutionStrategy",
        SparkExecutionStrategy.JAVA_BINARY_COPY);
    assertThat(java.className()).isEqualTo(SPARK_SORT_AND_SIZE);
    assertThat(java.reason()).isEqualTo("the plan names " + RUN + "JavaSortAndSizeExecutionStrategy, whose Spark "
        + "counterpart is " + SPARK_SORT_AND_SIZE);
    assertThat(SparkExecutionStrategy.forPlan(SPARK_SORT_AND_SIZE, null).className()).isEqualTo(SPARK_SORT_AND_SIZE);
  }

  @Test
  void thePlanWinsOverTheTablesConfiguredStrategy() {
    assertThat(SparkExecutionStrategy.forPlan(SPARK_SORT_AND_SIZE, SPARK_BINARY_COPY).className())
        .isEqualTo(SPARK_SORT_AND_SIZE);
  }

  @Test
  void aPlanNamingNoStrategyTakesTheTablesOrHudisDefault() {
    assertThat(SparkExecutionStrategy.forPlan(" ", SparkExecutionStrategy.JAVA_BINARY_COPY).className())
        .isEqualTo(SPARK_BINARY_COPY);
    assertThat(SparkExecutionStrategy.forPlan(null, null).className()).isEqualTo(SPARK_SORT_AND_SIZE);
  }

  @Test
  void refusesStrategiesWithAnotherLayout() {
    assertThatThrownBy(() -> SparkExecutionStrategy.forPlan(RUN + "SparkConsistentBucketClusteringExecutionStrategy",
        null))
        .isInstanceOf(PlanRefusedException.class)
        .hasMessageStartingWith("Cannot execute a clustering plan with strategy " + RUN
            + "SparkConsistentBucketClusteringExecutionStrategy (named by the plan) on Spark: the runner executes "
            + "size-based rewrite and binary-copy plans only");
    assertThatThrownBy(() -> SparkExecutionStrategy.forPlan(null, "com.example.Custom"))
        .hasMessageContaining("com.example.Custom (the table's hoodie.clustering.execution.strategy.class)");
  }
}
