package io.huditsd.executors.clustering;

import org.apache.hudi.common.bloom.BloomFilter;
import org.apache.hudi.common.bloom.BloomFilterFactory;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.Random;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

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

  @Test
  void decodesIntoLentArraysAsTheJdkDecodes() {
    Random random = new Random(42);
    ScratchArrays arrays = new ScratchArrays(2);
    for (int length = 0; length < 64; length++) {
      byte[] original = new byte[length];
      random.nextBytes(original);
      String encoded = Base64.getEncoder().encodeToString(original);
      // Between other bytes, as a footer holds it.
      byte[] footer = ("xy" + encoded + "z").getBytes(StandardCharsets.US_ASCII);
      ByteBuffer view = ByteBuffer.wrap(footer, 2, encoded.length());

      byte[] decoded = BloomFilterUnion.decode(view, arrays);

      assertThat(decoded).as("%d bytes, encoded %s", length, encoded).isEqualTo(original);
      assertThat(view.position()).isEqualTo(2);
      arrays.giveBack(decoded);
    }
    String filter = filter("DYNAMIC_V0", 1_000, 10_000, 0, 300).serializeToString();
    byte[] first = BloomFilterUnion.decode(ByteBuffer.wrap(filter.getBytes(StandardCharsets.US_ASCII)), arrays);
    assertThat(first).isEqualTo(Base64.getDecoder().decode(filter));
    arrays.giveBack(first);
    byte[] second = BloomFilterUnion.decode(ByteBuffer.wrap(filter.getBytes(StandardCharsets.US_ASCII)), arrays);
    assertThat(second).as("the array given back, used again").isSameAs(first)
        .isEqualTo(Base64.getDecoder().decode(filter));
  }

  @Test
  void leavesWhatIsNotPaddedBase64ToTheJdk() {
    ScratchArrays arrays = new ScratchArrays(2);
    // Unpadded, which the JDK's decoder accepts too.
    assertThat(BloomFilterUnion.decode(ascii("QUJD" + "RA"), arrays)).isEqualTo("ABCD".getBytes(StandardCharsets.US_ASCII));
    for (String bad : List.of("QU*D", "Q===", "QUJD====", "QUJ=RA==", "QUJD\nRA==")) {
      assertThatThrownBy(() -> BloomFilterUnion.decode(ascii(bad), arrays)).as(bad)
          .isInstanceOf(IllegalArgumentException.class);
      assertThatThrownBy(() -> Base64.getDecoder().decode(bad)).as("the JDK on %s", bad)
          .isInstanceOf(IllegalArgumentException.class);
    }
  }

  private static ByteBuffer ascii(String text) {
    return ByteBuffer.wrap(text.getBytes(StandardCharsets.US_ASCII));
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
