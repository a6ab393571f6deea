package io.huditsd.api.console;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.TreeMap;

import static java.util.Objects.requireNonNull;

/**
 * The WebJars the console may serve, by short name, with the version each jar on the class path declares in its
 * Maven metadata: the pages name a library without its version ({@code lib/uplot/dist/uPlot.iife.min.js}), so an
 * upgrade in the pom needs no edit of the pages.
 */
public final class WebJars {
  /** The console's libraries: short name to their Maven group (the artifact is the short name). */
  public static final Map<String, String> CONSOLE = Map.of("uplot", "org.webjars.npm",
      "tabulator-tables", "org.webjars.npm", "swagger-ui", "org.webjars");

  private final Map<String, String> versions;

  private WebJars(Map<String, String> versions) {
    this.versions = Map.copyOf(versions);
  }

  /** The versions of {@code libraries} found on the class path; a missing jar fails here, at start. */
  public static WebJars onClassPath(Map<String, String> libraries) {
    Map<String, String> versions = new TreeMap<>();
    libraries.forEach((name, group) -> versions.put(name, version(group, name)));
    return new WebJars(versions);
  }

  private static String version(String group, String artifact) {
    String metadata = "META-INF/maven/" + group + "/" + artifact + "/pom.properties";
    try (InputStream in = WebJars.class.getClassLoader().getResourceAsStream(metadata)) {
      if (in == null) {
        throw new IllegalStateException("WebJar " + group + ":" + artifact + " is missing from the class path");
      }
      Properties properties = new Properties();
      properties.load(in);
      return requireNonNull(properties.getProperty("version"), metadata + " has no version");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The class-path resource of {@code path} inside the WebJar {@code name}, if the console serves that WebJar. */
  public Optional<String> resource(String name, String path) {
    return Optional.ofNullable(versions.get(name))
        .map(version -> "META-INF/resources/webjars/" + name + "/" + version + "/" + path);
  }

  public Map<String, String> versions() {
    return versions;
  }
}
