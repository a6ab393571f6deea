package io.huditsd.api.metrics;

import io.prometheus.metrics.model.registry.Collector;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Objects;
import java.util.Properties;

/** {@code tsd_build_info{version} 1}: which release of the daemon a scrape target runs (Prometheus' info style). */
public final class BuildInfoCollector implements Collector {
  private static final String RESOURCE = "build-info.properties";

  private final String version;

  public BuildInfoCollector(String version) {
    this.version = Objects.requireNonNull(version, "version is null");
  }

  /** The version Maven wrote into the api jar's {@value #RESOURCE}. */
  public static BuildInfoCollector ofThisBuild() {
    return new BuildInfoCollector(version());
  }

  static String version() {
    try (InputStream in = BuildInfoCollector.class.getResourceAsStream(RESOURCE)) {
      if (in == null) {
        throw new IllegalStateException(RESOURCE + " is missing from the api jar");
      }
      Properties properties = new Properties();
      properties.load(in);
      return Objects.requireNonNull(properties.getProperty("version"), "version in " + RESOURCE + " is null");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public MetricSnapshot collect() {
    LabelledFamily info = LabelledFamily.info("tsd_build_info", "The daemon's release; always 1", List.of("version"));
    info.add(List.of(version), 1);
    return info.snapshot();
  }
}
