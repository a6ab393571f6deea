package io.huditsd.executors;

import java.util.Locale;

/** Byte counts as operators read them in log lines, run views and error messages ("128.0 MiB"). */
public final class ByteSize {
  private static final String[] UNITS = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};

  private ByteSize() {
  }

  public static String format(long bytes) {
    if (bytes < 1024) {
      return bytes + " B";
    }
    double value = bytes;
    int unit = -1;
    while (value >= 1024 && unit < UNITS.length - 1) {
      value /= 1024;
      unit++;
    }
    return String.format(Locale.ROOT, "%.1f %s", value, UNITS[unit]);
  }
}
