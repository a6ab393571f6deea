package io.huditsd.charts;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static java.util.Map.entry;

/**
 * A PromQL parser for checking the chart's alert and dashboard expressions in the Maven build, where no Java PromQL
 * parser is available (none is published on Maven Central). It follows Prometheus' grammar for what such
 * expressions use: binary operators with their precedence and associativity, bool, on/ignoring and
 * group_left/group_right; aggregations with by/without before or after their operand and a parameter where one is
 * needed; function calls checked against a table of Prometheus' functions, their arity and argument types; vector
 * selectors with =, !=, =~ and !~ matchers; ranges, subqueries, offset and @. Types are checked as Prometheus does:
 * a range only after a selector, range-vector arguments where a function needs them, bool between scalars, vectors
 * on both sides of and/or/unless, a vector or scalar as the result. Newer additions (native-histogram functions,
 * duration arithmetic) are not covered. Violations throw with the position. The selectors it read are returned, so
 * that tests can check every metric name and label against a real daemon's output.
 */
final class PromQl {
  enum Type { SCALAR, VECTOR, MATRIX, STRING }

  record LabelMatcher(String label, String operator, String value) {
  }

  /** A vector selector: {@code metric{label="value",...}}; the metric name may be empty. */
  record Selector(String metric, List<LabelMatcher> matchers) {
  }

  record Parsed(Type type, List<Selector> selectors) {
  }

  private record Function(List<Type> arguments, int optional, boolean variadic, Type returns) {
  }

  private static final Map<String, Function> FUNCTIONS = functions();
  private static final Set<String> AGGREGATIONS = Set.of("sum", "min", "max", "avg", "group", "stddev", "stdvar",
      "count", "count_values", "bottomk", "topk", "quantile", "limitk", "limit_ratio");
  private static final Set<String> PARAMETER_AGGREGATIONS = Set.of("count_values", "bottomk", "topk", "quantile",
      "limitk", "limit_ratio");
  private static final Set<String> COMPARISONS = Set.of("==", "!=", ">", "<", ">=", "<=");
  private static final Set<String> SET_OPERATORS = Set.of("and", "or", "unless");
  private static final Set<String> KEYWORDS = Set.of("by", "without", "on", "ignoring", "group_left", "group_right",
      "bool", "offset", "and", "or", "unless", "atan2");
  private static final Pattern DURATION = Pattern.compile("(\\d+(ms|[smhdwy]))+");

  private final List<Token> tokens;
  private final String text;
  private final List<Selector> selectors = new ArrayList<>();
  private int position;
  /** Whether the operand just read is a plain vector selector, the only thing a range [..] may follow. */
  private boolean lastWasSelector;

  private PromQl(String text) {
    this.text = text;
    this.tokens = lex(text);
  }

  /** Parses {@code text}; throws {@link IllegalArgumentException} naming the position when it is not valid PromQL. */
  static Parsed parse(String text) {
    PromQl parser = new PromQl(Objects.requireNonNull(text, "text is null"));
    Type type = parser.expression(0);
    if (parser.peek().kind != Kind.END) {
      throw parser.error("unexpected " + parser.peek());
    }
    if (type != Type.VECTOR && type != Type.SCALAR) {
      throw new IllegalArgumentException("expression must be a vector or a scalar, not a " + name(type) + ": " + text);
    }
    return new Parsed(type, List.copyOf(parser.selectors));
  }

  // ---- expressions, lowest precedence first: or; and unless; comparisons; + -; * / % atan2; ^ (right).

  private static int precedence(Token token) {
    if (token.kind == Kind.IDENTIFIER) {
      return switch (token.text) {
        case "or" -> 1;
        case "and", "unless" -> 2;
        case "atan2" -> 5;
        default -> -1;
      };
    }
    if (token.kind != Kind.OPERATOR) {
      return -1;
    }
    return switch (token.text) {
      case "==", "!=", ">", "<", ">=", "<=" -> 3;
      case "+", "-" -> 4;
      case "*", "/", "%" -> 5;
      case "^" -> 6;
      default -> -1;
    };
  }

