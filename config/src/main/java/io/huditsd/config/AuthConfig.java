package io.huditsd.config;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;

import java.util.Optional;

/**
 * Bearer-token access to the REST API. The token is read once at start from a file or an environment variable and
 * never logged. Without either, the API is open (the daemon logs a warning at start).
 *
 * @param tokenFile a file whose content (trimmed) is the token, e.g. a mounted Kubernetes secret
 * @param tokenEnv the name of an environment variable holding the token
 * @param protectReads whether GET endpoints require the token too (mutating endpoints always do once a token is set)
 * @param maxBodyBytes larger request bodies are refused with 413
 */
public record AuthConfig(Optional<String> tokenFile, Optional<String> tokenEnv, boolean protectReads,
                         long maxBodyBytes) {
  public static final long MAX_BODY_BYTES_DEFAULT = 64 * 1024;

  @JsonCreator
  public static AuthConfig create(@JsonProperty("tokenFile") String tokenFile,
                                  @JsonProperty("tokenEnv") String tokenEnv,
                                  @JsonProperty("protectReads") Boolean protectReads,
                                  @JsonProperty("maxBodyBytes") Long maxBodyBytes) {
    return new AuthConfig(Optional.ofNullable(tokenFile), Optional.ofNullable(tokenEnv),
        protectReads != null && protectReads, maxBodyBytes == null ? MAX_BODY_BYTES_DEFAULT : maxBodyBytes);
  }

  public AuthConfig {
    if (tokenFile.isPresent() && tokenEnv.isPresent()) {
      throw new IllegalArgumentException("set tokenFile or tokenEnv, not both");
    }
    if (protectReads && tokenFile.isEmpty() && tokenEnv.isEmpty()) {
      throw new IllegalArgumentException("protectReads needs a token: set tokenFile or tokenEnv");
    }
    if (maxBodyBytes < 1) {
      throw new IllegalArgumentException("maxBodyBytes must be positive, got " + maxBodyBytes);
    }
  }

  public static AuthConfig defaults() {
    return create(null, null, null, null);
  }
}
