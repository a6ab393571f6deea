package io.huditsd.executors;

import io.huditsd.executors.clustering.JavaBinaryCopyClusteringExecutionStrategy;
import org.junit.jupiter.api.Test;

import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class TestClusteringStrategyMatch {
  private static final String SPARK = "org.apache.hudi.client.clustering.run.strategy.";

  @Test
  void binaryAndStreamCopyPlansOfSparkRunAsJavaBinaryCopy() {
    assertThat(ClusteringStrategyMatch.forPlan(SPARK + "SparkBinaryCopyClusteringExecutionStrategy").className())
        .contains(JavaBinaryCopyClusteringExecutionStrategy.class.getName());
    assertThat(ClusteringStrategyMatch.forPlan(SPARK + "SparkStreamCopyClusteringExecutionStrategy").className())
        .contains(JavaBinaryCopyClusteringExecutionStrategy.class.getName());
  }

  @Test
  void sortAndSizePlansOfSparkAndOfHudisJavaStrategyRunAsTheStreamingRewrite() {
    assertThat(ClusteringStrategyMatch.forPlan(SPARK + "SparkSortAndSizeExecutionStrategy").className())
        .contains(ClusteringStrategyMatch.JAVA_STREAMING_REWRITE);
    // The daemon's default plans name Hudi's Java strategy, which holds a group in a list.
    assertThat(ClusteringStrategyMatch.forPlan(ClusteringStrategyMatch.JAVA_SORT_AND_SIZE).className())
        .contains(ClusteringStrategyMatch.JAVA_STREAMING_REWRITE);
  }

  @Test
  void aJavaStrategyOnTheClassPathRunsAsNamed() {
    assertThat(ClusteringStrategyMatch.forPlan(JavaBinaryCopyClusteringExecutionStrategy.class.getName()).className())
        .contains(JavaBinaryCopyClusteringExecutionStrategy.class.getName());
    assertThat(ClusteringStrategyMatch.forPlan(ClusteringStrategyMatch.JAVA_STREAMING_REWRITE).className())
        .contains(ClusteringStrategyMatch.JAVA_STREAMING_REWRITE);
  }

  @Test
  void anUnknownOrMissingStrategyKeepsTheTablesConfiguration() {
    assertThat(ClusteringStrategyMatch.forPlan(null).className()).isEqualTo(Optional.empty());
    assertThat(ClusteringStrategyMatch.forPlan("com.example.FlinkClustering").className())
        .isEqualTo(Optional.empty());
    // Not a clustering execution strategy, though on the class path.
    assertThat(ClusteringStrategyMatch.forPlan(String.class.getName()).className()).isEqualTo(Optional.empty());
  }

  @Test
  void aSparkStrategyThatKeepsFileGroupsOrBucketsIsRefused() {
    assertThatThrownBy(() -> ClusteringStrategyMatch.forPlan(SPARK + "SparkConsistentBucketClusteringExecutionStrategy"))
        .isInstanceOf(ClusteringStrategyMatch.UnsupportedClusteringPlanException.class)
        .hasMessage("Cannot execute clustering plan with strategy " + SPARK
            + "SparkConsistentBucketClusteringExecutionStrategy on the Java engine: it keeps the consistent-hashing"
            + " buckets; leaving the plan to a Spark writer");
  }
}