  private Type expression(int minimumPrecedence) {
    Type left = unary();
    while (true) {
      Token operator = peek();
      int precedence = precedence(operator);
      if (precedence < 0 || precedence < minimumPrecedence) {
        return left;
      }
      next();
      boolean bool = false;
      if (COMPARISONS.contains(operator.text) && peekIdentifier("bool")) {
        next();
        bool = true;
      }
      boolean matching = false;
      if (peekIdentifier("on") || peekIdentifier("ignoring")) {
        next();
        labelList();
        matching = true;
        if (peekIdentifier("group_left") || peekIdentifier("group_right")) {
          next();
          if (peek().kind == Kind.LEFT_PAREN) {
            labelList();
          }
        }
      }
      // ^ is right-associative; every other operator is left-associative.
      Type right = expression(operator.text.equals("^") ? precedence : precedence + 1);
      left = binaryType(operator, left, right, bool, matching);
    }
  }

  private Type binaryType(Token operator, Type left, Type right, boolean bool, boolean matching) {
    for (Type side : List.of(left, right)) {
      if (side != Type.SCALAR && side != Type.VECTOR) {
        throw error("operator " + operator.text + " takes vectors and scalars, not a " + name(side));
      }
    }
    if (SET_OPERATORS.contains(operator.text)) {
      if (left != Type.VECTOR || right != Type.VECTOR) {
        throw error("set operator " + operator.text + " takes two vectors");
      }
      return Type.VECTOR;
    }
    boolean scalars = left == Type.SCALAR && right == Type.SCALAR;
    if (COMPARISONS.contains(operator.text) && scalars && !bool) {
      throw error("comparisons between scalars need bool");
    }
    if (matching && (left != Type.VECTOR || right != Type.VECTOR)) {
      throw error("vector matching (on, ignoring) takes two vectors");
    }
    return scalars ? Type.SCALAR : Type.VECTOR;
  }

  private Type unary() {
    Token token = peek();
    if (token.kind == Kind.OPERATOR && (token.text.equals("-") || token.text.equals("+"))) {
      next();
      Type operand = expression(6);
      if (operand != Type.SCALAR && operand != Type.VECTOR) {
        throw error("unary " + token.text + " takes a vector or a scalar");
      }
      return operand;
    }
    return postfix(primary());
  }

  private Type postfix(Type type) {
    while (true) {
      Token token = peek();
      if (token.kind == Kind.LEFT_BRACKET) {
        next();
        duration("range");
        if (peek().kind == Kind.COLON) {
          next();
          if (peek().kind == Kind.DURATION) {
            next();
          }
          expect(Kind.RIGHT_BRACKET, "]");
          if (type != Type.VECTOR) {
            throw error("a subquery takes an instant vector, not a " + name(type));
          }
          type = Type.MATRIX;
        } else {
          expect(Kind.RIGHT_BRACKET, "]");
          if (type != Type.VECTOR || !lastWasSelector) {
            throw error("a range [..] follows a vector selector only; use a subquery [range:step] for expressions");
          }
          type = Type.MATRIX;
        }
      } else if (token.kind == Kind.IDENTIFIER && token.text.equals("offset")) {
        next();
        if (peek().kind == Kind.OPERATOR && peek().text.equals("-")) {
          next();
        }
        duration("offset");
      } else if (token.kind == Kind.AT) {
        next();
        Token at = next();
        boolean valid = at.kind == Kind.NUMBER
            || at.kind == Kind.IDENTIFIER && (at.text.equals("start") || at.text.equals("end"));
        if (!valid) {
          throw error("@ takes a Unix time, start() or end()");
        }
        if (at.kind == Kind.IDENTIFIER) {
          expect(Kind.LEFT_PAREN, "(");
          expect(Kind.RIGHT_PAREN, ")");
        }
      } else {
        lastWasSelector = false;
        return type;
      }
    }
  }

  private Type primary() {
    Token token = next();
    lastWasSelector = false;
    switch (token.kind) {
      case NUMBER:
        return Type.SCALAR;
      case STRING:
        return Type.STRING;
      case LEFT_PAREN: {
        Type inner = expression(0);
        expect(Kind.RIGHT_PAREN, ")");
        return inner;
      }
      case LEFT_BRACE:
        position--;
        selector("");
        return Type.VECTOR;
      case IDENTIFIER:
        if (AGGREGATIONS.contains(token.text)) {
          return aggregation(token.text);
        }
        if (peek().kind == Kind.LEFT_PAREN) {
          return call(token.text);
        }
        if (KEYWORDS.contains(token.text)) {
          throw error("unexpected keyword " + token.text);
        }
        selector(token.text);
        return Type.VECTOR;
      default:
        throw error("expected an expression, found " + token);
    }
  }

