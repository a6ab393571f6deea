package io.huditsd.charts;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * The vector selectors of a PromQL expression ({@code metric{label="value",...}}), so that tests can check every
 * metric name and label an alert or a dashboard panel reads against a real scrape of the daemon. Whether the
 * expression is valid PromQL is promtool's job ({@link TestAlertRules}); this only tells selectors apart from
 * function and aggregation names, keywords, grouping label lists, strings, numbers and ranges.
 */
final class PromQl {
  record LabelMatcher(String label, String operator, String value) {
  }

  /** A vector selector: {@code metric{label="value",...}}; the metric name may be empty ({@code {__name__="m"}}). */
  record Selector(String metric, List<LabelMatcher> matchers) {
  }

  /** Keywords followed by a parenthesised list of label names, not of expressions. */
  private static final Set<String> LABEL_LISTS = Set.of("by", "without", "on", "ignoring", "group_left",
      "group_right");
  private static final Set<String> KEYWORDS = Set.of("and", "or", "unless", "bool", "offset", "atan2");

  private final String text;
  private int position;

  private PromQl(String text) {
    this.text = text;
  }

  /** Every vector selector of {@code expression}, in order; throws on an unterminated selector, string or list. */
  static List<Selector> selectors(String expression) {
    return new PromQl(Objects.requireNonNull(expression, "expression is null")).read();
  }

  private List<Selector> read() {
    List<Selector> selectors = new ArrayList<>();
    while (skipSpace()) {
      char c = text.charAt(position);
      if (isIdentifierStart(c)) {
        String name = identifier();
        skipSpace();
        boolean call = position < text.length() && text.charAt(position) == '(';
        if (!call && !LABEL_LISTS.contains(name) && (startsWord("by") || startsWord("without"))) {
          // An aggregation with its grouping first: sum by (table) (...).
          continue;
        }
        if (LABEL_LISTS.contains(name)) {
          if (call) {
            skipPast(')');
          }
        } else if (!call && !KEYWORDS.contains(name)) {
          selectors.add(new Selector(name, matchers()));
        }
      } else if (c == '{') {
        selectors.add(new Selector("", matchers()));
      } else if (c == '"' || c == '\'' || c == '`') {
        string();
      } else if (c == '[') {
        skipPast(']');
      } else if (Character.isDigit(c) || c == '.') {
        // A number or a duration (5m), which may run into letters: not a metric name.
        while (position < text.length() && (Character.isLetterOrDigit(text.charAt(position))
            || text.charAt(position) == '.')) {
          position++;
        }
      } else {
        position++;
      }
    }
    return List.copyOf(selectors);
  }

  /** The matchers in braces at the position, if any. */
  private List<LabelMatcher> matchers() {
    skipSpace();
    if (position >= text.length() || text.charAt(position) != '{') {
      return List.of();
    }
    position++;
    List<LabelMatcher> matchers = new ArrayList<>();
    while (true) {
      skipSpace();
      if (position < text.length() && text.charAt(position) == '}') {
        position++;
        return List.copyOf(matchers);
      }
      String label = identifier();
      skipSpace();
      int start = position;
      while (position < text.length() && "=!~".indexOf(text.charAt(position)) >= 0) {
        position++;
      }
      String operator = text.substring(start, position);
      skipSpace();
      matchers.add(new LabelMatcher(label, operator, string()));
      skipSpace();
      if (position < text.length() && text.charAt(position) == ',') {
        position++;
      }
    }
  }

  private String identifier() {
    int start = position;
    while (position < text.length() && (isIdentifierStart(text.charAt(position))
        || Character.isDigit(text.charAt(position)))) {
      position++;
    }
    if (start == position) {
      throw error("expected a name");
    }
    return text.substring(start, position);
  }

  /** A quoted string at the position, unescaped as far as a label value needs. */
  private String string() {
    if (position >= text.length() || "\"'`".indexOf(text.charAt(position)) < 0) {
      throw error("expected a quoted string");
    }
    char quote = text.charAt(position++);
    StringBuilder value = new StringBuilder();
    while (position < text.length() && text.charAt(position) != quote) {
      char c = text.charAt(position++);
      if (c == '\\' && quote != '`' && position < text.length()) {
        c = text.charAt(position++);
      }
      value.append(c);
    }
    if (position >= text.length()) {
      throw error("unterminated string");
    }
    position++;
    return value.toString();
  }

  private void skipPast(char end) {
    int found = text.indexOf(end, position);
    if (found < 0) {
      throw error("expected " + end);
    }
    position = found + 1;
  }

  /** Skips whitespace; whether anything is left. */
  private boolean skipSpace() {
    while (position < text.length() && Character.isWhitespace(text.charAt(position))) {
      position++;
    }
    return position < text.length();
  }

  /** Whether the word {@code word} starts at the position. */
  private boolean startsWord(String word) {
    int end = position + word.length();
    return text.startsWith(word, position)
        && (end == text.length() || !(isIdentifierStart(text.charAt(end)) || Character.isDigit(text.charAt(end))));
  }

  private static boolean isIdentifierStart(char c) {
    return Character.isLetter(c) || c == '_' || c == ':';
  }

  private IllegalArgumentException error(String message) {
    return new IllegalArgumentException(message + " at " + position + ": " + text);
  }
}
