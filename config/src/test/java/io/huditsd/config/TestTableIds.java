package io.huditsd.config;

import org.junit.jupiter.api.Test;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class TestTableIds {
  @Test
  void derivedIdIsTheDirectoryNameAndAHashOfThePath() {
    // Pinned values: ids appear in URLs, metrics and run history, so they must not change between releases.
    assertThat(TableIds.derive("file:/data/warehouse/orders")).isEqualTo("orders-dbca9b79");
    assertThat(TableIds.derive("hdfs://nn:8020/warehouse/t1")).isEqualTo("t1-c6c07fbd");
  }

  @Test
  void sameNameInDifferentDirectoriesGetsDifferentIds() {
    assertThat(TableIds.derive("file:/data/staging/orders")).isEqualTo("orders-3674e5cb")
        .isNotEqualTo(TableIds.derive("file:/data/warehouse/orders"));
  }

  @Test
  void trailingSlashesDoNotChangeTheId() {
    assertThat(TableIds.derive("file:/data/warehouse/orders/")).isEqualTo("orders-dbca9b79");
    assertThat(TableIds.derive("file:/data/warehouse/orders//")).isEqualTo("orders-dbca9b79");
  }

  @Test
  void derivedIdsAreUrlSafe() {
    String id = TableIds.derive("file:/data/Sales Orders.v2+eu");
    assertThat(id).matches("sales_orders_v2_eu-[0-9a-f]{8}");
    assertThat(URLEncoder.encode(id, StandardCharsets.UTF_8)).isEqualTo(id);
    assertThat(TableIds.requireValid(id)).isEqualTo(id);
  }

  @Test
  void longDirectoryNamesAreCutSoTheIdStaysValid() {
    String id = TableIds.derive("file:/data/" + "x".repeat(300));
    assertThat(id).hasSize(100 + 1 + 8).startsWith("x".repeat(100) + "-");
    assertThat(TableIds.requireValid(id)).isEqualTo(id);
  }

  @Test
  void explicitIdsAreChecked() {
    assertThat(TableIds.requireValid("orders.eu_2-b")).isEqualTo("orders.eu_2-b");
    assertThat(TableIds.requireValid("a".repeat(128))).hasSize(128);
    assertThatThrownBy(() -> TableIds.requireValid("orders eu"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("table id 'orders eu' must be 1-128 characters of letters, digits, '_', '-' or '.', starting with"
            + " a letter or digit");
    assertThatThrownBy(() -> TableIds.requireValid("-orders"))
        .hasMessage("table id '-orders' must be 1-128 characters of letters, digits, '_', '-' or '.', starting with"
            + " a letter or digit");
    assertThatThrownBy(() -> TableIds.requireValid("a".repeat(129)))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> TableIds.requireValid(""))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
