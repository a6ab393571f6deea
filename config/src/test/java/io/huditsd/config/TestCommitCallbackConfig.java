package io.huditsd.config;

import org.junit.jupiter.api.Test;

import java.time.Duration;

import static io.huditsd.config.ConfigurationFiles.parse;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The commitCallbacks section: off unless present, and a key source required. */
class TestCommitCallbackConfig {
  @Test
  void offWithoutTheSectionAndTwoSecondsOfDebounceByDefault() throws Exception {
    assertThat(parse("tables: []").getCommitCallbacks()).isEmpty();
    CommitCallbackConfig callbacks = parse("commitCallbacks: {keyEnv: TSD_CALLBACK_KEY}").getCommitCallbacks()
        .orElseThrow();
    assertThat(callbacks.keyEnv()).contains("TSD_CALLBACK_KEY");
    assertThat(callbacks.debounce().toJavaDuration()).isEqualTo(Duration.ofSeconds(2));
    assertThat(parse("commitCallbacks: {keyFile: /etc/tsd/key, debounce: 0s}").getCommitCallbacks().orElseThrow()
        .debounce().toJavaDuration()).isZero();
  }

  @Test
  void aKeySourceIsRequiredAndOnlyOne() {
    assertThatThrownBy(() -> parse("commitCallbacks: {debounce: 1s}"))
        .hasStackTraceContaining("set keyFile or keyEnv (not both)");
    assertThatThrownBy(() -> parse("commitCallbacks: {keyFile: /k, keyEnv: K}"))
        .hasStackTraceContaining("set keyFile or keyEnv (not both)");
    assertThatThrownBy(() -> parse("commitCallbacks: {keyEnv: K, debounce: 1h}"))
        .hasStackTraceContaining("debounce must be between 0s and 10m, got 1 hour");
    assertThatThrownBy(() -> parse("commitCallbacks: {keyEnv: K, debouce: 1s}"))
        .hasStackTraceContaining("debouce");
  }
}
