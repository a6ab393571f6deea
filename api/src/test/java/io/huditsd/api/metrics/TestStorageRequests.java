package io.huditsd.api.metrics;

import io.huditsd.api.PrometheusText;
import io.huditsd.config.HeartbeatSettings;
import io.huditsd.config.MetadataIndexes;
import io.huditsd.config.ServiceType;
import io.huditsd.config.ServicedTable;
import io.huditsd.executors.ActionResult;
import io.huditsd.executors.HudiTables;
import io.huditsd.executors.LocalTables;
import io.huditsd.executors.RunListener;
import io.huditsd.executors.WorkerPool;
import io.huditsd.lock.DefaultTableLock;
import io.huditsd.scheduler.DuePlanner;
import io.huditsd.scheduler.PollObserver;
import io.huditsd.scheduler.TablePoller;
import io.huditsd.scheduler.TableState;
import io.huditsd.scheduler.TimelineFingerprint;
import io.huditsd.testing.s3.S3MockServer;
import io.huditsd.testing.s3.ThrottlingProxy;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.FileUtil;
import org.apache.hadoop.fs.Path;
import org.apache.hudi.common.model.HoodieTableType;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What polls of an s3a table cost on a real S3 server (S3Mock), counted by {@link StorageRequestsCollector} from
 * S3A's statistics. Tables are written on local disk with Hudi and copied into the bucket; polls only read, so the
 * tables name Hudi's in-process lock (the S3 storage lock is another part of this work).
 */
class TestStorageRequests {
  /** The op label of a {@code tsd_storage_requests_total} series. */
  private static final Pattern OP = Pattern.compile("^tsd_storage_requests_total\\{.*op=\"([a-z]+)\"");
  private static final Duration INTERVAL = Duration.ofSeconds(30);

  @TempDir
  static java.nio.file.Path directory;
  private static S3MockServer s3;
  private static ThrottlingProxy proxy;
  private static Configuration hadoopConfiguration;

  private final MutableClock clock = new MutableClock(Instant.parse("2026-12-01T12:00:00Z"));
  private final WorkerPool pool = new WorkerPool(1, 1, Duration.ZERO,
      item -> new ActionResult(item.service(), item.instant(), 0, 0, 0, Duration.ZERO), RunListener.NONE);

  @BeforeAll
  static void startS3() {
    s3 = S3MockServer.start(directory.resolve("s3"), "idle", "slow");
    proxy = ThrottlingProxy.start(s3.endpoint());
    hadoopConfiguration = HudiTables.defaultHadoopConfiguration();
    s3.s3aProperties().forEach(hadoopConfiguration::set);
    // Bucket "slow" is reached through the fault injector; S3A caches one file system per bucket.
    hadoopConfiguration.set("fs.s3a.bucket.slow.endpoint", proxy.endpoint());
  }

  @AfterAll
  static void stopS3() throws IOException {
    FileSystem.closeAll();
    proxy.close();
    s3.close();
  }

  @AfterEach
  void stopPool() throws InterruptedException {
    pool.close();
  }

  /** A MOR table with one commit, written locally and copied to {@code s3a://bucket/name}. */
  private ServicedTable s3Table(String bucket, String name) throws IOException {
    LocalTables local = new LocalTables();
    ServicedTable written = local.create(directory.resolve(bucket + "-" + name), HoodieTableType.MERGE_ON_READ, 9,
        Map.of());
    local.upsert(written, 0, 10, 1);
    Path target = new Path("s3a://" + bucket + "/" + name);
    FileUtil.copy(FileSystem.getLocal(hadoopConfiguration), new Path(written.basePath()),
        target.getFileSystem(hadoopConfiguration), target, false, hadoopConfiguration);
    return new ServicedTable(name, target.toString(), Set.of(ServiceType.values()), INTERVAL,
        Map.of("hoodie.write.lock.provider", DefaultTableLock.IN_PROCESS_PROVIDER), MetadataIndexes.none());
  }

  private TablePoller poller() {
    HudiTables tables = new HudiTables(hadoopConfiguration, new HeartbeatSettings(60_000, 2));
    return new TablePoller(tables, hadoopConfiguration, new DuePlanner(tables, pool), Duration.ofMinutes(5),
        TablePoller.Backlog.READ, PollObserver.NONE, tableId -> true, clock);
  }

  /** The collector's samples for {@code basePath}'s store, by series: {@code list}, ..., {@code throttled}. */
  private static Map<String, Long> counters(String basePath) {
    Map<String, Long> counters = new TreeMap<>();
    Map<String, Double> samples = PrometheusText.parse(Scrape.text(new StorageRequestsCollector(
        () -> List.of(basePath), hadoopConfiguration)));
    samples.forEach((series, value) -> {
      Matcher op = OP.matcher(series);
      String key = op.find() ? op.group(1) : series.replaceAll("\\{.*", "").replace("tsd_storage_", "")
          .replace("_total", "");
      counters.put(key, value.longValue());
    });
    return counters;
  }

