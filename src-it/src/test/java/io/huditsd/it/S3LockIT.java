package io.huditsd.it;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.huditsd.api.demo.SampleTable;
import io.huditsd.it.support.S3Lake;
import io.huditsd.it.support.Tsd;
import io.huditsd.testing.s3.S3MockServer;
import org.apache.hadoop.conf.Configuration;
import org.apache.hudi.common.model.HoodieTableType;
import org.apache.hudi.common.table.HoodieTableMetaClient;
import org.apache.hudi.common.table.timeline.HoodieInstant;
import org.apache.hudi.common.table.timeline.HoodieTimeline;
import org.apache.hudi.storage.hadoop.HadoopStorageConfiguration;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static io.huditsd.it.support.TrackedTable.rows;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

/**
 * Issue 15, part 2: the daemon's default lock on an {@code s3a://} table is the S3 storage lock (Hudi's lock object
 * {@code .hoodie/.locks/table_lock.json}, conditional PUTs), shared with the table's writer. Two packaged daemon
 * processes ({@code once}, started together as overlapping cron runs are) on a MERGE_ON_READ table on a real S3
 * server must exclude each other, with no lock configured (the first pass) and with one of them configured with Hudi's
 * {@code StorageBasedLockProvider} (the second: the daemon maps it to its S3 client of the same lock object): one
 * compaction plan per pass, completed, nothing left pending, and the lock object last written by a daemon and
 * released.
 */
class S3LockIT {
  private static final Duration ONCE_TIMEOUT = Duration.ofMinutes(4);
  private static final String BUCKET = "lake";
  private static final int ROWS = 300;
  private static final int PASSES = 2;
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String HUDI_STORAGE_LOCK = "org.apache.hudi.client.transaction.lock.StorageBasedLockProvider";

  private final HttpClient http = HttpClient.newHttpClient();

  @Test
  void twoDaemonProcessesOnAnS3TableExcludeEachOtherWithTheS3StorageLock() throws Exception {
    Path work = Tsd.workDirectory("S3LockIT");
    long start = System.nanoTime();
    try (S3MockServer s3 = S3MockServer.start(work.resolve("s3-" + System.currentTimeMillis()), BUCKET)) {
      // What the daemon reads as HADOOP_CONF_DIR: bin/tsd puts the directory first on the class path.
      Path hadoopConf = work.resolve("hadoop-conf");
      Files.createDirectories(hadoopConf);
      Files.writeString(hadoopConf.resolve("core-site.xml"), s3.coreSiteXml());
      Configuration hadoop = new Configuration();
      s3.s3aProperties().forEach(hadoop::set);
      String table = "mor";
      String basePath = "s3a://" + BUCKET + "/" + table;
      URI lockObject = URI.create(s3.endpoint() + "/" + BUCKET + "/" + table + "/.hoodie/.locks/table_lock.json");

      // The writer takes the same default lock as the daemon (SampleTable: DefaultTableLock for the base path).
      try {
        runPasses(hadoopConf, hadoop, work, basePath, table, lockObject);
      } finally {
        // The writer and the checks cached s3a://lake with this server's endpoint; a later class has its own.
        S3Lake.closeCachedFileSystem(BUCKET, hadoop);
      }
    }
    System.out.printf("S3LockIT: %d passes of two once processes on s3a took %d s%n", PASSES,
        Duration.ofNanos(System.nanoTime() - start).toSeconds());
  }

