package io.huditsd.api.demo;

import org.apache.hudi.common.model.HoodieTableType;
import org.apache.hudi.exception.HoodieWriteConflictException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.atomic.AtomicBoolean;

/** The demo's ingestion job: upserts a batch into the sample table every few seconds. */
public final class DemoWriter {
  private static final Logger LOG = LoggerFactory.getLogger(DemoWriter.class);
  public static final int INTERVAL_SECONDS = 3;
  private static final String[] PARTITIONS = {"2026-11-01", "2026-11-02", "2026-11-03"};

  private final SampleTable table;
  private final AtomicBoolean running = new AtomicBoolean(true);
  private final Thread thread;

  private DemoWriter(SampleTable table) {
    this.table = table;
    this.thread = new Thread(this::loop, "tsd-demo-writer");
    this.thread.setDaemon(true);
  }

  public static DemoWriter start(String basePath) throws java.io.IOException {
    // The writer's heartbeat renews as often as the demo daemon's (workers.heartbeatInterval: 5s): the daemon rolls
    // back a writer commit whose heartbeat is older than its own expiry window, so a writer must renew within it.
    SampleTable table = SampleTable.open(basePath, "demo_mor", HoodieTableType.MERGE_ON_READ, 9,
        Map.of("hoodie.client.heartbeat.interval_in_ms", "5000"));
    DemoWriter writer = new DemoWriter(table);
    writer.thread.start();
    return writer;
  }

  private void loop() {
    Random random = new Random(42);
    long batch = 0;
    while (running.get()) {
      try {
        List<SampleRow> rows = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
          int key = random.nextInt(2_000);
          rows.add(SampleRow.of("k" + key, PARTITIONS[key % PARTITIONS.length], System.currentTimeMillis(),
              "name-" + batch, random.nextInt(1_000_000)));
        }
        String instant = table.upsert(rows);
        LOG.info("Demo writer committed {} rows at {}", rows.size(), instant);
        batch++;
        Thread.sleep(INTERVAL_SECONDS * 1000L);
      } catch (InterruptedException e) {
        return;
      } catch (HoodieWriteConflictException e) {
        // Optimistic concurrency at work: this batch touched file groups a clustering plan rewrites.
        LOG.info("Demo writer batch conflicted with a table service and was rolled back; writing the next one");
      } catch (RuntimeException e) {
        LOG.warn("Demo writer commit failed; trying again", e);
      }
    }
  }

  public void stop() {
    running.set(false);
    thread.interrupt();
    try {
      thread.join(10_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    table.close();
  }
}