  private Type aggregation(String operator) {
    boolean grouped = false;
    if (peekIdentifier("by") || peekIdentifier("without")) {
      next();
      labelList();
      grouped = true;
    }
    expect(Kind.LEFT_PAREN, "(");
    if (PARAMETER_AGGREGATIONS.contains(operator)) {
      Type parameter = expression(0);
      Type expected = operator.equals("count_values") ? Type.STRING : Type.SCALAR;
      if (parameter != expected) {
        throw error(operator + " takes a " + name(expected) + " parameter first");
      }
      expect(Kind.COMMA, ",");
    }
    Type operand = expression(0);
    if (operand != Type.VECTOR) {
      throw error(operator + " aggregates an instant vector, not a " + name(operand));
    }
    expect(Kind.RIGHT_PAREN, ")");
    if (!grouped && (peekIdentifier("by") || peekIdentifier("without"))) {
      next();
      labelList();
    }
    return Type.VECTOR;
  }

  private Type call(String name) {
    Function function = FUNCTIONS.get(name);
    if (function == null) {
      throw error("unknown function " + name + "()");
    }
    expect(Kind.LEFT_PAREN, "(");
    List<Type> arguments = new ArrayList<>();
    if (peek().kind != Kind.RIGHT_PAREN) {
      arguments.add(expression(0));
      while (peek().kind == Kind.COMMA) {
        next();
        arguments.add(expression(0));
      }
    }
    expect(Kind.RIGHT_PAREN, ")");
    int required = function.arguments.size() - function.optional;
    if (arguments.size() < required || !function.variadic && arguments.size() > function.arguments.size()) {
      throw error(name + "() takes " + (function.optional == 0 ? "" : "at least ") + required + " arguments, got "
          + arguments.size());
    }
    for (int i = 0; i < arguments.size(); i++) {
      Type expected = function.arguments.get(Math.min(i, function.arguments.size() - 1));
      if (arguments.get(i) != expected) {
        throw error(name + "() argument " + (i + 1) + " must be a " + name(expected) + ", not a "
            + name(arguments.get(i)));
      }
    }
    return function.returns;
  }

  private void selector(String metric) {
    List<LabelMatcher> matchers = new ArrayList<>();
    if (peek().kind == Kind.LEFT_BRACE) {
      next();
      while (peek().kind != Kind.RIGHT_BRACE) {
        Token label = next();
        if (label.kind != Kind.IDENTIFIER || label.text.contains(":")) {
          throw error("expected a label name, found " + label);
        }
        Token operator = next();
        if (operator.kind != Kind.OPERATOR || !Set.of("=", "!=", "=~", "!~").contains(operator.text)) {
          throw error("expected =, !=, =~ or !~ after label " + label.text + ", found " + operator);
        }
        Token value = next();
        if (value.kind != Kind.STRING) {
          throw error("expected a quoted label value, found " + value);
        }
        if (operator.text.endsWith("~")) {
          try {
            Pattern.compile(value.text);
          } catch (RuntimeException e) {
            throw error("label " + label.text + ": bad regular expression '" + value.text + "'");
          }
        }
        matchers.add(new LabelMatcher(label.text, operator.text, value.text));
        if (peek().kind == Kind.COMMA) {
          next();
        } else if (peek().kind != Kind.RIGHT_BRACE) {
          throw error("expected , or } in label matchers, found " + peek());
        }
      }
      next();
    }
    if (metric.isEmpty() && matchers.stream().noneMatch(m -> m.operator.equals("=") && !m.value.isEmpty())) {
      throw error("a selector without a metric name needs a non-empty equality matcher");
    }
    selectors.add(new Selector(metric, List.copyOf(matchers)));
    lastWasSelector = true;
  }

