package io.huditsd.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.huditsd.api.demo.SampleRow;
import io.huditsd.api.demo.SampleTable;
import org.apache.hudi.common.model.HoodieTableType;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code once --config tsd.yml} in a JVM of its own, as cron runs it: the server's file says which tables (named and
 * discovered) and with what policies, {@code --json} prints one summary object, and each outcome exits with its own
 * code: serviced 0, nothing to do 0 (3 with {@code --detailed-exit-code}), a table failed 1, bad input 2.
 */
class TestOnceCommand {
  private static final ObjectMapper JSON = new ObjectMapper();

  private static Path work;

  /** A MOR table with a compaction due (an insert, then an update into a log file), written once for every test. */
  private static Path morTable;

  @BeforeAll
  static void directory() throws IOException {
    work = Files.createTempDirectory("tsd-once");
    morTable = work.resolve("template/mor");
    try (SampleTable table = SampleTable.open(morTable.toString(), "mor", HoodieTableType.MERGE_ON_READ, 9,
        Map.of())) {
      List<SampleRow> rows = new ArrayList<>();
      for (int i = 0; i < 10; i++) {
        rows.add(SampleRow.of("k" + i, "p0", 1, "first", i));
      }
      table.insert(rows);
      table.upsert(rows.subList(0, 3).stream().map(row -> SampleRow.of(row.id(), "p0", 2, "second", 1)).toList());
    }
  }

  /**
   * A copy of the MOR table at {@code path}, as {@code cp -a}: each test services tables of its own. Table ids come
   * from the path (or the config), not from the name in hoodie.properties, which stays the template's.
   */
  private static void writeMorTable(Path path) throws IOException {
    try (Stream<Path> files = Files.walk(morTable)) {
      for (Path file : (Iterable<Path>) files::iterator) {
        Path target = path.resolve(morTable.relativize(file).toString());
        if (Files.isDirectory(file)) {
          Files.createDirectories(target);
        } else {
          Files.copy(file, target, StandardCopyOption.COPY_ATTRIBUTES);
        }
      }
    }
  }

  /** The server's sections, a named table and discovery roots, compaction due after one delta commit. */
  private static Path config(String name, Path named, Path... roots) throws IOException {
    return Files.writeString(work.resolve(name), """
        server:
          applicationConnectors: [{type: http, port: 0}]
        logging:
          level: WARN
        services: [compaction]
        hoodie:
          hoodie.compact.inline.max.delta.commits: "1"
        workers:
          count: 1
        tables:
          - path: %s
            id: %s
        discovery:
          roots: [%s]
        """.formatted(named, named.getFileName(), String.join(", ", Stream.of(roots).map(Path::toString).toList())));
  }

  @Test
  void aConfiguredPassServicesNamedAndDiscoveredTablesThenHasNothingToDo() throws Exception {
    Path orders = work.resolve("serviced/orders");
    writeMorTable(orders);
    writeMorTable(work.resolve("serviced-lake/payments"));
    Path config = config("tsd.yml", orders, work.resolve("serviced-lake"));
    Finished first = once("--config", config.toString(), "--json");
    assertThat(first.exitCode()).as(first.output()).isZero();
    JsonNode summary = JSON.readTree(first.stdout().strip());
    assertThat(summary.path("outcome").asText()).isEqualTo("serviced");
    assertThat(summary.path("exitCode").asInt()).isZero();
    assertThat(summary.path("tables").asInt()).isEqualTo(2);
    List<String> compacted = new ArrayList<>();
    for (JsonNode run : summary.path("runs")) {
      assertThat(run.path("service").asText()).isEqualTo("compaction");
      assertThat(run.path("status").asText()).as(run.toString()).isEqualTo("succeeded");
      assertThat(run.path("instant").asText()).isNotEmpty();
      compacted.add(run.path("table").asText());
    }
    assertThat(compacted).hasSize(2).contains("orders").anyMatch(table -> table.startsWith("payments-"));
    assertThat(summary.path("problems")).isEmpty();

    Finished second = once("--config", config.toString(), "--detailed-exit-code");
    assertThat(second.exitCode()).as(second.output()).isEqualTo(3);
    assertThat(second.stdout()).contains("Nothing to do on 2 table(s)").doesNotContain("status=");
  }

  /**
   * A copy-on-write table just loaded with 12 small files (3 partitions of 4), clustering forced: every file group
   * was written in the last minutes, so the hot-data filter leaves all of them out. The pass says so, in the text
   * and the JSON, naming the keys that change it, instead of only "Nothing to do".
   */
  @Test
  void clusteringOfATableJustLoadedSaysItLeftEveryHotFileGroupOut() throws Exception {
    Path events = work.resolve("hot/events");
    try (SampleTable table = SampleTable.open(events.toString(), "events", HoodieTableType.COPY_ON_WRITE, 9,
        Map.of("hoodie.parquet.small.file.limit", "0"))) {
      for (int commit = 0; commit < 4; commit++) {
        List<SampleRow> rows = new ArrayList<>();
        for (int partition = 0; partition < 3; partition++) {
          rows.add(SampleRow.of("k" + commit + "-" + partition, "p" + partition, 1, "first", commit));
        }
        table.insert(rows);
      }
    }
    String[] flags = {"--table", events.toString(), "--services", "clustering", "--hoodie-conf",
        "hoodie.clustering.inline.max.commits=1"};

    Finished json = once(Stream.concat(Stream.of(flags), Stream.of("--json")).toArray(String[]::new));
    assertThat(json.exitCode()).as(json.output()).isZero();
    JsonNode summary = JSON.readTree(json.stdout().strip());
    assertThat(summary.path("outcome").asText()).isEqualTo("nothing-to-do");
    assertThat(summary.path("decisions")).as(summary.toString()).hasSize(1);
    JsonNode clustering = summary.path("decisions").get(0);
    assertThat(clustering.path("table").asText()).startsWith("events-");
    assertThat(clustering.path("service").asText()).isEqualTo("clustering");
    assertThat(clustering.path("decision").asText()).isEqualTo("hot-file-groups");
    assertThat(clustering.path("message").asText()).startsWith("hot file groups left out: 12 of 12 small ones")
        .contains("hoodie.clustering.plan.strategy.hot.minutes");

    Finished text = once(flags);
    assertThat(text.exitCode()).as(text.output()).isZero();
    assertThat(text.stdout()).containsPattern("nothing scheduled table=events-\\S+ service=clustering"
        + " decision=hot-file-groups: hot file groups left out: 12 of 12").contains("Nothing to do on 1 table(s)");
  }

