package io.huditsd.api;

import com.fasterxml.jackson.databind.JsonNode;
import io.dropwizard.testing.DropwizardTestSupport;
import io.huditsd.api.RestClient.Reply;
import io.huditsd.api.demo.SampleRow;
import io.huditsd.api.demo.SampleTable;
import io.huditsd.config.TsdConfiguration;
import org.apache.hudi.common.model.HoodieTableType;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * What the REST API reads of a table stays inside that table, and a table whose files cannot be read is answered
 * with its problem, naming the file: a real daemon over real tables written by Hudi's Java writer.
 */
class TestRestTableFiles {
  private static final String TOKEN = "s3cret-token";
  private static final String HINT = "; expected a partition path relative to the table, as the file-groups rows"
      + " show it (e.g. 'region=eu/2026-11-01')";

  private static Path dir;
  private static DropwizardTestSupport<TsdConfiguration> daemon;
  private static RestClient api;

  @BeforeAll
  static void start() throws Exception {
    InProcessDaemonAwaits.ignoreOtherThreadsExceptions();
    dir = Files.createTempDirectory("tsd-rest-files");
    for (String name : List.of("a", "b", "broken")) {
      try (SampleTable table = SampleTable.open(dir.resolve(name).toString(), name, HoodieTableType.MERGE_ON_READ, 9,
          Map.of())) {
        List<SampleRow> rows = new ArrayList<>();
        for (int i = 0; i < 30; i++) {
          rows.add(SampleRow.of(name + "-k" + i, "p" + (i % 3), 1, "first", i));
        }
        table.insert(rows);
      }
    }
    Files.writeString(dir.resolve("token"), TOKEN + "\n");
    Path config = dir.resolve("tsd.yml");
    StringBuilder tables = new StringBuilder();
    for (String name : List.of("a", "b", "broken")) {
      tables.append("  - path: ").append(dir.resolve(name)).append("\n    id: ").append(name)
          .append("\n    services: [compaction, clean]\n");
    }
    Files.writeString(config, """
        server:
          applicationConnectors: [{type: http, port: 0}]
          adminConnectors: [{type: http, port: 0}]
        logging:
          level: WARN
        polling:
          interval: 1s
        workers:
          count: 1
        history:
          file: %s
        auth:
          tokenFile: %s
        tables:
        """.formatted(dir.resolve("history.jsonl"), dir.resolve("token")) + tables);
    daemon = new DropwizardTestSupport<>(TsdApplication.class, config.toString());
    daemon.before();
    api = new RestClient("http://localhost:" + daemon.getLocalPort(), TOKEN);
    await().atMost(Duration.ofSeconds(60)).until(() ->
        api.get("/api/v1/tables/a").json().path("backlog").path("fileGroups").asLong() > 0);
  }

  @AfterAll
  static void stop() {
    Awaitility.reset();
    if (daemon != null) {
      daemon.after();
    }
  }

