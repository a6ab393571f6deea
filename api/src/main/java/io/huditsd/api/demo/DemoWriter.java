package io.huditsd.api.demo;

import org.apache.hudi.common.model.HoodieTableType;
import org.apache.hudi.exception.HoodieWriteConflictException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.time.Duration;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The demo's ingestion job: upserts a batch into the sample table every few seconds, as an event stream partitioned
 * by day would: most rows go to the current day (new keys and updates), a quarter are late updates of the day
 * before, and a new day starts every {@code batchesPerDay} batches. Older days are cold: the daemon clusters them
 * while the writer goes on with the recent ones.
 */
public final class DemoWriter {
  private static final Logger LOG = LoggerFactory.getLogger(DemoWriter.class);
  public static final int INTERVAL_SECONDS = 3;
  /** With {@link #INTERVAL_SECONDS}, a demo "day" lasts one minute. */
  public static final int BATCHES_PER_DAY = 20;
  private static final LocalDate FIRST_DAY = LocalDate.of(2026, 11, 1);
  private static final int ROWS_PER_BATCH = 200;
  private static final int KEYS_PER_DAY = 500;

  private final SampleTable table;
  private final Duration interval;
  private final int batchesPerDay;
  private final AtomicBoolean running = new AtomicBoolean(true);
  private final CountDownLatch stopRequested = new CountDownLatch(1);
  private final AtomicLong committed = new AtomicLong();
  private final AtomicLong conflicts = new AtomicLong();
  private final AtomicLong failures = new AtomicLong();
  private final Thread thread;

  private DemoWriter(SampleTable table, Duration interval, int batchesPerDay) {
    this.table = table;
    this.interval = Objects.requireNonNull(interval, "interval is null");
    if (batchesPerDay < 1) {
      throw new IllegalArgumentException("batchesPerDay must be at least 1, got " + batchesPerDay);
    }
    this.batchesPerDay = batchesPerDay;
    this.thread = new Thread(this::loop, "tsd-demo-writer");
    this.thread.setDaemon(true);
  }

  public static DemoWriter start(String basePath) throws IOException {
    return start(basePath, Duration.ofSeconds(INTERVAL_SECONDS), BATCHES_PER_DAY);
  }

  /** A writer with its own pace (tests run the demo's loop faster). */
  public static DemoWriter start(String basePath, Duration interval, int batchesPerDay) throws IOException {
    // The demo daemon's config declares this interval (hoodie.client.heartbeat.interval_in_ms): the daemon rolls back
    // a writer commit whose heartbeat is older than the declared interval * misses, so it must match the writer's.
    SampleTable table = SampleTable.open(basePath, "demo_mor", HoodieTableType.MERGE_ON_READ, 9,
        Map.of("hoodie.client.heartbeat.interval_in_ms", "5000"));
    DemoWriter writer = new DemoWriter(table, interval, batchesPerDay);
    writer.thread.start();
    return writer;
  }

  private void loop() {
    Random random = new Random(42);
    long batch = 0;
    while (running.get()) {
      try {
        long day = batch / batchesPerDay;
        List<SampleRow> rows = new ArrayList<>();
        for (int i = 0; i < ROWS_PER_BATCH; i++) {
          long rowDay = day > 0 && i % 4 == 0 ? day - 1 : day;
          String partition = FIRST_DAY.plusDays(rowDay).toString();
          rows.add(SampleRow.of(partition + "-k" + random.nextInt(KEYS_PER_DAY), partition,
              System.currentTimeMillis(), "name-" + batch, random.nextInt(1_000_000)));
        }
        String instant = table.upsert(rows);
        committed.incrementAndGet();
        LOG.info("Demo writer committed {} rows at {}", rows.size(), instant);
        batch++;
        // Woken early by stop(), which leaves a commit under way to finish.
        if (stopRequested.await(interval.toMillis(), TimeUnit.MILLISECONDS)) {
          return;
        }
      } catch (InterruptedException e) {
        return;
      } catch (HoodieWriteConflictException e) {
        // Should not happen: the daemon plans around hot data and its clustering yields to writers.
        conflicts.incrementAndGet();
        LOG.warn("Demo writer batch conflicted with a table service and was rolled back; writing the next one", e);
      } catch (RuntimeException e) {
        failures.incrementAndGet();
        LOG.warn("Demo writer commit failed; trying again", e);
      }
    }
  }

  /** Batches committed so far. */
  public long committed() {
    return committed.get();
  }

  /** Batches that failed on a write conflict with a table service. */
  public long conflicts() {
    return conflicts.get();
  }

  /** Batches that failed otherwise. */
  public long failures() {
    return failures.get();
  }

  public void stop() {
    running.set(false);
    stopRequested.countDown();
    try {
      // A commit under way finishes (a few seconds; interrupting it left Hudi retrying its lock); one stuck longer is
      // interrupted, and Hudi rolls it back later.
      thread.join(20_000);
      if (thread.isAlive()) {
        thread.interrupt();
        thread.join(5_000);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    table.close();
  }
}