  @Test
  void aTableThatCannotBeReadFailsAloneAndTheOthersAreServiced() throws Exception {
    Path shipments = work.resolve("failing/shipments");
    writeMorTable(shipments);
    Path broken = Files.createDirectories(work.resolve("failing-lake/refunds/.hoodie"));
    Files.writeString(broken.resolve("hoodie.properties"), "hoodie.table.name=refunds\nhoodie.table.version=2\n");
    writeMorTable(work.resolve("failing-lake/invoices"));
    Finished finished = once("--config", config("failing.yml", shipments, work.resolve("failing-lake")).toString());
    assertThat(finished.exitCode()).as(finished.output()).isEqualTo(1);
    assertThat(finished.stdout()).contains("table=shipments service=compaction")
        .containsPattern("table=invoices-\\S+ service=compaction instant=\\S+ "
        + "status=succeeded");
    assertThat(finished.stderr()).contains("hudi-tsd once: ").contains(work.resolve("failing-lake/refunds").toString());
  }

  @Test
  void badInputExitsTwoNamingWhatIsWrong() throws Exception {
    Path typo = Files.writeString(work.resolve("typo.yml"), """
        tables:
          - path: %s
        hoodie:
          hoodie.compact.inline.max.delta.comits: "1"
        """.formatted(work));
    Finished misspelt = once("--config", typo.toString(), "--json");
    assertThat(misspelt.exitCode()).as(misspelt.output()).isEqualTo(2);
    assertThat(misspelt.stderr()).contains("hoodie.compact.inline.max.delta.comits")
        .contains("did you mean hoodie.compact.inline.max.delta.commits?");
    JsonNode summary = JSON.readTree(misspelt.stdout().strip());
    assertThat(summary.path("outcome").asText()).isEqualTo("bad-input");
    assertThat(summary.path("exitCode").asInt()).isEqualTo(2);

    Finished both = once("--config", typo.toString(), "--table", work.toString());
    assertThat(both.exitCode()).as(both.output()).isEqualTo(2);
    assertThat(both.stderr()).contains("--table cannot be given with it");
    Finished neither = once();
    assertThat(neither.exitCode()).as(neither.output()).isEqualTo(2);
    assertThat(neither.stderr()).contains("give --config FILE (the server's tsd.yml) or at least one --table URI");
    assertThat(neither.output()).doesNotContain("--add-opens");
  }

  /** A JVM started without bin/tsd's --add-opens says so, naming the packages, and still runs. */
  @Test
  void aJvmWithoutTheLaunchersOpensSaysWhichPackagesAreClosed() throws Exception {
    Finished closed = once(List.of(), "--table", work.resolve("missing").toString());

    assertThat(closed.exitCode()).as(closed.output()).isEqualTo(2);
    assertThat(closed.output()).contains("this JVM was started without --add-opens for java.base/java.lang, "
        + "java.base/java.util, java.base/java.util.concurrent, java.base/java.util.concurrent.atomic, "
        + "java.base/java.nio, java.base/java.net (bin/tsd passes them)");
  }

  private record Finished(int exitCode, String stdout, String stderr) {
    String output() {
      return "stdout:\n" + stdout + "\nstderr:\n" + stderr;
    }
  }

  /** {@code bin/tsd once ARGS} as the launcher runs it, on this test's class path. */
  private static Finished once(String... arguments) throws Exception {
    return once(JvmOpens.PACKAGES.stream().map(name -> "--add-opens=java.base/" + name + "=ALL-UNNAMED").toList(),
        arguments);
  }

  private static Finished once(List<String> opens, String... arguments) throws Exception {
    List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-Xmx1g"));
    command.addAll(opens);
    // Logback's status lines about this test class path (two logback-test.xml), which bin/tsd does not have.
    command.addAll(List.of("-Dlogback.statusListenerClass=ch.qos.logback.core.status.NopStatusListener",
        "-cp", System.getProperty("java.class.path"), TsdApplication.class.getName(), "once"));
    command.addAll(List.of(arguments));
    String name = "once-" + System.nanoTime();
    File stdout = work.resolve(name + ".out").toFile();
    File stderr = work.resolve(name + ".err").toFile();
    Process process = new ProcessBuilder(command).redirectOutput(stdout).redirectError(stderr).start();
    if (!process.waitFor(5, TimeUnit.MINUTES)) {
      process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      throw new AssertionError("once still running after 5 minutes: " + String.join(" ", command));
    }
    return new Finished(process.exitValue(), Files.readString(stdout.toPath()), Files.readString(stderr.toPath()));
  }
}
