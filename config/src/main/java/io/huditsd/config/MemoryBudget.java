package io.huditsd.config;

import com.fasterxml.jackson.annotation.JsonValue;

import java.util.Locale;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code workers.memoryBudget}: how much of the daemon's heap the plans that execute in process may hold together.
 * Either a size ({@code 1536MiB}, {@code 2GiB}, {@code 800MB}) or a percentage of the maximum heap ({@code 60%}).
 * The default, {@value #DEFAULT_PERCENT}% of the maximum heap, leaves the rest for polling, REST, Hudi's timelines
 * and file-system views, and the garbage collector's headroom.
 *
 * @param text the value as configured, for messages
 * @param bytes a fixed size, or 0 when {@code percent} applies
 * @param percent a share of the maximum heap (1-100), or 0 when {@code bytes} applies
 */
// Written as configured ("60%"): Dropwizard's default configuration is serialized and read back through
// WorkerConfig.create, which takes the text.
public record MemoryBudget(@JsonValue String text, long bytes, int percent) {
  public static final int DEFAULT_PERCENT = 60;
  private static final Pattern PERCENT = Pattern.compile("(\\d{1,3})\\s*%");
  private static final Pattern SIZE = Pattern.compile("(\\d+(?:\\.\\d+)?)\\s*([KMGT]i?B|B)?", Pattern.CASE_INSENSITIVE);

  public MemoryBudget {
    Objects.requireNonNull(text, "text is null");
    if ((bytes > 0) == (percent > 0)) {
      throw new IllegalArgumentException("exactly one of bytes and percent must be set, got " + bytes + " and "
          + percent);
    }
    if (percent > 100) {
      throw new IllegalArgumentException("workers.memoryBudget must be at most 100%, got " + text);
    }
  }

  public static MemoryBudget defaults() {
    return new MemoryBudget(DEFAULT_PERCENT + "%", 0, DEFAULT_PERCENT);
  }

  /**
   * Reads a configured value.
   *
   * @throws IllegalArgumentException naming the key and the forms it accepts
   */
  public static MemoryBudget parse(String value) {
    Objects.requireNonNull(value, "value is null");
    String text = value.trim();
    Matcher percent = PERCENT.matcher(text);
    if (percent.matches()) {
      int share = Integer.parseInt(percent.group(1));
      if (share < 1 || share > 100) {
        throw new IllegalArgumentException("workers.memoryBudget must be between 1% and 100% of the maximum heap, got "
            + value);
      }
      return new MemoryBudget(text, 0, share);
    }
    Matcher size = SIZE.matcher(text);
    if (!size.matches()) {
      throw new IllegalArgumentException("workers.memoryBudget must be a size such as 1536MiB or 2GiB, or a"
          + " percentage of the maximum heap such as 60%, got '" + value + "'");
    }
    double number = Double.parseDouble(size.group(1));
    long bytes = (long) (number * unit(size.group(2)));
    if (bytes < 1) {
      throw new IllegalArgumentException("workers.memoryBudget must be more than 0 bytes, got '" + value + "'");
    }
    return new MemoryBudget(text, bytes, 0);
  }

  private static long unit(String unit) {
    if (unit == null) {
      return 1;
    }
    return switch (unit.toUpperCase(Locale.ROOT)) {
      case "B" -> 1L;
      case "KB" -> 1_000L;
      case "MB" -> 1_000_000L;
      case "GB" -> 1_000_000_000L;
      case "TB" -> 1_000_000_000_000L;
      case "KIB" -> 1L << 10;
      case "MIB" -> 1L << 20;
      case "GIB" -> 1L << 30;
      case "TIB" -> 1L << 40;
      default -> throw new IllegalArgumentException("unknown unit " + unit);
    };
  }

  /**
   * The budget in bytes for a JVM whose maximum heap is {@code maxHeapBytes} ({@link Runtime#maxMemory()}).
   *
   * @throws IllegalArgumentException when a fixed size is more than the heap: every plan would then be admitted that
   *     the heap cannot hold
   */
  public long resolve(long maxHeapBytes) {
    if (maxHeapBytes < 1) {
      throw new IllegalArgumentException("maxHeapBytes must be positive, got " + maxHeapBytes);
    }
    if (percent > 0) {
      return (long) (maxHeapBytes * (percent / 100.0));
    }
    if (bytes > maxHeapBytes) {
      throw new IllegalArgumentException("workers.memoryBudget " + text + " (" + bytes + " bytes) is more than the"
          + " maximum heap of " + maxHeapBytes + " bytes (-Xmx): raise -Xmx (TSD_JAVA_OPTS) or lower the budget,"
          + " e.g. to " + DEFAULT_PERCENT + "%");
    }
    return bytes;
  }

  @Override
  public String toString() {
    return text;
  }
}
