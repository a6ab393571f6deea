package io.huditsd.it.support;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A Hudi release whose official Spark bundle ({@code hudi-spark3.5-bundle_2.12}) writes tables beside the daemon, and
 * the table version it writes by default. The Spark peer's class path carries 1.2.0's bundle; an older release's
 * bundle (copied to {@code src-it/target/hudi-bundles} by the build) takes its place.
 */
public enum HudiWriter {
  HUDI_0_15("0.15.0", 6),
  HUDI_1_0("1.0.2", 8),
  HUDI_1_2("1.2.0", 9);

  private static final String PEER_BUNDLE = "hudi-spark3.5-bundle_2.12-1.2.0.jar";

  private final String release;
  private final int tableVersion;

  HudiWriter(String release, int tableVersion) {
    this.release = release;
    this.tableVersion = tableVersion;
  }

  public String release() {
    return release;
  }

  /** The table version this release's writer creates when none is asked for. */
  public int tableVersion() {
    return tableVersion;
  }

  /** {@code peerClasspath} with this release's bundle in place of the peer's own (1.2.0). */
  String peerClasspath(String peerClasspath) {
    assertThat(peerClasspath).as("the Spark peer's class path").contains(PEER_BUNDLE);
    if (this == HUDI_1_2) {
      return peerClasspath;
    }
    String directory = System.getProperty("hudi.bundles");
    assertThat(directory).as("system property hudi.bundles (set by the failsafe configuration)").isNotNull();
    Path bundle = Path.of(directory, "hudi-spark3.5-bundle_2.12-" + release + ".jar");
    assertThat(Files.isRegularFile(bundle)).as("%s (copied by src-it's build: mvn -pl src-it verify)", bundle)
        .isTrue();
    return Arrays.stream(peerClasspath.split(File.pathSeparator))
        .map(entry -> entry.endsWith(File.separator + PEER_BUNDLE) ? bundle.toString() : entry)
        .collect(Collectors.joining(File.pathSeparator));
  }

  @Override
  public String toString() {
    return "Hudi " + release;
  }
}
