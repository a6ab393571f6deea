package io.huditsd.api;

import io.dropwizard.configuration.ConfigurationFactory;
import io.dropwizard.jackson.Jackson;
import io.dropwizard.jersey.validation.Validators;
import io.huditsd.api.demo.SampleRow;
import io.huditsd.api.demo.SampleTable;
import io.huditsd.config.HeartbeatSettings;
import io.huditsd.config.TsdConfiguration;
import io.huditsd.executors.HudiTables;
import io.huditsd.scheduler.TableProbe;
import org.apache.hadoop.conf.Configuration;
import org.apache.hudi.common.model.HoodieTableType;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** What {@code server} refuses of its explicit tables before it starts, against real paths and a real table. */
class TestExplicitTableCheck {
  @TempDir
  static Path directory;

  private static String table;

  private final ConfigurationFactory<TsdConfiguration> factory = new CheckedConfigurationFactoryFactory()
      .create(TsdConfiguration.class, Validators.newValidator(), Jackson.newObjectMapper(), "dw");
  private final Configuration hadoop = HudiTables.defaultHadoopConfiguration();
  private final ExplicitTableCheck check = new ExplicitTableCheck(new TableProbe(hadoop),
      new HudiTables(hadoop, new HeartbeatSettings(1000, 1)));

  @BeforeAll
  static void writeTable() throws Exception {
    table = directory.resolve("orders").toString();
    try (SampleTable sample = SampleTable.open(table, "orders", HoodieTableType.MERGE_ON_READ, 9, Map.of())) {
      sample.insert(List.of(SampleRow.of("k1", "p0", 1, "first", 1)));
    }
  }

  private List<String> errorsOf(String tables) throws Exception {
    String yaml = "tables:\n" + tables;
    return check.check(factory.build(path -> new ByteArrayInputStream(yaml.getBytes(StandardCharsets.UTF_8)),
        "tsd.yml"));
  }

  @Test
  void anExistingTableWithValidKeysPasses() throws Exception {
    assertThat(errorsOf("  - path: " + table + "\n")).isEmpty();
  }

  @Test
  void aMissingPathAFileAndAPlainDirectoryAreRefusedNamingThePath() throws Exception {
    Path file = Files.writeString(directory.resolve("notes.txt"), "not a table");
    Path plain = Files.createDirectories(directory.resolve("plain").resolve("2026-11-01")).getParent();

    assertThat(errorsOf("""
          - path: %s
          - path: %s
          - path: %s
          - path: %s
        """.formatted(table, directory.resolve("missing"), file, plain))).containsExactly(
        "tables[1].path: file:" + directory.resolve("missing") + ": path does not exist; " + ExplicitTableCheck.CREATED_LATER,
        "tables[2].path: file:" + file + ": is a file, not a Hudi table directory; " + ExplicitTableCheck.CREATED_LATER,
        "tables[3].path: file:" + plain + ": not a Hudi table (no .hoodie/hoodie.properties); "
            + ExplicitTableCheck.CREATED_LATER);
  }

  @Test
  void keysHudiRefusesWhenBuildingTheWriteConfigFailTheTableAtStart() throws Exception {
    assertThat(errorsOf("""
          - path: %s
            hoodie:
              hoodie.keep.max.commits: "5"
              hoodie.keep.min.commits: "10"
        """.formatted(table))).containsExactly("tables[0].hoodie: Hudi refuses the write config of file:" + table
        + ": Increase hoodie.keep.max.commits=5 to be greater than hoodie.keep.min.commits=10.");
  }
}
