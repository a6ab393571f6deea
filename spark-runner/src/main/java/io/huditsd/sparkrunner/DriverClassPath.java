package io.huditsd.sparkrunner;

import org.apache.hudi.common.util.ReflectionUtils;

import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;

/**
 * Refuses, with the fix, a class the props name that only the application's class loader has.
 *
 * <p>Hudi 1.2.0 loads configured classes with {@code Class.forName(name)} from its own loader
 * ({@code ReflectionUtils.getClass}). Where the Hudi bundle sits in the Spark distribution's {@code jars/} (this
 * project's SPARK_HOME, EMR, Dataproc) that is the JVM's application class loader, and it does not see
 * {@code --jars}: Spark puts those in a child loader. Hudi then fails with {@code ClassNotFoundException}, and a class
 * of the lock-providers jar that lives in a Hudi package (its bridge to Hudi's storage lock) could not call Hudi's
 * package-private constructors from another loader anyway ({@code IllegalAccessError}). So the lock-providers jar must
 * be loaded by the bundle's loader: on the driver's class path ({@code spark.driver.extraClassPath}, or
 * {@code jars/}). Only the driver needs it: locks and conflict resolution run there.
 */
final class DriverClassPath {
  private static final Pattern CLASS_NAME = Pattern.compile("[A-Za-z_$][\\w$]*(\\.[A-Za-z_$][\\w$]*)+");

  private DriverClassPath() {
  }

  /**
   * @param application the application's class loader (where {@code --jars} and the runner jar are)
   * @throws PlanRefusedException naming the keys, classes and the fix when Hudi's loader lacks a class that
   *     {@code application} has
   */
  static void requireLoadableByHudi(Properties keys, ClassLoader application) {
    ClassLoader hudi = ReflectionUtils.class.getClassLoader();
    Set<String> misplaced = new TreeSet<>();
    for (String key : keys.stringPropertyNames()) {
      String value = keys.getProperty(key).trim();
      if (namesClass(key) && CLASS_NAME.matcher(value).matches() && !loadable(value, hudi)
          && loadable(value, application)) {
        misplaced.add(key + "=" + value);
      }
    }
    if (!misplaced.isEmpty()) {
      throw new PlanRefusedException("Hudi cannot load " + misplaced + ": the class is in a jar of the submission"
          + " (--jars), which Spark loads apart from the Hudi bundle, and Hudi loads configured classes from its own"
          + " loader. Put that jar on the driver's class path (spark.driver.extraClassPath, --driver-class-path) or"
          + " beside the bundle in SPARK_HOME/jars");
    }
  }

  /** Keys whose value Hudi loads as a class: *.class, *.provider, *.strategy (and class names of those). */
  private static boolean namesClass(String key) {
    return key.endsWith(".class") || key.endsWith(".provider") || key.endsWith(".strategy")
        || key.endsWith(".class.name");
  }

  private static boolean loadable(String name, ClassLoader loader) {
    try {
      Class.forName(name, false, loader);
      return true;
    } catch (ClassNotFoundException | LinkageError e) {
      return false;
    }
  }
}
