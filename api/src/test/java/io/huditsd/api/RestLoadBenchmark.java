package io.huditsd.api;

import io.dropwizard.testing.DropwizardTestSupport;
import io.huditsd.api.demo.SampleRow;
import io.huditsd.api.demo.SampleTable;
import io.huditsd.config.TsdConfiguration;
import org.apache.hudi.common.model.HoodieTableType;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * REST load benchmark (not a test): a real daemon on loopback servicing a MOR table that a writer keeps upserting
 * into, so compactions, cleans and archives run while {@code clients} concurrent clients send GETs for
 * {@code seconds}. Prints requests, errors and latency percentiles. Run with bench/rest-load.sh.
 */
public final class RestLoadBenchmark {
  private static final String[] ENDPOINTS = {"/api/v1/tables", "/api/v1/tables/bench", "/api/v1/runs",
      "/api/v1/tables/bench/plans", "/api/v1/tables/bench/file-groups"};

  private RestLoadBenchmark() {
  }

  public static void main(String[] args) throws Exception {
    int clients = args.length > 0 ? Integer.parseInt(args[0]) : 50;
    int seconds = args.length > 1 ? Integer.parseInt(args[1]) : 30;
    Path dir = Files.createTempDirectory("tsd-rest-load");
    String tablePath = dir.resolve("bench").toString();
    SampleTable table = SampleTable.open(tablePath, "bench", HoodieTableType.MERGE_ON_READ, 9, Map.of());
    table.insert(rows(0, 2000, 1));
    Path config = dir.resolve("tsd.yml");
    Files.writeString(config, """
        server:
          applicationConnectors: [{type: http, port: 0}]
          adminConnectors: [{type: http, port: 0}]
          requestLog: {appenders: []}
        logging: {level: WARN}
        polling: {interval: 1s}
        workers: {count: 2}
        tables:
          - path: %s
            id: bench
            # Clustering would rewrite the file groups the writer updates, and its commits conflict with it.
            services: [compaction, clean, archive]
            hoodie:
              hoodie.compact.inline.max.delta.commits: "2"
              hoodie.clean.commits.retained: "2"
              hoodie.keep.min.commits: "4"
              hoodie.keep.max.commits: "6"
        """.formatted(tablePath));
    DropwizardTestSupport<TsdConfiguration> daemon = new DropwizardTestSupport<>(TsdApplication.class,
        config.toString());
    daemon.before();
    AtomicBoolean running = new AtomicBoolean(true);
    AtomicLong commits = new AtomicLong();
    AtomicLong failedCommits = new AtomicLong();
    Thread writer = new Thread(() -> {
      long ts = 2;
      Random random = new Random(7);
      while (running.get()) {
        try {
          int from = random.nextInt(1800);
          table.upsert(rows(from, from + 200, ts++));
          commits.incrementAndGet();
          Thread.sleep(1000);
        } catch (InterruptedException e) {
          return;
        } catch (RuntimeException e) {
          // a conflict with a table service: the next batch goes on
          failedCommits.incrementAndGet();
        }
      }
    }, "bench-writer");
    writer.start();

    String base = "http://localhost:" + daemon.getLocalPort();
    HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    List<long[]> perClient = new ArrayList<>();
    AtomicLong errors = new AtomicLong();
    AtomicLong requests = new AtomicLong();
    long deadline = System.nanoTime() + Duration.ofSeconds(seconds).toNanos();
    ExecutorService pool = Executors.newFixedThreadPool(clients);
    List<java.util.concurrent.Future<long[]>> futures = new ArrayList<>();
    for (int c = 0; c < clients; c++) {
      int offset = c;
      futures.add(pool.submit(() -> {
        long[] latencies = new long[1 << 16];
        int count = 0;
        int i = offset;
        while (System.nanoTime() < deadline) {
          String path = ENDPOINTS[i++ % ENDPOINTS.length];
          long start = System.nanoTime();
          try {
            HttpResponse<String> response = client.send(HttpRequest.newBuilder(URI.create(base + path))
                .timeout(Duration.ofSeconds(30)).GET().build(), HttpResponse.BodyHandlers.ofString());
            if (response.statusCode() != 200) {
              errors.incrementAndGet();
            }
          } catch (Exception e) {
            errors.incrementAndGet();
          }
          if (count == latencies.length) {
            latencies = Arrays.copyOf(latencies, count * 2);
          }
          latencies[count++] = System.nanoTime() - start;
          requests.incrementAndGet();
        }
        return Arrays.copyOf(latencies, count);
      }));
    }
    for (var future : futures) {
      perClient.add(future.get());
    }
    pool.shutdown();
    running.set(false);
    writer.join(30_000);
    String runs = client.send(HttpRequest.newBuilder(URI.create(base + "/api/v1/runs")).GET().build(),
        HttpResponse.BodyHandlers.ofString()).body();
    daemon.after();
    table.close();

    long[] all = perClient.stream().flatMapToLong(Arrays::stream).sorted().toArray();
    System.out.printf("clients=%d seconds=%d requests=%d errors=%d throughput=%.0f/s%n", clients, seconds,
        requests.get(), errors.get(), requests.get() / (double) seconds);
    System.out.printf("latency ms: p50=%.1f p95=%.1f p99=%.1f max=%.1f%n", percentile(all, 50),
        percentile(all, 95), percentile(all, 99), all.length == 0 ? 0 : all[all.length - 1] / 1e6);
    System.out.printf("writer: %d commits, %d failed; runs finished meanwhile: %d succeeded%n", commits.get(),
        failedCommits.get(), runs.split("\"succeeded\"", -1).length - 1);
  }

  private static double percentile(long[] sorted, int percentile) {
    if (sorted.length == 0) {
      return 0;
    }
    int index = (int) Math.ceil(percentile / 100.0 * sorted.length) - 1;
    return sorted[Math.max(0, index)] / 1e6;
  }

  private static List<SampleRow> rows(int from, int to, long ts) {
    List<SampleRow> rows = new ArrayList<>();
    for (int i = from; i < to; i++) {
      rows.add(SampleRow.of("k" + i, "p" + (i % 4), ts, "n" + ts, i));
    }
    return rows;
  }
}
