package io.huditsd.api;

import java.util.List;
import java.util.Optional;

/**
 * The packages of {@code java.base} the daemon's JVM opens to it: {@code bin/tsd} passes them as
 * {@code --add-opens}, the jar's manifest as {@code Add-Opens} (for {@code java -jar}).
 *
 * <p>Hudi estimates the size of records and schemas (its spillable maps, the metadata table's readers) with JOL,
 * which reads every reference field of every object it walks, trying plain reflection first. A field of a closed
 * {@code java.base} class ({@code String}, {@code HashMap}, {@code URI}, ...) makes it throw and catch two exceptions,
 * stack traces filled, before it reads the field by offset: on a binary-copy {@code once} about a second of the
 * planning and commit threads, on a compaction a tenth of the CPU. With these packages open no exception is thrown.
 */
public final class JvmOpens {
  /** Every package whose objects those walks meet (checked with a recording of the exceptions thrown). */
  public static final List<String> PACKAGES = List.of("java.lang", "java.util", "java.util.concurrent",
      "java.util.concurrent.atomic", "java.nio", "java.net");

  private JvmOpens() {
  }

  /** A warning naming the packages this JVM keeps closed to the daemon, or empty when all are open. */
  public static Optional<String> missing() {
    Module base = Object.class.getModule();
    Module daemon = JvmOpens.class.getModule();
    List<String> closed = PACKAGES.stream().filter(name -> !base.isOpen(name, daemon)).toList();
    if (closed.isEmpty()) {
      return Optional.empty();
    }
    return Optional.of("this JVM was started without --add-opens for java.base/" + String.join(", java.base/", closed)
        + " (bin/tsd passes them): Hudi's record size estimates will throw and catch exceptions for every field"
        + " they read, which makes compaction and clustering slower");
  }
}
