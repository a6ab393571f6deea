package io.huditsd.sparkrunner;

import org.apache.hadoop.conf.Configuration;
import org.apache.hudi.common.model.HoodieTableType;
import org.apache.hudi.common.table.HoodieTableMetaClient;
import org.apache.hudi.storage.hadoop.HadoopStorageConfiguration;
import org.apache.spark.SparkConf;
import org.apache.spark.api.java.JavaSparkContext;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;

import static org.assertj.core.api.Assertions.assertThat;

/** The exit codes of a run on Spark in local[1], for what fails before any plan is executed. */
class TestPlanRunnerApp {
  private static JavaSparkContext spark;

  @TempDir
  Path directory;

  @BeforeAll
  static void startSpark() {
    spark = new JavaSparkContext(new SparkConf().setMaster("local[1]").setAppName("TestPlanRunnerApp")
        .set("spark.ui.enabled", "false").set("spark.driver.host", "127.0.0.1")
        .set("spark.driver.bindAddress", "127.0.0.1"));
  }

  @AfterAll
  static void stopSpark() {
    spark.stop();
  }

  @Test
  void aPlanThatIsNotPendingIsNotExecutable() throws Exception {
    String basePath = table(HoodieTableType.MERGE_ON_READ);

    assertThat(PlanRunnerApp.run(new RunnerArgs(basePath, Service.COMPACTION, "20261201000000000", props()), spark))
        .isEqualTo(PlanRunnerApp.EXIT_NOT_EXECUTABLE);
  }

  @Test
  void compactionOfACopyOnWriteTableIsRefused() throws Exception {
    String basePath = table(HoodieTableType.COPY_ON_WRITE);

    assertThat(PlanRunnerApp.run(new RunnerArgs(basePath, Service.COMPACTION, "20261201000000000", props()), spark))
        .isEqualTo(PlanRunnerApp.EXIT_REFUSED);
  }

  @Test
  void missingPropsAreRefused() throws Exception {
    String basePath = table(HoodieTableType.MERGE_ON_READ);
    String missing = directory.resolve("absent.properties").toString();

    assertThat(PlanRunnerApp.run(new RunnerArgs(basePath, Service.CLUSTERING, "20261201000000000", missing), spark))
        .isEqualTo(PlanRunnerApp.EXIT_REFUSED);
  }

  @Test
  void aMissingTableFails() throws Exception {
    String basePath = directory.resolve("nothing-here").toString();

    assertThat(PlanRunnerApp.run(new RunnerArgs(basePath, Service.CLUSTERING, "20261201000000000", props()), spark))
        .isEqualTo(PlanRunnerApp.EXIT_FAILED);
  }

  private String table(HoodieTableType type) throws Exception {
    String basePath = directory.resolve("orders").toString();
    HoodieTableMetaClient.newTableBuilder()
        .setTableType(type)
        .setTableName("orders")
        .setRecordKeyFields("id")
        .initTable(new HadoopStorageConfiguration(new Configuration()), basePath);
    return basePath;
  }

  private String props() throws Exception {
    Properties keys = new Properties();
    keys.setProperty("hoodie.table.name", "orders");
    keys.setProperty("hoodie.write.lock.provider",
        "org.apache.hudi.client.transaction.lock.FileSystemBasedLockProvider");
    Path file = directory.resolve("orders.properties");
    try (Writer writer = Files.newBufferedWriter(file)) {
      keys.store(writer, null);
    }
    return file.toString();
  }
}
