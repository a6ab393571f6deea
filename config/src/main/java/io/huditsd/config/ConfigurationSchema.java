package io.huditsd.config;

import com.fasterxml.jackson.databind.BeanDescription;
import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.introspect.BeanPropertyDefinition;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.dropwizard.core.Configuration;
import io.dropwizard.jackson.Jackson;
import io.dropwizard.util.DataSize;
import io.dropwizard.util.Duration;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collection;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * A JSON Schema (draft-07) of tsd.yml, generated from the configuration classes as the daemon's own object mapper
 * sees them (the properties Jackson binds, creator parameters included, enum values as they are written), so that
 * it cannot drift from what the daemon reads. Every object of the daemon's is closed (an unknown key is an error, as
 * at start); Dropwizard's own sections ({@code server}, {@code logging}, {@code metrics}, ...) are polymorphic and
 * left open to Dropwizard's checks. Scalars Jackson coerces (a number for a string, a string for a number) are
 * accepted as it accepts them. The checks of values across fields stay the daemon's ({@code bin/tsd check}).
 *
 * <p>{@code main(FILE)} writes it; docs/tsd.schema.json is its output, compared by TestConfigurationSchema.
 */
public final class ConfigurationSchema {
  static final String DURATION_PATTERN = "^\\s*[0-9]+\\s*[a-zA-Z]+\\s*$";
  private static final Set<String> DROPWIZARD_SECTIONS = Set.of("server", "logging", "metrics", "admin", "health");

  private final ObjectMapper mapper;

  public ConfigurationSchema(ObjectMapper mapper) {
    this.mapper = mapper;
  }

  public static void main(String[] args) throws IOException {
    Path file = Path.of(args.length > 0 ? args[0] : "docs/tsd.schema.json");
    Files.writeString(file, text());
  }

  /** The schema as docs/tsd.schema.json holds it: indented, keys sorted, a final newline. */
  public static String text() {
    try {
      return Jackson.newObjectMapper().enable(SerializationFeature.INDENT_OUTPUT)
          .enable(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS).writeValueAsString(
              new ConfigurationSchema(Jackson.newObjectMapper()).generate()) + "\n";
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  public ObjectNode generate() {
    ObjectNode schema = bean(mapper.constructType(TsdConfiguration.class));
    schema.put("$schema", "http://json-schema.org/draft-07/schema#");
    schema.put("title", "hudi-tsd tsd.yml");
    schema.put("description", "The daemon's configuration file (bin/tsd server tsd.yml). Generated from the "
        + "configuration classes by io.huditsd.config.ConfigurationSchema; the daemon checks values across fields "
        + "itself at start (bin/tsd check tsd.yml).");
    return schema;
  }

  private ObjectNode bean(JavaType type) {
    BeanDescription description = mapper.getDeserializationConfig().introspect(type);
    Map<String, ObjectNode> properties = new TreeMap<>();
    for (BeanPropertyDefinition property : description.findProperties()) {
      if (!property.couldDeserialize()) {
        continue;
      }
      String name = property.getName();
      boolean dropwizard = Configuration.class.isAssignableFrom(type.getRawClass())
          && DROPWIZARD_SECTIONS.contains(name);
      properties.put(name, dropwizard ? JsonNodeFactory.instance.objectNode().put("type", "object")
          : of(property.getPrimaryType()));
    }
    ObjectNode node = JsonNodeFactory.instance.objectNode();
    node.put("type", "object");
    node.put("additionalProperties", false);
    ObjectNode props = node.putObject("properties");
    properties.forEach(props::set);
    return node;
  }

  private ObjectNode of(JavaType type) {
    Class<?> raw = type.getRawClass();
    ObjectNode node = JsonNodeFactory.instance.objectNode();
    if (raw == Optional.class) {
      return of(type.containedType(0));
    }
    if (raw == String.class) {
      // Jackson reads a number or a boolean into a string field: Helm's --set gives them so.
      types(node, "string", "number", "boolean");
    } else if (raw == int.class || raw == Integer.class || raw == long.class || raw == Long.class) {
      types(node, "integer", "string");
    } else if (raw == double.class || raw == Double.class) {
      types(node, "number", "string");
    } else if (raw == boolean.class || raw == Boolean.class) {
      types(node, "boolean", "string");
    } else if (raw == Duration.class) {
      node.put("type", "string").put("pattern", DURATION_PATTERN)
          .put("description", "a duration: a number and a unit, e.g. 30s, 10m, 6h");
    } else if (raw == DataSize.class) {
      node.put("type", "string").put("pattern", DURATION_PATTERN)
          .put("description", "a size: a number and a unit, e.g. 512MiB, 2GiB");
    } else if (raw.isEnum()) {
      ArrayNode values = node.putArray("enum");
      for (Object constant : raw.getEnumConstants()) {
        values.add(mapper.valueToTree(constant));
      }
    } else if (type.isMapLikeType()) {
      node.put("type", "object");
      node.set("additionalProperties", of(type.getContentType()));
    } else if (type.isCollectionLikeType() || type.isArrayType()) {
      node.put("type", "array");
      node.set("items", of(type.getContentType()));
      if (Set.class.isAssignableFrom(raw)) {
        node.put("uniqueItems", true);
      }
    } else if (raw.getName().startsWith("io.huditsd.")) {
      return bean(type);
    } else if (Collection.class.isAssignableFrom(raw) || raw == Object.class) {
      return node;
    } else {
      throw new IllegalStateException("no schema for " + type + "; teach ConfigurationSchema this type");
    }
    return node;
  }

  private static void types(ObjectNode node, String... types) {
    ArrayNode list = node.putArray("type");
    for (String type : types) {
      list.add(type);
    }
  }
}
