package io.huditsd.config;

import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.Optional;

/** Normalizes table base paths so the same table always has the same identity. */
public final class TablePaths {
  private TablePaths() {
  }

  /**
   * A local path becomes an absolute {@code file:} path; a URI with a scheme keeps its scheme and authority. Trailing
   * slashes and {@code .}/{@code ..} segments are removed.
   *
   * <p>The result is not URI-encoded: Hadoop's and Hudi's path classes take their argument literally, so a table at
   * {@code /data/my tables/t1} must stay {@code file:/data/my tables/t1}, not {@code file:/data/my%20tables/t1} (a
   * directory that does not exist).
   */
  public static String normalize(String path) {
    String trimmed = path.trim();
    String text;
    if (trimmed.matches("^[A-Za-z][A-Za-z0-9+.-]*://.*") || trimmed.startsWith("file:")) {
      text = normalizeUri(trimmed);
    } else {
      text = "file:" + Path.of(trimmed).toAbsolutePath().normalize();
    }
    while (text.endsWith("/") && !text.endsWith(":/")) {
      text = text.substring(0, text.length() - 1);
    }
    return text;
  }

  /**
   * Whether two normalized base paths name the same table location although written differently: {@code s3://},
   * {@code s3a://} and {@code s3n://} name the same bucket and key (EMR writers say {@code s3://}, Hadoop's S3A
   * {@code s3a://}). Other schemes must match exactly.
   */
  public static boolean sameLocation(String first, String second) {
    return first.equals(second) || s3Location(first).filter(location -> s3Location(second).equals(
        Optional.of(location))).isPresent();
  }

  private static Optional<String> s3Location(String path) {
    for (String scheme : new String[] {"s3://", "s3a://", "s3n://"}) {
      if (path.startsWith(scheme)) {
        return Optional.of(path.substring(scheme.length()));
      }
    }
    return Optional.empty();
  }

  private static String normalizeUri(String uri) {
    int colon = uri.indexOf(':');
    String scheme = uri.substring(0, colon);
    String rest = uri.substring(colon + 1);
    String authority = "";
    if (rest.startsWith("//")) {
      int slash = rest.indexOf('/', 2);
      authority = slash < 0 ? rest.substring(2) : rest.substring(2, slash);
      rest = slash < 0 ? "" : rest.substring(slash);
    }
    String normalizedPath;
    try {
      // This constructor quotes what is not legal in a URI (spaces, '%'); getPath() gives the literal path back.
      normalizedPath = new URI(null, null, rest, null).normalize().getPath();
    } catch (URISyntaxException e) {
      throw new IllegalArgumentException("Cannot read table path '" + uri + "': " + e.getMessage(), e);
    }
    // file:///t and file:/t name the same directory; keep the short form, as Hadoop prints it.
    return authority.isEmpty() ? scheme + ":" + normalizedPath : scheme + "://" + authority + normalizedPath;
  }
}
