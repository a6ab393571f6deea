package io.huditsd.api;

import io.dropwizard.testing.DropwizardTestSupport;
import io.huditsd.api.demo.DemoWriter;
import io.huditsd.config.TsdConfiguration;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * {@code bin/tsd demo}'s loop, at a faster pace: the built-in writer upserts into today and yesterday while the
 * daemon compacts, clusters, cleans and archives with the demo's configuration. No writer batch may fail.
 *
 * <p>The pace: a demo day of {@link #BATCHES_PER_DAY} batches instead of a minute, so the file groups of the days the
 * writer left are cold once its last {@link #BATCHES_PER_DAY} commits went elsewhere (hot by commits, not minutes:
 * the writer touches only today and yesterday, so the days before are never written again), and clustering due
 * every few commits. What the test proves is unchanged: with hot data left out, the writer never conflicts while
 * every service runs, again and again.
 */
class TestDemoLoop {
  private static final String TABLE = "demo_mor";
  private static final int BATCHES_PER_DAY = 2;
  private static final DemoCommand.Pace PACE = new DemoCommand.Pace(2, 4, BATCHES_PER_DAY, 0);

  @TempDir
  Path dir;

  private DemoWriter writer;
  private DropwizardTestSupport<TsdConfiguration> daemon;

  @AfterEach
  void stop() {
    if (writer != null) {
      writer.stop();
    }
    if (daemon != null) {
      daemon.after();
    }
    Awaitility.reset();
  }

  @Test
  void theWriterNeverConflictsWhileEveryServiceKeepsRunning() throws Exception {
    InProcessDaemonAwaits.ignoreOtherThreadsExceptions();
    Path table = dir.resolve("tables").resolve(TABLE);
    Files.createDirectories(table.getParent());
    writer = DemoWriter.start(table.toString(), Duration.ofMillis(500), BATCHES_PER_DAY);
    Path config = dir.resolve("tsd.yml");
    Files.writeString(config, DemoCommand.demoConfiguration(table, 0, 0, PACE));
    daemon = new DropwizardTestSupport<>(TsdApplication.class, config.toString());
    daemon.before();
    RestClient admin = new RestClient("http://localhost:" + daemon.getAdminPort(), null);

    await().atMost(Duration.ofMinutes(8)).pollInterval(Duration.ofSeconds(1)).untilAsserted(() -> {
      Map<String, Double> metrics = PrometheusText.parse(admin.get("/prometheus").body());
      for (String service : new String[] {"compaction", "clustering", "clean", "archive"}) {
        assertThat(metrics.getOrDefault(runs(service, "succeeded"), 0.0)).as(service).isGreaterThanOrEqualTo(2);
      }
    });

    Map<String, Double> metrics = PrometheusText.parse(admin.get("/prometheus").body());
    assertThat(writer.conflicts()).isZero();
    assertThat(writer.failures()).isZero();
    // The writer went on through more than three demo days: past the days the daemon clustered.
    assertThat(writer.committed()).isGreaterThan(3L * BATCHES_PER_DAY);
    assertThat(metrics).containsEntry("tsd_writer_failures_total{table=\"" + TABLE + "\"}", 0.0);
    assertThat(metrics.get("tsd_clustering_file_groups_skipped_hot_total{table=\"" + TABLE + "\"}"))
        .isGreaterThan(0);
  }

  private static String runs(String service, String result) {
    return "tsd_runs_total{engine=\"java\",result=\"" + result + "\",service=\"" + service
        + "\",table=\"" + TABLE + "\"}";
  }
}
