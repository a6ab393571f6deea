package io.huditsd.it.support;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Reads samples out of the Prometheus text a daemon's admin port serves on {@code /prometheus}. */
public final class PrometheusText {
  private PrometheusText() {
  }

  /**
   * The sum of the samples of {@code metric} whose labels contain every one of {@code labels} (each written as in
   * the text, e.g. {@code table="t1"}); 0 when there is none, as a counter that has not moved yet is absent.
   */
  public static double sum(String text, String metric, String... labels) {
    Matcher matcher = Pattern.compile("(?m)^" + Pattern.quote(metric) + "(?:\\{([^}]*)})? ([0-9.eE+-]+)$")
        .matcher(text);
    double sum = 0;
    while (matcher.find()) {
      String found = matcher.group(1) == null ? "" : matcher.group(1);
      boolean all = true;
      for (String label : labels) {
        all &= found.contains(label);
      }
      if (all) {
        sum += Double.parseDouble(matcher.group(2));
      }
    }
    return sum;
  }
}
