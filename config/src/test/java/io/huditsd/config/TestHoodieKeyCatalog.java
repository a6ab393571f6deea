package io.huditsd.config;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class TestHoodieKeyCatalog {
  private final HoodieKeyCatalog catalog = HoodieKeyCatalog.instance();

  @Test
  void knowsTheKeysOfHudisConfigClasses() {
    assertThat(catalog.size()).isGreaterThan(500);
    assertThat(catalog.isKnown("hoodie.compact.inline.max.delta.commits")).isTrue();
    assertThat(catalog.isKnown("hoodie.clustering.inline.max.commits")).isTrue();
    assertThat(catalog.isKnown("hoodie.metadata.enable")).isTrue();
    assertThat(catalog.isKnown("hoodie.keep.max.commits")).isTrue();
  }

  @Test
  void acceptsTheKeysThatSelectBinaryCopyClustering() {
    assertThat(HoodieKeyRules.check("tables[0].hoodie", java.util.Map.of(
        "hoodie.clustering.plan.strategy.class",
        "io.huditsd.executors.clustering.JavaBinaryCopyClusteringPlanStrategy",
        "hoodie.clustering.execution.strategy.class",
        "io.huditsd.executors.clustering.JavaBinaryCopyClusteringExecutionStrategy",
        "hoodie.clustering.plan.strategy.target.file.max.bytes", "268435456"))).isEmpty();
  }

  @Test
  void knowsDeprecatedAlternativeKeys() {
    assertThat(catalog.isKnown("hoodie.clean.commits.retained")).isTrue();
    assertThat(catalog.isKnown("hoodie.cleaner.commits.retained")).isTrue();
  }

  @Test
  void acceptsAnyKeyUnderNamespacesThatPluggableClassesRead() {
    assertThat(catalog.isKnown("hoodie.write.lock.zookeeper.url")).isTrue();
    assertThat(catalog.isKnown("hoodie.clustering.plan.strategy.custom.option")).isTrue();
    assertThat(catalog.isKnown("hoodie.payload.anything")).isTrue();
    assertThat(catalog.isKnown("hoodie.made.up.key")).isFalse();
  }

  @Test
  void suggestsTheClosestKeyForATypo() {
    assertThat(catalog.closest("hoodie.keep.max.comits")).contains("hoodie.keep.max.commits");
    assertThat(catalog.closest("hoodie.metadata.enabled")).contains("hoodie.metadata.enable");
    assertThat(catalog.closest("hoodie.nothing.like.any.real.key")).isEmpty();
  }

  @Test
  void editDistanceGivesUpPastItsLimit() {
    assertThat(HoodieKeyCatalog.editDistance("kitten", "sitting", 5)).isEqualTo(3);
    assertThat(HoodieKeyCatalog.editDistance("abc", "abc", 0)).isZero();
    assertThat(HoodieKeyCatalog.editDistance("abc", "abcdefgh", 2)).isEqualTo(3);
    assertThat(HoodieKeyCatalog.editDistance("aaaaaaaa", "bbbbbbbb", 2)).isEqualTo(3);
  }
}
