package io.huditsd.config;

import org.junit.jupiter.api.Test;

import static io.huditsd.config.ConfigurationFiles.parse;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The auth section: what is protected by default, and combinations that would not do what they say. */
class TestAuthConfig {
  @Test
  void theAdminPortIsClosedUnlessOpenedExplicitly() throws Exception {
    assertThat(parse("tables: []").getAuth().openAdmin()).isFalse();
    assertThat(parse("auth: {openAdmin: true}").getAuth().openAdmin()).isTrue();
  }

  @Test
  void openAdminWithATokenIsRefused() {
    assertThatThrownBy(() -> parse("auth: {tokenFile: /etc/tsd/token, openAdmin: true}"))
        .hasStackTraceContaining("openAdmin applies only without a token: with tokenFile or tokenEnv set, the admin "
            + "port requires the token");
  }
}