  private void labelList() {
    expect(Kind.LEFT_PAREN, "(");
    while (peek().kind != Kind.RIGHT_PAREN) {
      Token label = next();
      if (label.kind != Kind.IDENTIFIER || label.text.contains(":")) {
        throw error("expected a label name, found " + label);
      }
      if (peek().kind == Kind.COMMA) {
        next();
      } else if (peek().kind != Kind.RIGHT_PAREN) {
        throw error("expected , or ) in label list, found " + peek());
      }
    }
    next();
  }

  private void duration(String what) {
    Token token = next();
    if (token.kind != Kind.DURATION) {
      throw error(what + " must be a duration such as 5m, found " + token);
    }
  }

  // ---- tokens

  private enum Kind { IDENTIFIER, NUMBER, DURATION, STRING, OPERATOR, LEFT_PAREN, RIGHT_PAREN, LEFT_BRACE,
    RIGHT_BRACE, LEFT_BRACKET, RIGHT_BRACKET, COMMA, COLON, AT, END }

  private record Token(Kind kind, String text, int offset) {
    @Override
    public String toString() {
      return kind == Kind.END ? "end of expression" : "'" + text + "' at " + offset;
    }
  }

  private Token peek() {
    return tokens.get(position);
  }

  private Token next() {
    Token token = tokens.get(position);
    if (token.kind != Kind.END) {
      position++;
    }
    return token;
  }

  private boolean peekIdentifier(String word) {
    return peek().kind == Kind.IDENTIFIER && peek().text.equals(word);
  }

  private void expect(Kind kind, String what) {
    Token token = next();
    if (token.kind != kind) {
      throw error("expected " + what + ", found " + token);
    }
  }

  private IllegalArgumentException error(String message) {
    return new IllegalArgumentException(message + " (at " + peek().offset + " in: " + text + ")");
  }

  private static final Pattern NUMBER = Pattern.compile(
      "0[xX][0-9a-fA-F]+|(\\d+\\.?\\d*|\\.\\d+)([eE][+-]?\\d+)?");
  private static final Pattern IDENTIFIER = Pattern.compile("[a-zA-Z_][a-zA-Z0-9_:]*");

  private static List<Token> lex(String text) {
    List<Token> tokens = new ArrayList<>();
    int i = 0;
    while (i < text.length()) {
      char c = text.charAt(i);
      if (Character.isWhitespace(c)) {
        i++;
        continue;
      }
      if (c == '#') {
        while (i < text.length() && text.charAt(i) != '\n') {
          i++;
        }
        continue;
      }
      Matcher duration = DURATION.matcher(text).region(i, text.length());
      if (Character.isDigit(c) && duration.lookingAt()
          && (duration.end() == text.length() || !Character.isLetterOrDigit(text.charAt(duration.end())))) {
        tokens.add(new Token(Kind.DURATION, duration.group(), i));
        i = duration.end();
        continue;
      }
      Matcher number = NUMBER.matcher(text).region(i, text.length());
      if ((Character.isDigit(c) || c == '.') && number.lookingAt()) {
        tokens.add(new Token(Kind.NUMBER, number.group(), i));
        i = number.end();
        continue;
      }
      Matcher identifier = IDENTIFIER.matcher(text).region(i, text.length());
      if (identifier.lookingAt()) {
        String word = identifier.group();
        String lower = word.toLowerCase(Locale.ROOT);
        Kind kind = lower.equals("inf") || lower.equals("nan") ? Kind.NUMBER : Kind.IDENTIFIER;
        tokens.add(new Token(kind, word, i));
        i = identifier.end();
        continue;
      }
      if (c == '"' || c == '\'' || c == '`') {
        int start = i++;
        StringBuilder value = new StringBuilder();
        while (true) {
          if (i >= text.length()) {
            throw new IllegalArgumentException("unterminated string at " + start + " in: " + text);
          }
          char d = text.charAt(i++);
          if (d == c) {
            break;
          }
          if (d == '\\' && c != '`' && i < text.length()) {
            d = text.charAt(i++);
          }
          value.append(d);
        }
        tokens.add(new Token(Kind.STRING, value.toString(), start));
        continue;
      }
      String two = i + 1 < text.length() ? text.substring(i, i + 2) : "";
      if (Set.of("==", "!=", ">=", "<=", "=~", "!~").contains(two)) {
        tokens.add(new Token(Kind.OPERATOR, two, i));
        i += 2;
        continue;
      }
      Kind kind = switch (c) {
        case '(' -> Kind.LEFT_PAREN;
        case ')' -> Kind.RIGHT_PAREN;
        case '{' -> Kind.LEFT_BRACE;
        case '}' -> Kind.RIGHT_BRACE;
        case '[' -> Kind.LEFT_BRACKET;
        case ']' -> Kind.RIGHT_BRACKET;
        case ',' -> Kind.COMMA;
        case ':' -> Kind.COLON;
        case '@' -> Kind.AT;
        case '+', '-', '*', '/', '%', '^', '>', '<', '=' -> Kind.OPERATOR;
        default -> throw new IllegalArgumentException("unexpected character '" + c + "' at " + i + " in: " + text);
      };
      tokens.add(new Token(kind, String.valueOf(c), i));
      i++;
    }
    tokens.add(new Token(Kind.END, "", text.length()));
    return tokens;
  }

