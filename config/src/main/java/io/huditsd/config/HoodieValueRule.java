package io.huditsd.config;

import org.apache.hudi.common.config.ConfigProperty;
import org.apache.hudi.common.table.HoodieTableVersion;

import java.lang.reflect.Field;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The values Hudi can read for one declared {@code hoodie.*} key, from what its {@link ConfigProperty} declares:
 * valid values, an enum named in its documentation, or the type of its default. Hudi itself parses a value only when
 * a getter reads it, so a wrong type (a word for a number) surfaces as a {@link NumberFormatException} on every poll;
 * checking against the declaration makes it an error at start.
 *
 * @param kind what kind of value the key takes
 * @param hudiDefault Hudi's default, shown in the message; empty when the key has none
 * @param choices the accepted values of a {@link Kind#ONE_OF} key, compared ignoring case as Hudi does
 */
public record HoodieValueRule(Kind kind, String hudiDefault, List<String> choices) {
  /** Kinds of values; keys Hudi declares with a free-form string default have no rule. */
  public enum Kind {
    /** Read with {@code Integer.parseInt}. */
    INT,
    /** Read with {@code Long.parseLong}; also used for numeric string defaults, whose width Hudi does not declare. */
    LONG,
    /** Read with {@code Double.parseDouble} or {@code Float.parseFloat}. */
    DECIMAL,
    /** Read with {@code Boolean.parseBoolean}, which silently reads anything but {@code true} as false. */
    BOOLEAN,
    /** One of declared values or enum constants. */
    ONE_OF
  }

  private static final Pattern WHOLE_NUMBER = Pattern.compile("-?\\d+");
  private static final Pattern DECIMAL_NUMBER = Pattern.compile("-?\\d*\\.\\d+");
  /** {@code ConfigProperty.withDocumentation(SomeEnum.class)} starts the documentation with the enum's class name. */
  private static final Pattern DOCUMENTED_ENUM = Pattern.compile("^([a-z][\\w]*(?:\\.[\\w$]+)+): ");

  public HoodieValueRule {
    hudiDefault = hudiDefault == null ? "" : hudiDefault;
    choices = List.copyOf(choices);
  }

  /** The rule for {@code property}, if its declaration tells what values it takes. */
  static Optional<HoodieValueRule> of(ConfigProperty<?> property) {
    Object declaredDefault = property.hasDefaultValue() ? property.defaultValue() : null;
    String shownDefault = declaredDefault == null ? ""
        : declaredDefault instanceof Enum<?> constant ? constant.name() : declaredDefault.toString();
    List<String> choices = declaredChoices(property, declaredDefault);
    if (!choices.isEmpty()) {
      return Optional.of(new HoodieValueRule(Kind.ONE_OF, shownDefault, choices));
    }
    Kind kind = kindOfDefault(declaredDefault);
    return Optional.ofNullable(kind).map(found -> new HoodieValueRule(found, shownDefault, List.of()));
  }

  private static Kind kindOfDefault(Object declaredDefault) {
    if (declaredDefault instanceof Integer) {
      return Kind.INT;
    } else if (declaredDefault instanceof Long) {
      return Kind.LONG;
    } else if (declaredDefault instanceof Double || declaredDefault instanceof Float) {
      return Kind.DECIMAL;
    } else if (declaredDefault instanceof Boolean) {
      return Kind.BOOLEAN;
    } else if (declaredDefault instanceof String text) {
      // Many keys declare numbers and flags as strings ("5", "false"); Hudi still parses them as such.
      if (WHOLE_NUMBER.matcher(text).matches()) {
        return Kind.LONG;
      } else if (DECIMAL_NUMBER.matcher(text).matches()) {
        return Kind.DECIMAL;
      } else if (text.equals("true") || text.equals("false")) {
        return Kind.BOOLEAN;
      }
    }
    return null;
  }

  /** Why {@code value} cannot be read for this key ("is not a whole number ..."); empty when it can. */
  public Optional<String> problem(String value) {
    boolean valid = switch (kind) {
      case INT -> parses(() -> Integer.parseInt(value));
      case LONG -> parses(() -> Long.parseLong(value));
      case DECIMAL -> parses(() -> Double.parseDouble(value));
      case BOOLEAN -> value.equalsIgnoreCase("true") || value.equalsIgnoreCase("false");
      case ONE_OF -> choices.stream().anyMatch(choice -> choice.equalsIgnoreCase(value));
    };
    if (valid) {
      return Optional.empty();
    }
    String expected = switch (kind) {
      case INT, LONG -> "is not a whole number";
      case DECIMAL -> "is not a number";
      case BOOLEAN -> "is neither true nor false";
      case ONE_OF -> "is not one of " + String.join(", ", choices);
    };
    return Optional.of(expected + (hudiDefault.isEmpty() || kind == Kind.ONE_OF ? ""
        : " (Hudi's default is " + hudiDefault + ")"));
  }

  private static boolean parses(Runnable parse) {
    try {
      parse.run();
      return true;
    } catch (NumberFormatException e) {
      return false;
    }
  }

  private static List<String> declaredChoices(ConfigProperty<?> property, Object declaredDefault) {
    List<String> validValues = validValues(property);
    if (!validValues.isEmpty()) {
      return validValues;
    }
    Matcher documented = DOCUMENTED_ENUM.matcher(property.doc() == null ? "" : property.doc());
    if (documented.find()) {
      List<String> constants = enumConstants(documented.group(1));
      if (!constants.isEmpty()) {
        return constants;
      }
    }
    // Table versions are read as version codes (9) as well as names (NINE): not a closed list of names.
    if (declaredDefault instanceof Enum<?> constant && !(constant instanceof HoodieTableVersion)) {
      return names(Arrays.asList(constant.getDeclaringClass().getEnumConstants()));
    }
    return List.of();
  }

  /** {@code ConfigProperty.withValidValues(...)}; Hudi exposes them only through {@code checkValues}. */
  private static List<String> validValues(ConfigProperty<?> property) {
    try {
      Field field = ConfigProperty.class.getDeclaredField("validValues");
      field.setAccessible(true);
      Object values = field.get(property);
      return values instanceof Collection<?> collection ? collection.stream().map(Object::toString).toList()
          : List.of();
    } catch (ReflectiveOperationException | RuntimeException e) {
      // Another Hudi build: no declared values to check against.
      return List.of();
    }
  }

  private static List<String> enumConstants(String className) {
    try {
      Class<?> type = Class.forName(className, false, HoodieValueRule.class.getClassLoader());
      return type.isEnum() ? names(Arrays.asList(type.getEnumConstants())) : List.of();
    } catch (ClassNotFoundException | LinkageError e) {
      return List.of();
    }
  }

  private static List<String> names(List<?> constants) {
    List<String> names = new ArrayList<>();
    for (Object constant : constants) {
      names.add(((Enum<?>) constant).name());
    }
    return names;
  }
}
