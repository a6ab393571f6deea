package io.huditsd.config;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * Table ids: stable across restarts and safe in URLs and metric labels.
 *
 * <p>A derived id is the table directory's name, lower-cased with every character outside {@code [a-z0-9_-]}
 * replaced by {@code _}, followed by {@code -} and the first 8 hex digits of the SHA-256 of the normalized base
 * path. Two tables named alike in different places therefore get different ids, and the same path always gets the
 * same id.
 */
public final class TableIds {
  private static final Pattern VALID = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_.-]{0,127}");

  private TableIds() {
  }

  public static String requireValid(String id) {
    if (!VALID.matcher(id).matches()) {
      throw new IllegalArgumentException("table id '" + id
          + "' must be 1-128 characters of letters, digits, '_', '-' or '.', starting with a letter or digit");
    }
    return id;
  }

  public static String derive(String normalizedBasePath) {
    String trimmed = normalizedBasePath.replaceAll("/+$", "");
    String name = trimmed.substring(trimmed.lastIndexOf('/') + 1).toLowerCase(Locale.ROOT)
        .replaceAll("[^a-z0-9_-]", "_");
    if (name.isEmpty()) {
      name = "table";
    }
    if (name.length() > 100) {
      name = name.substring(0, 100);
    }
    return name + "-" + shortHash(trimmed);
  }

  private static String shortHash(String value) {
    try {
      byte[] digest = MessageDigest.getInstance("SHA-256").digest(value.getBytes(StandardCharsets.UTF_8));
      return HexFormat.of().formatHex(digest, 0, 4);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is not available", e);
    }
  }
}
