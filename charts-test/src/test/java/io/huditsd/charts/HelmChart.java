package io.huditsd.charts;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import com.marcnuri.helm.Helm;
import com.marcnuri.helm.LintResult;
import com.marcnuri.helm.TemplateCommand;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * The chart in charts/hudi-tsd, linted and rendered by Helm's own Go library (helm-java), as {@code helm lint} and
 * {@code helm template --namespace lake tsd charts/hudi-tsd -f VALUES --set KEY=VALUE} would.
 */
final class HelmChart {
  static final String RELEASE = "tsd";
  static final String NAMESPACE = "lake";
  static final String FULLNAME = "tsd-hudi-tsd";
  static final YAMLMapper YAML = new YAMLMapper();

  private HelmChart() {
  }

  static Path directory() {
    return Path.of(System.getProperty("tsd.chart", "../charts/hudi-tsd")).toAbsolutePath().normalize();
  }

  static Path example(String name) {
    return directory().resolve("examples").resolve(name);
  }

  static Rendered render(Path... valuesFiles) {
    return render(List.of(valuesFiles), Map.of());
  }

  static Rendered render(List<Path> valuesFiles, Map<String, String> sets) {
    return Rendered.of(template(directory(), valuesFiles, sets).call());
  }

  /** The message Helm fails with; fails itself when Helm renders the chart. */
  static String renderFailure(List<Path> valuesFiles, Map<String, String> sets) {
    try {
      template(directory(), valuesFiles, sets).call();
    } catch (RuntimeException e) {
      return e.getMessage();
    }
    throw new AssertionError("helm template succeeded with " + valuesFiles + " " + sets);
  }

  private static TemplateCommand template(Path chart, List<Path> valuesFiles, Map<String, String> sets) {
    TemplateCommand command = new Helm(chart).template().withName(RELEASE).withNamespace(NAMESPACE);
    valuesFiles.forEach(command::withValuesFile);
    sets.forEach(command::set);
    return command;
  }

  /**
   * {@code helm lint --strict} with {@code valuesFile} over the chart's defaults (none: the defaults alone).
   * helm-java's lint takes no values files, so the chart is linted as a copy whose values.yaml is the defaults
   * merged with the file, as Helm merges them.
   */
  static LintResult lint(Path valuesFile, Path workDirectory) throws IOException {
    Path copy = copy(directory(), workDirectory.resolve("hudi-tsd"));
    if (valuesFile != null) {
      JsonNode values = YAML.readTree(copy.resolve("values.yaml").toFile());
      merge((ObjectNode) values, YAML.readTree(valuesFile.toFile()));
      YAML.writeValue(copy.resolve("values.yaml").toFile(), values);
    }
    return new Helm(copy).lint().strict().call();
  }

  /**
   * The example ingestion chart (examples/sidecar), which has hudi-tsd as a file:// dependency, rendered after
   * {@code helm dependency update} in a copy (the update writes charts/ and Chart.lock).
   */
  static Rendered renderSidecarExample(Path workDirectory) throws IOException {
    Path copy = copy(directory(), workDirectory.resolve("hudi-tsd"));
    return Rendered.of(new Helm(copy.resolve("examples/sidecar")).template().withName("orders")
        .withNamespace(NAMESPACE).dependencyUpdate().call());
  }

  /**
   * The chart's test hooks as plain objects: Helm's template output, as helm-java returns it, is the release
   * manifest, which leaves hooks out. Rendered from a copy whose {@code templates/tests} carry no hook annotation.
   */
  static Rendered renderTestHooks(Path workDirectory, Path valuesFile, Map<String, String> sets) throws IOException {
    Path copy = copy(directory(), workDirectory.resolve("hudi-tsd"));
    try (Stream<Path> tests = Files.list(copy.resolve("templates/tests"))) {
      for (Path test : tests.toList()) {
        Files.writeString(test, Files.readString(test).replaceAll("(?m)^\\s*helm\\.sh/hook.*$\\n", ""));
      }
    }
    return Rendered.of(template(copy, List.of(valuesFile), sets).call());
  }

  private static void merge(ObjectNode target, JsonNode overlay) {
    for (Iterator<Map.Entry<String, JsonNode>> fields = overlay.fields(); fields.hasNext(); ) {
      Map.Entry<String, JsonNode> field = fields.next();
      JsonNode existing = target.get(field.getKey());
      if (field.getValue().isNull()) {
        target.remove(field.getKey());
      } else if (existing != null && existing.isObject() && field.getValue().isObject()) {
        merge((ObjectNode) existing, field.getValue());
      } else {
        target.set(field.getKey(), field.getValue());
      }
    }
  }

  private static Path copy(Path source, Path target) throws IOException {
    try (Stream<Path> paths = Files.walk(source)) {
      paths.forEach(path -> {
        try {
          Path destination = target.resolve(source.relativize(path).toString());
          if (Files.isDirectory(path)) {
            Files.createDirectories(destination);
          } else {
            Files.copy(path, destination);
          }
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      });
    }
    return target;
  }
}