  private static String name(Type type) {
    return switch (type) {
      case SCALAR -> "scalar";
      case VECTOR -> "instant vector";
      case MATRIX -> "range vector";
      case STRING -> "string";
    };
  }

  private static Map<String, Function> functions() {
    Type scalar = Type.SCALAR;
    Type vector = Type.VECTOR;
    Type range = Type.MATRIX;
    Type string = Type.STRING;
    Function vectorToVector = new Function(List.of(vector), 0, false, vector);
    Function rangeToVector = new Function(List.of(range), 0, false, vector);
    Function optionalVector = new Function(List.of(vector), 1, false, vector);
    return Map.ofEntries(
        entry("abs", vectorToVector), entry("ceil", vectorToVector), entry("floor", vectorToVector),
        entry("exp", vectorToVector), entry("ln", vectorToVector), entry("log2", vectorToVector),
        entry("log10", vectorToVector), entry("sqrt", vectorToVector), entry("sgn", vectorToVector),
        entry("sort", vectorToVector), entry("sort_desc", vectorToVector), entry("timestamp", vectorToVector),
        entry("absent", vectorToVector),
        entry("round", new Function(List.of(vector, scalar), 1, false, vector)),
        entry("clamp", new Function(List.of(vector, scalar, scalar), 0, false, vector)),
        entry("clamp_max", new Function(List.of(vector, scalar), 0, false, vector)),
        entry("clamp_min", new Function(List.of(vector, scalar), 0, false, vector)),
        entry("rate", rangeToVector), entry("irate", rangeToVector), entry("increase", rangeToVector),
        entry("delta", rangeToVector), entry("idelta", rangeToVector), entry("deriv", rangeToVector),
        entry("changes", rangeToVector), entry("resets", rangeToVector),
        entry("absent_over_time", rangeToVector), entry("avg_over_time", rangeToVector),
        entry("min_over_time", rangeToVector), entry("max_over_time", rangeToVector),
        entry("sum_over_time", rangeToVector), entry("count_over_time", rangeToVector),
        entry("stddev_over_time", rangeToVector), entry("stdvar_over_time", rangeToVector),
        entry("last_over_time", rangeToVector), entry("present_over_time", rangeToVector),
        entry("mad_over_time", rangeToVector),
        entry("quantile_over_time", new Function(List.of(scalar, range), 0, false, vector)),
        entry("predict_linear", new Function(List.of(range, scalar), 0, false, vector)),
        entry("holt_winters", new Function(List.of(range, scalar, scalar), 0, false, vector)),
        entry("histogram_quantile", new Function(List.of(scalar, vector), 0, false, vector)),
        entry("label_replace", new Function(List.of(vector, string, string, string, string), 0, false, vector)),
        entry("label_join", new Function(List.of(vector, string, string, string), 1, true, vector)),
        entry("time", new Function(List.of(), 0, false, scalar)),
        entry("vector", new Function(List.of(scalar), 0, false, vector)),
        entry("scalar", new Function(List.of(vector), 0, false, scalar)),
        entry("day_of_month", optionalVector), entry("day_of_week", optionalVector),
        entry("day_of_year", optionalVector), entry("days_in_month", optionalVector),
        entry("hour", optionalVector), entry("minute", optionalVector), entry("month", optionalVector),
        entry("year", optionalVector));
  }
}
