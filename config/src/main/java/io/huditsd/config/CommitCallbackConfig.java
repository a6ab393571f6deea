package io.huditsd.config;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;
import io.dropwizard.util.Duration;

import java.util.Optional;

/**
 * Hudi writers' HTTP commit callbacks ({@code hoodie.write.commit.callback.on=true} with
 * {@code HoodieWriteCommitHttpCallback}) received on {@code POST /v1/hoodie/commit-callback}: a callback makes the
 * table's next poll happen now. Without this section there is no such endpoint (404). The key writers send in
 * {@code HUDI-CALLBACK-KEY} ({@code hoodie.write.commit.callback.http.api.key}) is read once at start from a file or
 * an environment variable and never logged.
 *
 * @param keyFile a file whose content (trimmed) is the key, e.g. a mounted Kubernetes secret
 * @param keyEnv the name of an environment variable holding the key
 * @param debounce a burst of callbacks for one table within this window gives one poll at its start and, if more
 *     came, one at its end ({@value #DEBOUNCE_DEFAULT_TEXT} by default)
 */
public record CommitCallbackConfig(Optional<String> keyFile, Optional<String> keyEnv, Duration debounce) {
  static final String DEBOUNCE_DEFAULT_TEXT = "2s";
  public static final Duration DEBOUNCE_DEFAULT = Duration.parse(DEBOUNCE_DEFAULT_TEXT);

  @JsonCreator
  public static CommitCallbackConfig create(@JsonProperty("keyFile") String keyFile,
                                            @JsonProperty("keyEnv") String keyEnv,
                                            @JsonProperty("debounce") Duration debounce) {
    return new CommitCallbackConfig(Optional.ofNullable(keyFile), Optional.ofNullable(keyEnv),
        debounce == null ? DEBOUNCE_DEFAULT : debounce);
  }

  public CommitCallbackConfig {
    if (keyFile.isPresent() == keyEnv.isPresent()) {
      throw new IllegalArgumentException("set keyFile or keyEnv (not both): the key writers send in "
          + "hoodie.write.commit.callback.http.api.key");
    }
    if (debounce.toMilliseconds() < 0 || debounce.toMilliseconds() > 600_000) {
      throw new IllegalArgumentException("debounce must be between 0s and 10m, got " + debounce);
    }
  }
}
