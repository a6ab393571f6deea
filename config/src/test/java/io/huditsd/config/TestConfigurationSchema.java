package io.huditsd.config;

import com.fasterxml.jackson.databind.JsonNode;
import io.dropwizard.jackson.Jackson;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * docs/tsd.schema.json is what {@link ConfigurationSchema} generates from the configuration classes now; when a
 * class changes, the fresh schema is written to target/tsd.schema.json to copy over.
 */
class TestConfigurationSchema {
  private static final Path PUBLISHED = Path.of("../docs/tsd.schema.json");

  @Test
  void thePublishedSchemaIsTheGeneratedOne() throws Exception {
    String generated = ConfigurationSchema.text();
    Path fresh = Files.createDirectories(Path.of("target")).resolve("tsd.schema.json");
    Files.writeString(fresh, generated);
    assertThat(PUBLISHED).as("docs/tsd.schema.json; regenerate: cp config/%s docs/", fresh).exists();
    assertThat(Files.readString(PUBLISHED)).as("docs/tsd.schema.json against the classes; regenerate: cp config/%s "
        + "docs/", fresh).isEqualTo(generated);
  }

  @Test
  void theSchemaClosesTheDaemonsObjectsAndKnowsItsEnums() {
    JsonNode schema = new ConfigurationSchema(Jackson.newObjectMapper()).generate();
    assertThat(schema.path("additionalProperties").asBoolean(true)).isFalse();
    JsonNode properties = schema.path("properties");
    assertThat(properties.path("polling").path("additionalProperties").asBoolean(true)).isFalse();
    assertThat(properties.path("polling").path("properties").has("interval")).isTrue();
    assertThat(properties.path("tables").path("items").path("properties").has("path")).isTrue();
    assertThat(properties.path("services").path("items").path("enum").toString()).contains("\"compaction\"")
        .contains("\"clean\"");
    assertThat(properties.path("ha").path("properties").has("replicaId")).isTrue();
    assertThat(properties.path("server").path("type").asText()).isEqualTo("object");
    assertThat(properties.path("server").has("additionalProperties")).as("Dropwizard's sections are open").isFalse();
  }
}
