package io.huditsd.charts;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The chart README's values table against values.yaml: every top-level value is in the table, and every value the
 * table names exists (a name in a row is a full path, or a path under the row's first one, as {@code lockBasePath}
 * after {@code zookeeper.connect}).
 */
class TestChartReadme {
  private static final Pattern CODE = Pattern.compile("`([^`]+)`");

  @Test
  void theValuesTableNamesEveryValueAndOnlyValuesThatExist() throws Exception {
    JsonNode values = HelmChart.YAML.readTree(HelmChart.directory().resolve("values.yaml").toFile());
    String readme = Files.readString(HelmChart.directory().resolve("README.md"));
    String section = readme.substring(readme.indexOf("## Values"));
    section = section.substring(0, section.indexOf("\n## ", 3));
    List<String> named = new ArrayList<>();
    List<String> missing = new ArrayList<>();
    for (String line : section.lines().filter(line -> line.startsWith("| `")).toList()) {
      String cell = line.substring(1, line.indexOf(" |", 1));
      // Names after the first are relative to its parent, or to it when it is `group.*`.
      String parent = null;
      Matcher code = CODE.matcher(cell);
      while (code.find()) {
        String path = code.group(1).replaceAll("\\.\\*$", "");
        if (parent == null) {
          parent = code.group(1).endsWith(".*") ? path + "." : path.substring(0, path.lastIndexOf('.') + 1);
        } else if (!values.has(path.split("\\.")[0])) {
          path = parent + path;
        }
        named.add(path);
        if (resolve(values, path) == null) {
          missing.add(path + " (in: " + cell.strip() + ")");
        }
      }
    }
    assertThat(missing).as("values the README's table names and values.yaml does not have").isEmpty();
    List<String> undocumented = new ArrayList<>();
    for (Iterator<String> keys = values.fieldNames(); keys.hasNext(); ) {
      String key = keys.next();
      if (named.stream().noneMatch(path -> path.equals(key) || path.startsWith(key + "."))) {
        undocumented.add(key);
      }
    }
    assertThat(undocumented).as("values.yaml's values missing from the README's table").isEmpty();
  }

  private static JsonNode resolve(JsonNode values, String path) {
    JsonNode node = values;
    for (String segment : path.split("\\.")) {
      node = node == null ? null : node.get(segment);
    }
    return node;
  }
}