  @Test
  void aPartitionParameterCannotNameAPathOutsideTheTable() {
    String other = dir.resolve("b").resolve("p1").toString();
    for (String all : List.of("", "&all=true")) {
      assertError(api.get("/api/v1/tables/a/file-groups?partition=../b/p1" + all), 400,
          "partition: '../b/p1' has a '..' segment" + HINT);
      assertError(api.get("/api/v1/tables/a/file-groups?partition=" + other + all), 400,
          "partition: '" + other + "' is an absolute path" + HINT);
      assertError(api.get("/api/v1/tables/a/file-groups?partition=file:" + other + all), 400,
          "partition: 'file:" + other + "' names a URI scheme" + HINT);
      assertError(api.get("/api/v1/tables/a/file-groups?partition=s3a://bucket/b/p1" + all), 400,
          "partition: 's3a://bucket/b/p1' names a URI scheme" + HINT);
      // Percent-encoded: Jersey decodes it to '../b/p1'; encoded twice, the daemon's second decoding does.
      assertError(api.get("/api/v1/tables/a/file-groups?partition=%2e%2e/b/p1" + all), 400,
          "partition: '../b/p1' has a '..' segment" + HINT);
      assertError(api.get("/api/v1/tables/a/file-groups?partition=%252e%252e%252fb%252fp1" + all), 400,
          "partition: '%2e%2e%2fb%2fp1' (decoded '../b/p1') has a '..' segment" + HINT);
      assertError(api.get("/api/v1/tables/a/file-groups?partition=p1%5C..%5C..%5Cb" + all), 400,
          "partition: 'p1\\..\\..\\b' contains a backslash" + HINT);
      assertError(api.get("/api/v1/tables/a/file-groups?partition=p1/./" + all), 400,
          "partition: 'p1/./' has a '.' segment" + HINT);
      assertError(api.get("/api/v1/tables/a/file-groups?partition=p9" + all), 404,
          "partition: table 'a' has no partition 'p9'");
      // A folder of the table that is no partition of it: its metadata folder.
      assertError(api.get("/api/v1/tables/a/file-groups?partition=.hoodie" + all), 404,
          "partition: table 'a' has no partition '.hoodie'");

      Reply valid = api.get("/api/v1/tables/a/file-groups?partition=p1" + all);
      assertThat(valid.status()).as(valid.body()).isEqualTo(200);
      assertThat(valid.json().size()).isPositive();
      for (JsonNode row : valid.json()) {
        assertThat(row.path("Partition_Path").asText()).isEqualTo("p1");
        assertThat(row.path("Base_File_Path").asText()).contains(dir.resolve("a").resolve("p1").toString());
      }
      assertThat(api.get("/api/v1/tables/a/file-groups?partition=" + all).json().size())
          .as("a blank partition lists every partition").isGreaterThan(valid.json().size());
    }
  }

  @Test
  void everyOperationOnATableWhoseFilesCannotBeReadAnswersWhichFileAndWhy() throws Exception {
    Path properties = dir.resolve("broken").resolve(".hoodie").resolve("hoodie.properties");
    byte[] original = Files.readAllBytes(properties);
    String file = "file:" + properties;
    String unreadable = "Table 'broken': file:" + dir.resolve("broken") + ": table config " + file
        + " cannot be read: HoodieIOException: Could not load Hoodie properties from " + file
        + " (the table is not serviced until the file is restored)";
    Files.writeString(properties, "garbage over the table config\n");
    try {
      assertError(api.post("/api/v1/tables/broken/schedule", "{\"service\":\"compaction\",\"dryRun\":true}"), 409,
          unreadable);
      assertError(api.post("/api/v1/tables/broken/schedule", "{\"service\":\"compaction\"}"), 409, unreadable);
      assertError(api.get("/api/v1/tables/broken/plans"), 409, unreadable);
      assertError(api.get("/api/v1/tables/broken/file-groups?all=true"), 409, unreadable);
      assertError(api.post("/api/v1/tables/broken/plans/20990101000000000/execute", null), 409, unreadable);
      // The table's own view shows the poll's failure, naming the file, from the next poll on.
      await().atMost(Duration.ofSeconds(60)).untilAsserted(() ->
          assertThat(api.get("/api/v1/tables/broken").json().path("lastError").asText()).contains(file));
    } finally {
      Files.write(properties, original);
    }

    Path completed;
    try (Stream<Path> files = Files.list(dir.resolve("broken").resolve(".hoodie").resolve("timeline"))) {
      completed = files.filter(path -> path.getFileName().toString().endsWith(".deltacommit")).findFirst()
          .orElseThrow();
    }
    Files.write(completed, new byte[0]);
    Files.deleteIfExists(completed.resolveSibling("." + completed.getFileName() + ".crc"));
    String corrupt = "Table 'broken': file:" + dir.resolve("broken") + ": corrupt instant file file:" + completed
        + ": completed deltacommit is empty (0 bytes); Hudi always writes its HoodieCommitMetadata"
        + " (the table is not serviced until the file is restored or the instant removed)";
    assertError(api.post("/api/v1/tables/broken/schedule", "{\"service\":\"clean\",\"dryRun\":true}"), 409, corrupt);
    assertError(api.get("/api/v1/tables/broken/plans"), 409, corrupt);
  }

  private static void assertError(Reply reply, int status, String message) {
    assertThat(reply.status()).as(reply.body()).isEqualTo(status);
    assertThat(reply.json().path("code").asInt()).isEqualTo(status);
    assertThat(reply.json().path("message").asText()).isEqualTo(message);
  }
}
