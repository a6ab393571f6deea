package io.huditsd.config;

import java.net.URI;
import java.nio.file.Path;

/** Normalizes table base paths so the same table always has the same identity. */
public final class TablePaths {
  private TablePaths() {
  }

  /**
   * A local path becomes an absolute {@code file:} URI; a URI with a scheme keeps its scheme and authority. Trailing
   * slashes and {@code .}/{@code ..} segments are removed.
   */
  public static String normalize(String path) {
    String trimmed = path.trim();
    URI uri;
    if (trimmed.matches("^[A-Za-z][A-Za-z0-9+.-]*://.*") || trimmed.startsWith("file:")) {
      uri = URI.create(trimmed).normalize();
    } else {
      uri = Path.of(trimmed).toAbsolutePath().normalize().toUri();
    }
    String text = uri.toString();
    if (text.startsWith("file:///")) {
      text = "file:/" + text.substring("file:///".length());
    }
    while (text.endsWith("/") && !text.endsWith(":/")) {
      text = text.substring(0, text.length() - 1);
    }
    return text;
  }
}