  private void runPasses(Path hadoopConf, Configuration hadoop, Path work, String basePath, String table,
                         URI lockObject) throws Exception {
    try (SampleTable writer = SampleTable.open(basePath, table, HoodieTableType.MERGE_ON_READ, 9, Map.of(),
        hadoop)) {
      writer.insert(rows(0, ROWS, 1_000, "v1"));
      JsonNode writersLock = lockFile(lockObject);
      assertThat(writersLock.get("expired").booleanValue()).as("the writer released the S3 lock: %s", writersLock)
          .isTrue();
      for (int pass = 0; pass < PASSES; pass++) {
        String deltaCommit = writer.upsert(rows(0, ROWS, 2_000 + pass, "pass " + pass));
        String writerOwner = lockFile(lockObject).get("owner").textValue();
        runOnceTogether(work.resolve("pass-" + pass), hadoopConf, basePath,
            pass == 0 ? List.of() : List.of("--hoodie-conf", "hoodie.write.lock.provider=" + HUDI_STORAGE_LOCK));

        HoodieTimeline timeline = HoodieTableMetaClient.builder()
            .setConf(new HadoopStorageConfiguration(hadoop)).setBasePath(basePath).build().getActiveTimeline();
        List<HoodieInstant> compactions = timeline.getCommitsAndCompactionTimeline().getInstantsAsStream()
            .filter(instant -> instant.getAction().equals(HoodieTimeline.COMMIT_ACTION)
                || instant.getAction().equals(HoodieTimeline.COMPACTION_ACTION))
            .filter(instant -> instant.requestedTime().compareTo(deltaCommit) > 0)
            .toList();
        assertThat(compactions).as("compactions of pass %d after delta commit %s", pass, deltaCommit)
            .singleElement().satisfies(compaction -> assertThat(compaction.isCompleted()).isTrue());
        assertThat(timeline.filterInflightsAndRequested().getInstants()).as("unfinished instants, pass %d", pass)
            .isEmpty();
        JsonNode daemonsLock = lockFile(lockObject);
        assertThat(daemonsLock.get("owner").textValue()).as("the lock object's owner after pass %d", pass)
            .isNotEqualTo(writerOwner);
        assertThat(daemonsLock.get("expired").booleanValue()).as("released by the daemon: %s", daemonsLock)
            .isTrue();
      }
    }
  }

  private JsonNode lockFile(URI lockObject) throws IOException, InterruptedException {
    HttpResponse<String> response = http.send(HttpRequest.newBuilder(lockObject).GET().build(),
        HttpResponse.BodyHandlers.ofString());
    assertThat(response.statusCode()).as("GET %s", lockObject).isEqualTo(200);
    return JSON.readTree(response.body());
  }

  /**
   * Starts two {@code once} runs at the same moment and waits until each has exited 0; the second with
   * {@code secondsArguments} added.
   */
  private static void runOnceTogether(Path logs, Path hadoopConf, String basePath, List<String> secondsArguments)
      throws Exception {
    ExecutorService starter = Executors.newFixedThreadPool(2);
    try {
      List<Callable<Integer>> runs = new ArrayList<>();
      for (int process = 0; process < 2; process++) {
        Path log = logs.resolve("once-" + process);
        List<String> extra = process == 0 ? List.of() : secondsArguments;
        runs.add(() -> once(log, hadoopConf, basePath, extra));
      }
      for (Future<Integer> run : starter.invokeAll(runs)) {
        assertThat(run.get()).as("exit code of a once run (logs under %s)", logs).isZero();
      }
    } finally {
      starter.shutdownNow();
    }
  }

  /** {@code once} as {@code bin/tsd} runs it with {@code HADOOP_CONF_DIR}: the directory first on the class path. */
  private static int once(Path logs, Path hadoopConf, String basePath, List<String> extra) throws Exception {
    Path jar = Path.of(System.getProperty("tsd.jar")).toAbsolutePath().normalize();
    assertThat(jar).as("the packaged daemon; run mvn package first").isRegularFile();
    List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-Xmx1g", "-Djdk.attach.allowAttachSelf=true", "-Djol.skipHotspotSAAttach=true",
        "-cp", hadoopConf + ":" + jar, "io.huditsd.api.TsdApplication",
        "once", "--table", basePath, "--services", "compaction", "--workers", "1",
        "--hoodie-conf", "hoodie.compact.inline.max.delta.commits=1"));
    command.addAll(extra);
    Files.createDirectories(logs.getParent());
    Process process = new ProcessBuilder(command)
        .redirectOutput(logs.resolveSibling(logs.getFileName() + ".out").toFile())
        .redirectError(logs.resolveSibling(logs.getFileName() + ".err").toFile())
        .start();
    if (!process.waitFor(ONCE_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
      process.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
      fail("once did not end within " + ONCE_TIMEOUT + "; see " + logs + ".out and .err");
    }
    return process.exitValue();
  }
}
