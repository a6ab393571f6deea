package io.huditsd.config;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/** A copy of a table changes the one field asked for and keeps every other, the wanted indexes included. */
class TestServicedTable {
  private static final MetadataIndexes COLUMN_STATS =
      MetadataIndexes.of(Map.of("column_stats", new IndexOptions(List.of("amount"))));
  private static final ServicedTable TABLE = new ServicedTable("orders", "file:/data/orders",
      Set.of(ServiceType.CLUSTERING), Duration.ofSeconds(5), Map.of("hoodie.clean.commits.retained", "3"),
      COLUMN_STATS);

  @Test
  void overriddenKeysGoOnTopOfTheTablesKeysAndTheRestIsKept() {
    ServicedTable copy = TABLE.withHoodieKeysOverridden(Map.of("hoodie.clean.commits.retained", "4",
        "hoodie.clustering.plan.strategy.max.num.groups", "2"));

    assertThat(copy).isEqualTo(new ServicedTable("orders", "file:/data/orders", Set.of(ServiceType.CLUSTERING),
        Duration.ofSeconds(5), Map.of("hoodie.clean.commits.retained", "4",
        "hoodie.clustering.plan.strategy.max.num.groups", "2"), COLUMN_STATS));
    assertThat(TABLE.hoodieKeys()).as("the original").containsEntry("hoodie.clean.commits.retained", "3");
  }

  @Test
  void eachCopyChangesOneField() {
    assertThat(TABLE.withServices(Set.of(ServiceType.CLEAN))).isEqualTo(new ServicedTable("orders",
        "file:/data/orders", Set.of(ServiceType.CLEAN), Duration.ofSeconds(5), TABLE.hoodieKeys(), COLUMN_STATS));
    assertThat(TABLE.withPollInterval(Duration.ofSeconds(9))).isEqualTo(new ServicedTable("orders",
        "file:/data/orders", Set.of(ServiceType.CLUSTERING), Duration.ofSeconds(9), TABLE.hoodieKeys(),
        COLUMN_STATS));
    assertThat(TABLE.withHoodieKeys(Map.of())).isEqualTo(new ServicedTable("orders", "file:/data/orders",
        Set.of(ServiceType.CLUSTERING), Duration.ofSeconds(5), Map.of(), COLUMN_STATS));
    assertThat(TABLE.withIndexes(MetadataIndexes.none())).isEqualTo(new ServicedTable("orders",
        "file:/data/orders", Set.of(ServiceType.CLUSTERING), Duration.ofSeconds(5), TABLE.hoodieKeys(),
        MetadataIndexes.none()));
  }
}
