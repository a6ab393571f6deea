package io.huditsd.api.rest;

import io.huditsd.api.rest.CallbackKey.Verdict;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class TestCallbackKey {
  @Test
  void onlyTheExactKeyIsValid() {
    CallbackKey key = new CallbackKey("k3y-of-the-writers");
    assertThat(key.check("k3y-of-the-writers")).isEqualTo(Verdict.VALID);
    assertThat(key.check("k3y-of-the-writer")).isEqualTo(Verdict.INVALID);
    assertThat(key.check("k3y-of-the-writers ")).isEqualTo(Verdict.INVALID);
    assertThat(key.check("")).isEqualTo(Verdict.MISSING);
    assertThat(key.check(null)).isEqualTo(Verdict.MISSING);
    assertThat(key.toString()).doesNotContain("k3y");
  }

  @Test
  void hudisPublicDefaultKeyIsRefusedAsTheDaemonsKey() {
    assertThatThrownBy(() -> new CallbackKey("hudi_write_commit_http_callback"))
        .hasMessageContaining("must not be Hudi's public default");
    assertThatThrownBy(() -> new CallbackKey("")).hasMessageContaining("must not be empty");
  }
}
