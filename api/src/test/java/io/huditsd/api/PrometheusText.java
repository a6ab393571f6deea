package io.huditsd.api;

import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A strict parser of the Prometheus text exposition format 0.0.4: every line must be a HELP, TYPE or comment line
 * or a well-formed sample; a family's TYPE comes before its samples and only once; a family's samples are
 * contiguous; label values use only the allowed escapes. Any violation throws with the line number. (A copy of the
 * api module's test parser, which is not published as a test jar, with {@link #types} added.)
 */
public final class PrometheusText {
  private static final Pattern NAME = Pattern.compile("[a-zA-Z_:][a-zA-Z0-9_:]*");
  private static final Pattern LABEL_NAME = Pattern.compile("[a-zA-Z_][a-zA-Z0-9_]*");
  private static final Set<String> TYPES = Set.of("counter", "gauge", "histogram", "summary", "untyped");

  private PrometheusText() {
  }

  /** Samples by series ({@code name{a="x",b="y"}} with labels in their given order). */
  public static Map<String, Double> parse(String text) {
    Map<String, Double> samples = new LinkedHashMap<>();
    Map<String, String> types = new LinkedHashMap<>();
    Set<String> closedFamilies = new HashSet<>();
    String currentFamily = null;
    String[] lines = text.split("\n", -1);
    for (int index = 0; index < lines.length; index++) {
      String line = lines[index];
      int number = index + 1;
      if (line.isEmpty()) {
        if (index != lines.length - 1) {
          throw new IllegalArgumentException("line " + number + ": empty line inside the exposition");
        }
        continue;
      }
      if (line.startsWith("#")) {
        String[] parts = line.split(" ", 4);
        if (parts.length >= 3 && (parts[1].equals("HELP") || parts[1].equals("TYPE"))) {
          requireMatch(NAME, parts[2], number, "metric name");
          if (parts[1].equals("TYPE")) {
            if (parts.length != 4 || !TYPES.contains(parts[3])) {
              throw new IllegalArgumentException("line " + number + ": bad TYPE line: " + line);
            }
            if (types.put(parts[2], parts[3]) != null) {
              throw new IllegalArgumentException("line " + number + ": second TYPE for " + parts[2]);
            }
          }
        }
        continue;
      }
      Sample sample = sample(line, number);
      String family = familyOf(sample.name(), types);
      if (!family.equals(currentFamily)) {
        if (closedFamilies.contains(family)) {
          throw new IllegalArgumentException("line " + number + ": samples of " + family + " are not contiguous");
        }
        if (currentFamily != null) {
          closedFamilies.add(currentFamily);
        }
        currentFamily = family;
      }
      if (samples.put(sample.series(), sample.value()) != null) {
        throw new IllegalArgumentException("line " + number + ": duplicate series " + sample.series());
      }
    }
    return samples;
  }

  /** Metric families declared by TYPE lines, with their types: families without samples are declared too. */
  public static Map<String, String> types(String text) {
    Map<String, String> types = new LinkedHashMap<>();
    for (String line : text.split("\n")) {
      String[] parts = line.split(" ", 4);
      if (parts.length == 4 && parts[0].equals("#") && parts[1].equals("TYPE")) {
        types.put(parts[2], parts[3]);
      }
    }
    return types;
  }

  private record Sample(String name, String series, double value) {
  }

  private static Sample sample(String line, int number) {
    Matcher name = NAME.matcher(line);
    if (!name.lookingAt()) {
      throw new IllegalArgumentException("line " + number + ": no metric name: " + line);
    }
    int position = name.end();
    StringBuilder series = new StringBuilder(name.group());
    if (position < line.length() && line.charAt(position) == '{') {
      position++;
      series.append('{');
      boolean first = true;
      while (true) {
        if (position >= line.length()) {
          throw new IllegalArgumentException("line " + number + ": unterminated labels: " + line);
        }
        if (line.charAt(position) == '}') {
          position++;
          break;
        }
        Matcher label = LABEL_NAME.matcher(line).region(position, line.length());
        if (!label.lookingAt()) {
          throw new IllegalArgumentException("line " + number + ": bad label name at " + position + ": " + line);
        }
        position = label.end();
        if (!line.startsWith("=\"", position)) {
          throw new IllegalArgumentException("line " + number + ": expected =\" after label: " + line);
        }
        position += 2;
        StringBuilder value = new StringBuilder();
        while (true) {
          if (position >= line.length()) {
            throw new IllegalArgumentException("line " + number + ": unterminated label value: " + line);
          }
          char c = line.charAt(position++);
          if (c == '"') {
            break;
          }
          if (c == '\\') {
            char escaped = position < line.length() ? line.charAt(position++) : ' ';
            switch (escaped) {
              case '\\' -> value.append('\\');
              case '"' -> value.append('"');
              case 'n' -> value.append('\n');
              default -> throw new IllegalArgumentException("line " + number + ": bad escape \\" + escaped);
            }
          } else {
            value.append(c);
          }
        }
        series.append(first ? "" : ",").append(label.group()).append("=\"").append(value).append('"');
        first = false;
        if (position < line.length() && line.charAt(position) == ',') {
          position++;
        }
      }
      series.append('}');
    }
    if (position >= line.length() || line.charAt(position) != ' ') {
      throw new IllegalArgumentException("line " + number + ": expected a space before the value: " + line);
    }
    String[] rest = line.substring(position + 1).split(" ");
    if (rest.length < 1 || rest.length > 2) {
      throw new IllegalArgumentException("line " + number + ": expected value [timestamp]: " + line);
    }
    double value = switch (rest[0]) {
      case "+Inf" -> Double.POSITIVE_INFINITY;
      case "-Inf" -> Double.NEGATIVE_INFINITY;
      case "NaN" -> Double.NaN;
      default -> {
        try {
          yield Double.parseDouble(rest[0]);
        } catch (NumberFormatException e) {
          throw new IllegalArgumentException("line " + number + ": bad value '" + rest[0] + "'");
        }
      }
    };
    if (rest.length == 2) {
      try {
        Long.parseLong(rest[1]);
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException("line " + number + ": bad timestamp '" + rest[1] + "'");
      }
    }
    return new Sample(name.group(), series.toString(), value);
  }

  private static String familyOf(String sampleName, Map<String, String> types) {
    if (types.containsKey(sampleName)) {
      return sampleName;
    }
    for (String suffix : new String[] {"_bucket", "_count", "_sum", "_created", "_total", "_info"}) {
      if (sampleName.endsWith(suffix)) {
        String base = sampleName.substring(0, sampleName.length() - suffix.length());
        if (types.containsKey(base)) {
          return base;
        }
      }
    }
    return sampleName;
  }

  private static void requireMatch(Pattern pattern, String text, int number, String what) {
    if (!pattern.matcher(text).matches()) {
      throw new IllegalArgumentException("line " + number + ": bad " + what + " '" + text + "'");
    }
  }
}