  private static Map<String, Long> delta(Map<String, Long> before, Map<String, Long> after) {
    Map<String, Long> delta = new TreeMap<>();
    after.forEach((key, value) -> delta.put(key, value - before.getOrDefault(key, 0L)));
    return delta;
  }

  private static Map<String, Long> requests(long list, long head, long get) {
    return new TreeMap<>(Map.of("list", list, "head", head, "get", get, "put", 0L, "delete", 0L, "throttled", 0L,
        "retries", 0L));
  }

  @Test
  void anIdlePollIsOneListAndHoodiePropertiesIsReadOnEveryTenthPoll() throws IOException {
    ServicedTable table = s3Table("idle", "orders");
    TableState state = new TableState(table);
    TablePoller poller = poller();
    assertThat(poller.poll(state, false)).isEqualTo(TablePoller.Result.PLANNED);

    Map<String, Long> before = counters(table.basePath());
    clock.advance(INTERVAL);
    assertThat(poller.poll(state, false)).isEqualTo(TablePoller.Result.UNCHANGED);
    assertThat(delta(before, counters(table.basePath()))).isEqualTo(requests(1, 0, 0));

    before = counters(table.basePath());
    for (int poll = 2; poll <= 10; poll++) {
      clock.advance(INTERVAL);
      assertThat(poller.poll(state, false)).isEqualTo(TablePoller.Result.UNCHANGED);
    }
    // Nine more idle polls, the last of them ten intervals after hoodie.properties was read: one HEAD among them.
    assertThat(delta(before, counters(table.basePath()))).isEqualTo(requests(9, 1, 0));
  }

  @Test
  void theFingerprintOfBeforeCostAListAndAHead() throws IOException {
    ServicedTable table = s3Table("idle", "customers");
    String timeline = table.basePath() + "/.hoodie/timeline";
    Map<String, Long> before = counters(table.basePath());

    TimelineFingerprint.read(hadoopConfiguration, table.basePath(), timeline);
    assertThat(delta(before, counters(table.basePath()))).isEqualTo(requests(1, 1, 0));

    before = counters(table.basePath());
    TimelineFingerprint.list(hadoopConfiguration, timeline);
    assertThat(delta(before, counters(table.basePath()))).isEqualTo(requests(1, 0, 0));
  }

  @Test
  void aThrottledPollBacksOffRetriesAndSucceedsCounted() throws IOException {
    ServicedTable table = s3Table("slow", "orders");
    TableState state = new TableState(table);
    TablePoller poller = poller();
    assertThat(poller.poll(state, false)).isEqualTo(TablePoller.Result.PLANNED);
    Map<String, Long> before = counters(table.basePath());
    long throttledBefore = proxy.throttled();

    proxy.throttleNext(3);
    clock.advance(INTERVAL);
    assertThat(poller.poll(state, false)).isEqualTo(TablePoller.Result.UNCHANGED);

    assertThat(proxy.throttled() - throttledBefore).isEqualTo(3);
    Map<String, Long> delta = delta(before, counters(table.basePath()));
    assertThat(delta.get("throttled")).isEqualTo(3);
    assertThat(delta.get("retries")).isEqualTo(3);
    assertThat(delta.get("list")).isEqualTo(1);
    assertThat(state.snapshot().consecutiveFailures()).isZero();

    // More than the SDK's attempts (fs.s3a.attempts.maximum 3 here: 4 requests): S3A's throttle policy backs off
    // and calls again, and the SDK's retries go on from there.
    before = counters(table.basePath());
    proxy.throttleNext(6);
    clock.advance(INTERVAL);
    assertThat(poller.poll(state, false)).isEqualTo(TablePoller.Result.UNCHANGED);

    delta = delta(before, counters(table.basePath()));
    assertThat(proxy.throttled() - throttledBefore).isEqualTo(3 + 6);
    // S3A 3.3.6 counts the throttling error that used up the SDK's attempts once more when it calls again: six
    // 503 responses, seven throttled. The retries are the SDK's re-sends (3 + 2); S3A's own second call shows as a
    // second LIST (S3A counts a LIST per call it hands the SDK, failed or not) and in the throttled count.
    assertThat(delta.get("throttled")).isEqualTo(7);
    assertThat(delta.get("retries")).isEqualTo(5);
    assertThat(delta.get("list")).isEqualTo(2);
  }

  /** A clock the test moves. */
  private static final class MutableClock extends Clock {
    private final AtomicReference<Instant> now;

    MutableClock(Instant start) {
      this.now = new AtomicReference<>(start);
    }

    void advance(Duration duration) {
      now.updateAndGet(instant -> instant.plus(duration));
    }

    @Override
    public ZoneId getZone() {
      return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
      throw new UnsupportedOperationException();
    }

    @Override
    public Instant instant() {
      return now.get();
    }
  }
}
