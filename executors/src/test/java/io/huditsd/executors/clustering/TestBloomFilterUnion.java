package io.huditsd.executors.clustering;

import org.apache.hudi.common.bloom.BloomFilter;
import org.apache.hudi.common.bloom.BloomFilterFactory;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;

/** The byte-wise union gives what Hudi's own OR of decoded filters gives, serialized. */
class TestBloomFilterUnion {
  @Test
  void simpleFiltersOrLikeHudi() {
    assertUnionLikeHudi("SIMPLE", 1_000, 1_000, new int[] {300, 500, 200});
  }

  @Test
  void dynamicFiltersOfOneRowOrLikeHudi() {
    assertUnionLikeHudi("DYNAMIC_V0", 1_000, 10_000, new int[] {300, 500, 200});
  }

  @Test
  void dynamicFiltersWithMoreRowsGrowTheUnionLikeHudi() {
    // 100 entries a row: 250 keys make three rows, 50 keys one.
    assertUnionLikeHudi("DYNAMIC_V0", 100, 1_000, new int[] {50, 250, 120});
  }

  @Test
  void filtersOfAnotherSizeAreRefusedAndLeaveTheUnionAlone() {
    BloomFilter small = filter("SIMPLE", 1_000, 1_000, 0, 100);
    BloomFilter large = filter("SIMPLE", 5_000, 5_000, 100, 100);
    BloomFilterUnion union = new BloomFilterUnion("SIMPLE", BloomFilterUnion.decode(small.serializeToString()));

    assertThat(union.add(BloomFilterUnion.decode(large.serializeToString()))).isFalse();
    assertThat(union.serialized()).isEqualTo(small.serializeToString());
  }

  @Test
  void decodesFromAViewIntoLargerBytesAsFromTheString() {
    String serialized = filter("DYNAMIC_V0", 1_000, 10_000, 0, 300).serializeToString();
    byte[] ascii = serialized.getBytes(StandardCharsets.US_ASCII);
    // As a footer holds it: the value between other bytes.
    byte[] footer = new byte[ascii.length + 100];
    System.arraycopy(ascii, 0, footer, 60, ascii.length);
    ByteBuffer view = ByteBuffer.wrap(footer, 60, ascii.length);

    assertThat(BloomFilterUnion.decode(view)).isEqualTo(BloomFilterUnion.decode(serialized));
    assertThat(view.position()).as("the view is not consumed").isEqualTo(60);
  }

  private static void assertUnionLikeHudi(String type, int entries, int maxEntries, int[] keysPerFilter) {
    int first = 0;
    BloomFilter expected = null;
    BloomFilterUnion union = null;
    for (int keys : keysPerFilter) {
      BloomFilter filter = filter(type, entries, maxEntries, first, keys);
      String serialized = filter.serializeToString();
      if (union == null) {
        union = new BloomFilterUnion(type, BloomFilterUnion.decode(serialized));
        expected = BloomFilterFactory.fromString(serialized, type);
      } else {
        assertThat(union.add(BloomFilterUnion.decode(serialized))).isTrue();
        expected.or(BloomFilterFactory.fromString(serialized, type));
      }
      first += keys;
    }
    assertThat(union.serialized()).isEqualTo(expected.serializeToString());
    BloomFilter merged = BloomFilterFactory.fromString(union.serialized(), type);
    assertThat(IntStream.range(0, first)).allMatch(key -> merged.mightContain("key-" + key));
  }

  private static BloomFilter filter(String type, int entries, int maxEntries, int first, int keys) {
    BloomFilter filter = BloomFilterFactory.createBloomFilter(entries, 0.000001, maxEntries, type);
    for (int key = first; key < first + keys; key++) {
      filter.add("key-" + key);
    }
    return filter;
  }
}
