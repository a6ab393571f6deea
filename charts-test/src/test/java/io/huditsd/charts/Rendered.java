package io.huditsd.charts;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MappingIterator;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.StreamSupport;

import static org.assertj.core.api.Assertions.assertThat;

/** The objects of a rendered chart, parsed from Helm's multi-document YAML. */
record Rendered(List<JsonNode> objects) {
  static Rendered of(String manifests) {
    try (MappingIterator<JsonNode> documents = HelmChart.YAML.readerFor(JsonNode.class).readValues(manifests)) {
      List<JsonNode> objects = new ArrayList<>();
      while (documents.hasNext()) {
        JsonNode document = documents.next();
        if (document != null && document.isObject() && !document.isEmpty()) {
          objects.add(document);
        }
      }
      return new Rendered(List.copyOf(objects));
    } catch (IOException e) {
      throw new UncheckedIOException("Helm rendered YAML that does not parse", e);
    }
  }

  List<JsonNode> all(String kind) {
    return objects.stream().filter(object -> object.path("kind").asText().equals(kind)).toList();
  }

  boolean has(String kind) {
    return !all(kind).isEmpty();
  }

  JsonNode one(String kind) {
    List<JsonNode> matches = all(kind);
    assertThat(matches).as("objects of kind %s", kind).hasSize(1);
    return matches.get(0);
  }

  JsonNode named(String kind, String name) {
    List<JsonNode> matches = all(kind).stream()
        .filter(object -> object.path("metadata").path("name").asText().equals(name)).toList();
    assertThat(matches).as("%s %s", kind, name).hasSize(1);
    return matches.get(0);
  }

  /** The daemon's tsd.yml as the chart's ConfigMap holds it. */
  String daemonYaml() {
    return named("ConfigMap", HelmChart.FULLNAME).path("data").path("tsd.yml").asText();
  }

  JsonNode daemonConfig() {
    try {
      return HelmChart.YAML.readTree(daemonYaml());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  JsonNode podSpec() {
    return one("Deployment").path("spec").path("template").path("spec");
  }

  /** The daemon's container in the Deployment. */
  JsonNode daemonContainer() {
    return container(podSpec().path("containers"), "hudi-tsd");
  }

  static JsonNode container(JsonNode containers, String name) {
    return StreamSupport.stream(containers.spliterator(), false)
        .filter(container -> container.path("name").asText().equals(name)).findFirst()
        .orElseThrow(() -> new AssertionError("no container " + name + " in " + containers));
  }

  static JsonNode byName(JsonNode list, String name) {
    return StreamSupport.stream(list.spliterator(), false)
        .filter(item -> item.path("name").asText().equals(name)).findFirst()
        .orElseThrow(() -> new AssertionError("no entry named " + name + " in " + list));
  }

  static boolean hasName(JsonNode list, String name) {
    return StreamSupport.stream(list.spliterator(), false).anyMatch(item -> item.path("name").asText().equals(name));
  }
}
