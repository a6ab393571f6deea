package io.huditsd.api;

import io.huditsd.config.AuthConfig;
import io.huditsd.config.CommitCallbackConfig;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * Reads the REST API token named by {@link AuthConfig}, and the commit callbacks' key; the values themselves are
 * never logged.
 */
final class ApiToken {
  private ApiToken() {
  }

  static Optional<String> read(AuthConfig auth) {
    return read(auth.tokenFile(), auth.tokenEnv(), "auth.tokenFile", "auth.tokenEnv", "token");
  }

  /** The key writers send with their commit callbacks, from {@code commitCallbacks.keyFile} or {@code keyEnv}. */
  static String read(CommitCallbackConfig callbacks) {
    return read(callbacks.keyFile(), callbacks.keyEnv(), "commitCallbacks.keyFile", "commitCallbacks.keyEnv", "key")
        .orElseThrow(() -> new IllegalStateException("commitCallbacks: set keyFile or keyEnv"));
  }

  private static Optional<String> read(Optional<String> fileName, Optional<String> envName, String fileKey,
                                       String envKey, String what) {
    if (fileName.isPresent()) {
      Path file = Path.of(fileName.get());
      try {
        return Optional.of(requireNonEmpty(Files.readString(file, StandardCharsets.UTF_8).trim(),
            fileKey + " " + file, what));
      } catch (IOException e) {
        throw new IllegalStateException(fileKey + " " + file + " cannot be read: " + e.getMessage(), e);
      }
    }
    if (envName.isPresent()) {
      String name = envName.get();
      String value = System.getenv(name);
      if (value == null) {
        throw new IllegalStateException(envKey + ": environment variable " + name + " is not set");
      }
      return Optional.of(requireNonEmpty(value.trim(), envKey + " " + name, what));
    }
    return Optional.empty();
  }

  private static String requireNonEmpty(String secret, String source, String what) {
    if (secret.isEmpty()) {
      throw new IllegalStateException(source + " holds an empty " + what);
    }
    return secret;
  }
}
