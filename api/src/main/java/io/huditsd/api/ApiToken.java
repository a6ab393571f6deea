package io.huditsd.api;

import io.huditsd.config.AuthConfig;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/** Reads the REST API token named by {@link AuthConfig}; the value itself is never logged. */
final class ApiToken {
  private ApiToken() {
  }

  static Optional<String> read(AuthConfig auth) {
    if (auth.tokenFile().isPresent()) {
      Path file = Path.of(auth.tokenFile().get());
      try {
        return Optional.of(requireNonEmpty(Files.readString(file, StandardCharsets.UTF_8).trim(),
            "auth.tokenFile " + file));
      } catch (IOException e) {
        throw new IllegalStateException("auth.tokenFile " + file + " cannot be read: " + e.getMessage(), e);
      }
    }
    if (auth.tokenEnv().isPresent()) {
      String name = auth.tokenEnv().get();
      String value = System.getenv(name);
      if (value == null) {
        throw new IllegalStateException("auth.tokenEnv: environment variable " + name + " is not set");
      }
      return Optional.of(requireNonEmpty(value.trim(), "auth.tokenEnv " + name));
    }
    return Optional.empty();
  }

  private static String requireNonEmpty(String token, String source) {
    if (token.isEmpty()) {
      throw new IllegalStateException(source + " holds an empty token");
    }
    return token;
  }
}
