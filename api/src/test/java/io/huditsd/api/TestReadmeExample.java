package io.huditsd.api;

import io.dropwizard.configuration.ConfigurationFactory;
import io.dropwizard.jackson.Jackson;
import io.dropwizard.jersey.validation.Validators;
import io.huditsd.config.TsdConfiguration;
import io.huditsd.lock.IngestionFirstConflictResolutionStrategy;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Properties;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The README's first tsd.yml and the Spark writer's options beside it, as a newcomer copies them: the file passes
 * the server's own checks, and the writer names the daemon's lock and the conflict resolution that lets it win.
 */
class TestReadmeExample {
  private static final Path README = Path.of(System.getProperty("tsd.readme", "../README.md"));
  private static final String SECTION = "## A table beside a Spark writer";

  private final ConfigurationFactory<TsdConfiguration> factory = new CheckedConfigurationFactoryFactory()
      .create(TsdConfiguration.class, Validators.newValidator(), Jackson.newObjectMapper(), "dw");

  @Test
  void theFirstTsdYmlPassesTheServersChecks() throws Exception {
    TsdConfiguration configuration = daemon();

    assertThat(configuration.getTables()).hasSize(1);
    assertThat(configuration.getTables().get(0).id()).contains("orders");
    assertThat(configuration.getHoodie()).containsKey("hoodie.write.lock.provider");
  }

  @Test
  void theSparkWriterUsesTheDaemonsLockAndLetsTheDaemonLoseConflicts() throws Exception {
    TsdConfiguration daemon = daemon();
    Properties writer = new Properties();
    writer.load(new StringReader(block("properties")));

    for (Map.Entry<String, String> lockKey : daemon.getHoodie().entrySet()) {
      assertThat(writer.getProperty(lockKey.getKey())).as(lockKey.getKey()).isEqualTo(lockKey.getValue());
    }
    assertThat(writer.getProperty("hoodie.write.concurrency.mode")).isEqualTo("OPTIMISTIC_CONCURRENCY_CONTROL");
    assertThat(writer.getProperty("hoodie.cleaner.policy.failed.writes")).isEqualTo("LAZY");
    assertThat(writer.getProperty("hoodie.write.lock.conflict.resolution.strategy"))
        .isEqualTo(IngestionFirstConflictResolutionStrategy.class.getName());
  }

  private TsdConfiguration daemon() throws Exception {
    String yaml = block("yaml");
    return factory.build(path -> new ByteArrayInputStream(yaml.getBytes(StandardCharsets.UTF_8)), "tsd.yml");
  }

  /** The first fenced block of the given language in the README's section on a first table. */
  private static String block(String language) throws Exception {
    String readme = Files.readString(README);
    int section = readme.indexOf(SECTION);
    assertThat(section).as("%s in %s", SECTION, README).isNotNegative();
    Matcher block = Pattern.compile("```" + language + "\n(.*?)```", Pattern.DOTALL).matcher(readme);
    assertThat(block.find(section)).as("a %s block under %s", language, SECTION).isTrue();
    return block.group(1);
  }
}
