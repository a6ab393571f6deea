package io.huditsd.config;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;

import java.util.Optional;

/**
 * Bearer-token access to the REST API and the admin port. The token is read once at start from a file or an
 * environment variable and never logged. Without either, the API is open (the daemon logs a warning at start), and
 * the admin port answers only its probes unless {@code openAdmin} says otherwise.
 *
 * @param tokenFile a file whose content (trimmed) is the token, e.g. a mounted Kubernetes secret
 * @param tokenEnv the name of an environment variable holding the token
 * @param protectReads whether GET endpoints require the token too (mutating endpoints always do once a token is set)
 * @param maxBodyBytes larger request bodies are refused with 413
 * @param openAdmin without a token, whether the admin port serves its tasks ({@code /tasks/log-level},
 *     {@code /tasks/gc}) and dumps ({@code /threads}, {@code /metrics}, ...) to anyone; they answer 403 by default.
 *     With a token they always require it. The probes ({@code /live}, {@code /ready}, {@code /healthcheck},
 *     {@code /prometheus}) are always open.
 */
public record AuthConfig(Optional<String> tokenFile, Optional<String> tokenEnv, boolean protectReads,
                         long maxBodyBytes, boolean openAdmin) {
  public static final long MAX_BODY_BYTES_DEFAULT = 64 * 1024;

  @JsonCreator
  public static AuthConfig create(@JsonProperty("tokenFile") String tokenFile,
                                  @JsonProperty("tokenEnv") String tokenEnv,
                                  @JsonProperty("protectReads") Boolean protectReads,
                                  @JsonProperty("maxBodyBytes") Long maxBodyBytes,
                                  @JsonProperty("openAdmin") Boolean openAdmin) {
    return new AuthConfig(Optional.ofNullable(tokenFile), Optional.ofNullable(tokenEnv),
        protectReads != null && protectReads, maxBodyBytes == null ? MAX_BODY_BYTES_DEFAULT : maxBodyBytes,
        openAdmin != null && openAdmin);
  }

  public AuthConfig {
    if (tokenFile.isPresent() && tokenEnv.isPresent()) {
      throw new IllegalArgumentException("set tokenFile or tokenEnv, not both");
    }
    if (protectReads && tokenFile.isEmpty() && tokenEnv.isEmpty()) {
      throw new IllegalArgumentException("protectReads needs a token: set tokenFile or tokenEnv");
    }
    if (openAdmin && (tokenFile.isPresent() || tokenEnv.isPresent())) {
      throw new IllegalArgumentException("openAdmin applies only without a token: with tokenFile or tokenEnv set, "
          + "the admin port requires the token");
    }
    if (maxBodyBytes < 1) {
      throw new IllegalArgumentException("maxBodyBytes must be positive, got " + maxBodyBytes);
    }
  }

  public static AuthConfig defaults() {
    return create(null, null, null, null, null);
  }
}
