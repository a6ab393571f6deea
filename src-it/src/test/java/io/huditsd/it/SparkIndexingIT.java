package io.huditsd.it;

import io.huditsd.it.support.DaemonApi;
import io.huditsd.it.support.DaemonYaml;
import io.huditsd.it.support.PeerRow;
import io.huditsd.it.support.RowDiff;
import io.huditsd.it.support.SparkPeer;
import io.huditsd.it.support.SparkTable;
import io.huditsd.it.support.TableReader;
import io.huditsd.it.support.TrackedTable;
import io.huditsd.it.support.Tsd;
import org.apache.hudi.common.table.HoodieTableMetaClient;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static io.huditsd.it.support.TrackedTable.rows;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Spark writes a COPY_ON_WRITE table with only the files partition in its metadata table; the daemon (server) builds
 * the record index and column stats it is configured to want; then Spark, with data skipping and the record index on,
 * reads the table: point lookups by record key and by a stats column return exactly the right row, and the full
 * snapshot equals the rows written. A record index whose keys sit in the wrong place prunes the right file away, so
 * a lookup would come back empty.
 */
class SparkIndexingIT {
  private static final String TABLE_ID = "spark_idx";
  private static final int KEYS = 300;
  /** Spark's reader with the metadata table, data skipping, the record index and column stats on. */
  private static final Map<String, String> INDEXED_READ = Map.of(
      "hoodie.datasource.query.type", "snapshot",
      "hoodie.metadata.enable", "true",
      "hoodie.enable.data.skipping", "true",
      "hoodie.metadata.record.index.enable", "true",
      "hoodie.metadata.global.record.level.index.enable", "true",
      "hoodie.metadata.index.column.stats.enable", "true");
  private static SparkPeer spark;

  @BeforeAll
  static void startSpark() throws InterruptedException {
    spark = SparkPeer.shared();
  }

  /** The value of {@code metric} for this table whose labels contain {@code labels}; -1 when absent. */
  private static long metric(String metrics, String metric, String labels) {
    Matcher matcher = Pattern.compile("(?m)^" + metric + "\\{([^}]*)} ([0-9.eE+-]+)$")
        .matcher(metrics);
    while (matcher.find()) {
      if (matcher.group(1).contains("table=\"" + TABLE_ID + "\"") && matcher.group(1).contains(labels)) {
        return (long) Double.parseDouble(matcher.group(2));
      }
    }
    return -1;
  }

  @Test
  void sparkUsesTheIndexesTheDaemonBuilt() throws Exception {
    Path work = Tsd.workDirectory("SparkIndexingIT/daemon");
    Path basePath = work.resolve("spark_idx");
    // The writer keeps a metadata table with the files partition only: the indexes are the daemon's to build.
    SparkTable table = SparkTable.create(spark, basePath, "COPY_ON_WRITE", Map.of(
        "hoodie.metadata.enable", "true",
        "hoodie.metadata.index.column.stats.enable", "false",
        "hoodie.metadata.index.partition.stats.enable", "false",
        "hoodie.metadata.record.index.enable", "false",
        "hoodie.parquet.small.file.limit", "0"));
    table.insert(rows(0, KEYS, 1_000, "v1"));
    table.upsert(rows(0, KEYS, 2_000, "v2").stream().filter(row -> Integer.parseInt(row.id().substring(1)) % 3 == 0)
        .toList());
    table.insert(rows(KEYS, KEYS + 60, 1_500, "v1"));
    TableReader reader = new TableReader(basePath.toString());
    assertThat(reader.metaClient().getTableConfig().getMetadataPartitions()).containsExactly("files");

    int port = DaemonApi.freePort();
    int adminPort = DaemonApi.freePort();
    Path config = work.resolve("tsd.yml");
    Files.writeString(config, DaemonYaml.serverAndLogging(port, adminPort) + DaemonYaml.QUICK_POLLING + """
        tables:
          - path: %s
            id: %s
            services: [index]
            indexes:
              record_index: {}
              column_stats: {columns: [amount, ts]}
        """.formatted(basePath, TABLE_ID));
    try (Tsd.Running daemon = Tsd.startDaemon(work.resolve("daemon"), "server", config.toString())) {
      await("record_index and column_stats built; daemon log " + daemon.logs() + ".out")
          .atMost(Duration.ofMinutes(4)).pollInterval(Duration.ofSeconds(1)).ignoreExceptions()
          .untilAsserted(() -> {
            HoodieTableMetaClient metaClient = reader.metaClient();
            assertThat(metaClient.getTableConfig().getMetadataPartitions())
                .contains("files", "record_index", "column_stats");
            assertThat(metaClient.getActiveTimeline().filterPendingIndexTimeline().getInstants()).isEmpty();
          });
      assertThat(new DaemonApi(port).runs()).as("runs of the daemon")
          .filteredOn(run -> "index".equals(run.get("service")))
          .hasSize(2)
          .allSatisfy(run -> assertThat(run).containsEntry("status", "succeeded"));
      await("tsd_missing_indexes of " + TABLE_ID + " at 0").atMost(Duration.ofSeconds(30))
          .untilAsserted(() -> assertThat(metric(DaemonApi.metrics(adminPort), "tsd_missing_indexes", ""))
              .isEqualTo(0));
      String metrics = DaemonApi.metrics(adminPort);
      assertThat(metric(metrics, "tsd_runs_total", "result=\"succeeded\",service=\"index\"")).isEqualTo(2);
      assertThat(metric(metrics, "tsd_runs_total", "result=\"failed\",service=\"index\"")).isZero();
    }
    assertThat(reader.metaClient().getTableConfig().getMetadataPartitionsInflight()).isEmpty();

    Map<String, PeerRow> expected = table.expected();
    RowDiff.assertSameRows("Spark snapshot with data skipping and the record index", expected,
        PeerRow.byKey("Spark indexed read", spark.read(table.basePath(), INDEXED_READ, null)));
    for (int number : List.of(0, 7, 150, 299, KEYS + 1, KEYS + 59)) {
      String key = TrackedTable.key(number);
      assertThat(PeerRow.byKey("lookup of " + key,
          spark.read(table.basePath(), INDEXED_READ, "id = '" + key + "'")))
          .as("Spark point lookup of %s through the record index", key)
          .containsExactly(Map.entry(key, expected.get(key)));
      long amount = expected.get(key).amount();
      assertThat(PeerRow.byKey("lookup of amount " + amount,
          spark.read(table.basePath(), INDEXED_READ, "amount = " + amount)))
          .as("Spark lookup of amount %d through column stats", amount)
          .containsExactly(Map.entry(key, expected.get(key)));
    }
  }
}
