package io.huditsd.sparkrunner;

import org.apache.hudi.common.table.HoodieTableMetaClient;
import org.apache.hudi.storage.hadoop.HadoopStorageConfiguration;
import org.apache.spark.SparkConf;
import org.apache.spark.api.java.JavaSparkContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.List;
import java.util.Properties;

/**
 * The Spark application hudi-tsd submits to execute exactly one pending plan of a table:
 * {@code --base-path P --service compaction|clustering --instant I --props FILE} (see {@link RunnerArgs}). It writes
 * under the same rules as the daemon ({@link RunnerWriteConfig}); the daemon reads the outcome from the completed
 * instant's commit metadata, not from here.
 *
 * <p>Exit codes: {@value #EXIT_DONE} the plan completed; {@value #EXIT_FAILED} it failed (the exception is logged;
 * the plan stays pending and is rolled back by its next attempt); {@value #EXIT_REFUSED} bad arguments, props or a
 * plan the runner does not execute (retrying does not help); {@value #EXIT_NOT_EXECUTABLE} the plan is not pending,
 * or another process executes it (live heartbeat); nothing was written.
 */
public final class PlanRunnerApp {
  public static final int EXIT_DONE = 0;
  public static final int EXIT_FAILED = 1;
  public static final int EXIT_REFUSED = 2;
  public static final int EXIT_NOT_EXECUTABLE = 3;
  private static final Logger LOG = LoggerFactory.getLogger(PlanRunnerApp.class);

  private PlanRunnerApp() {
  }

  public static void main(String[] args) {
    RunnerArgs parsed;
    try {
      parsed = RunnerArgs.parse(List.of(args));
    } catch (IllegalArgumentException e) {
      LOG.error("{}", e.getMessage());
      System.err.println(e.getMessage());
      System.exit(EXIT_REFUSED);
      return;
    }
    // Hudi's Spark client expects Kryo with its registrar (HoodieSparkKryoRegistrar), as its docs tell every job.
    SparkConf conf = new SparkConf()
        .setIfMissing("spark.app.name", "hudi-tsd " + parsed.service().argument() + " " + parsed.instant())
        .setIfMissing("spark.serializer", "org.apache.spark.serializer.KryoSerializer")
        .setIfMissing("spark.kryo.registrator", "org.apache.spark.HoodieSparkKryoRegistrar");
    int exit;
    try (JavaSparkContext spark = new JavaSparkContext(conf)) {
      exit = run(parsed, spark);
    }
    // Hudi's and Spark's non-daemon threads would otherwise keep the driver up; a non-zero code reaches spark-submit
    // and SparkAppHandle (state FAILED).
    System.exit(exit);
  }

  /** Executes the plan; the exit code (see the class comment), never an exception. */
  static int run(RunnerArgs args, JavaSparkContext spark) {
    String what = args.service().argument() + " " + args.instant() + " of " + args.basePath();
    long start = System.nanoTime();
    try {
      Properties daemonKeys = PropsFile.load(args.propsFile());
      // Spark loads this class, like --jars, in the application's class loader (not the bundle's).
      DriverClassPath.requireLoadableByHudi(daemonKeys, PlanRunnerApp.class.getClassLoader());
      HoodieTableMetaClient metaClient = HoodieTableMetaClient.builder()
          .setConf(new HadoopStorageConfiguration(spark.hadoopConfiguration()))
          .setBasePath(args.basePath())
          .setLoadActiveTimelineOnLoad(true)
          .build();
      LOG.info("Executing {} (application {})", what, spark.sc().applicationId());
      PlanExecution execution = new PlanExecution(spark, metaClient, daemonKeys);
      switch (args.service()) {
        case COMPACTION -> execution.compact(args.instant());
        case CLUSTERING -> execution.cluster(args.instant());
      }
      LOG.info("Completed {} in {} ms", what, (System.nanoTime() - start) / 1_000_000);
      return EXIT_DONE;
    } catch (PlanNotExecutableException e) {
      LOG.warn("Not executing {}: {}", what, e.getMessage());
      return EXIT_NOT_EXECUTABLE;
    } catch (PlanRefusedException e) {
      LOG.error("Refusing {}: {}", what, e.getMessage());
      return EXIT_REFUSED;
    } catch (RuntimeException e) {
      LOG.error("Failed {} after {} ms", what, (System.nanoTime() - start) / 1_000_000, e);
      return EXIT_FAILED;
    }
  }
}
