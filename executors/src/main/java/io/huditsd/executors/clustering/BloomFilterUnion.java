package io.huditsd.executors.clustering;

import org.apache.hudi.common.bloom.BloomFilter;
import org.apache.hudi.common.bloom.BloomFilterTypeCode;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Base64;
import java.util.Objects;

/**
 * The OR of Hudi bloom filters (the footer's {@code org.apache.hudi.bloomfilter}), computed on their serialized
 * form. Hudi's own {@link BloomFilter#or} needs each filter decoded into a bit set one bit at a time (about 8 ms for a
 * default 60,000-entry filter, most of the CPU of copying a small file); filters of the same shape are OR-ed here
 * byte by byte instead, which gives the same serialized result. Filters of different shapes (sizes, hash counts:
 * the writers' settings changed) cannot be OR-ed, by Hudi either; their group is rewritten.
 *
 * <p>Serialized layouts (Hadoop's filter format, as Hudi writes it): a header of version (int, -1), hash count
 * (int), hash type (byte) and vector size in bits (int); then for {@code SIMPLE} the bit vector, and for
 * {@code DYNAMIC_V0} the row capacity (int), records in the current row (int), the row count (int) and each row as
 * a header and a bit vector.
 */
final class BloomFilterUnion {
  private static final int HEADER = 13;
  private static final int DYNAMIC_HEADER = HEADER + 12;

  /** Base64's standard alphabet: the value of each character, -1 for every other byte. */
  private static final int[] SEXTETS = new int[256];

  static {
    Arrays.fill(SEXTETS, -1);
    String alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    for (int i = 0; i < alphabet.length(); i++) {
      SEXTETS[alphabet.charAt(i)] = i;
    }
  }

  private final String typeCode;
  /** The union so far, serialized. */
  private byte[] bytes;

  /**
   * @param typeCode the filters' type ({@code SIMPLE} or {@code DYNAMIC_V0})
   * @param first the first filter, Base64-decoded; not changed
   */
  BloomFilterUnion(String typeCode, byte[] first) {
    this.typeCode = Objects.requireNonNull(typeCode, "typeCode is null");
    if (!isKnownType(typeCode)) {
      throw new IllegalArgumentException("Bloom filter type code not recognizable: " + typeCode);
    }
    this.bytes = first.clone();
  }

  static boolean isKnownType(String typeCode) {
    return typeCode.equalsIgnoreCase(BloomFilterTypeCode.SIMPLE.name())
        || typeCode.equalsIgnoreCase(BloomFilterTypeCode.DYNAMIC_V0.name());
  }

  static byte[] decode(String serialized) {
    return Base64.getDecoder().decode(serialized);
  }

  /** Decodes the Base64 bytes from {@code serialized}'s position to its limit; the buffer is not changed. */
  static byte[] decode(ByteBuffer serialized) {
    ByteBuffer decoded = Base64.getDecoder().decode(serialized.duplicate());
    return decoded.hasArray() && decoded.arrayOffset() == 0 && decoded.remaining() == decoded.array().length
        ? decoded.array() : Arrays.copyOfRange(decoded.array(), decoded.arrayOffset() + decoded.position(),
        decoded.arrayOffset() + decoded.limit());
  }

  /**
   * Decodes the Base64 bytes from {@code serialized}'s position to its limit into an array of exactly the decoded
   * length lent by {@code arrays}; the buffer is not changed. Padded Base64 of the standard alphabet, as Hudi writes
   * it, is decoded here; anything else is left to the JDK's decoder, which decodes it alike or says what is wrong.
   */
  static byte[] decode(ByteBuffer serialized, ScratchArrays arrays) {
    int length = serialized.remaining();
    if (!serialized.hasArray() || length == 0 || length % 4 != 0) {
      return decode(serialized);
    }
    byte[] source = serialized.array();
    int from = serialized.arrayOffset() + serialized.position();
    int end = from + length;
    int padding = source[end - 1] == '=' ? (source[end - 2] == '=' ? 2 : 1) : 0;
    byte[] decoded = arrays.exactly(length / 4 * 3 - padding);
    int out = 0;
    int fullQuads = padding == 0 ? end : end - 4;
    for (int in = from; in < fullQuads; in += 4) {
      int bits = SEXTETS[source[in] & 0xff] << 18 | SEXTETS[source[in + 1] & 0xff] << 12
          | SEXTETS[source[in + 2] & 0xff] << 6 | SEXTETS[source[in + 3] & 0xff];
      if (bits < 0) {
        // Not of the alphabet (a sextet of -1 makes the whole negative).
        arrays.giveBack(decoded);
        return decode(serialized);
      }
      decoded[out++] = (byte) (bits >> 16);
      decoded[out++] = (byte) (bits >> 8);
      decoded[out++] = (byte) bits;
    }
    if (padding > 0) {
      int bits = SEXTETS[source[end - 4] & 0xff] << 18 | SEXTETS[source[end - 3] & 0xff] << 12
          | (padding == 1 ? SEXTETS[source[end - 2] & 0xff] << 6 : 0);
      if (bits < 0) {
        arrays.giveBack(decoded);
        return decode(serialized);
      }
      decoded[out++] = (byte) (bits >> 16);
      if (padding == 1) {
        decoded[out] = (byte) (bits >> 8);
      }
    }
    return decoded;
  }

  String typeCode() {
    return typeCode;
  }

  /**
   * ORs {@code other} (Base64-decoded, of this union's type) into the union; {@code other} is not changed.
   *
   * @return false, leaving the union as it was, when {@code other} has another shape
   */
  boolean add(byte[] other) {
    byte[] merged = dynamic() ? orDynamic(bytes, other) : orSimple(bytes, other);
    if (merged == null) {
      return false;
    }
    bytes = merged;
    return true;
  }

  String serialized() {
    return Base64.getEncoder().encodeToString(bytes);
  }

  private boolean dynamic() {
    return typeCode.equalsIgnoreCase(BloomFilterTypeCode.DYNAMIC_V0.name());
  }

  /** Null when the shapes differ; then nothing was changed. */
  private static byte[] orSimple(byte[] union, byte[] other) {
    if (union.length != other.length || union.length < HEADER || !Arrays.equals(union, 0, HEADER, other, 0, HEADER)) {
      return null;
    }
    for (int i = HEADER; i < union.length; i++) {
      union[i] |= other[i];
    }
    return union;
  }

  /**
   * Null when the shapes differ; then nothing was changed. As Hudi's OR does, the union grows to the longer
   * filter's row count, and keeps the first filter's record count.
   */
  private static byte[] orDynamic(byte[] union, byte[] other) {
    if (union.length < DYNAMIC_HEADER || other.length < DYNAMIC_HEADER
        || !Arrays.equals(union, 0, HEADER + 4, other, 0, HEADER + 4)) {
      return null;
    }
    int vectorBits = ByteBuffer.wrap(union, 9, 4).getInt();
    int rowSize = HEADER + (int) (((long) vectorBits + 7) / 8);
    int unionRows = ByteBuffer.wrap(union, HEADER + 8, 4).getInt();
    int otherRows = ByteBuffer.wrap(other, HEADER + 8, 4).getInt();
    if (union.length != DYNAMIC_HEADER + (long) unionRows * rowSize
        || other.length != DYNAMIC_HEADER + (long) otherRows * rowSize) {
      return null;
    }
    for (int row = 0; row < Math.min(unionRows, otherRows); row++) {
      int start = DYNAMIC_HEADER + row * rowSize;
      if (!Arrays.equals(union, start, start + HEADER, other, start, start + HEADER)) {
        return null;
      }
    }
    byte[] result = union;
    if (otherRows > unionRows) {
      // The other filter's extra rows join as they are (an empty row OR-ed with them).
      result = Arrays.copyOf(union, other.length);
      System.arraycopy(other, union.length, result, union.length, other.length - union.length);
      ByteBuffer.wrap(result, HEADER + 8, 4).putInt(otherRows);
    }
    for (int row = 0; row < Math.min(unionRows, otherRows); row++) {
      int start = DYNAMIC_HEADER + row * rowSize;
      for (int i = start + HEADER; i < start + rowSize; i++) {
        result[i] |= other[i];
      }
    }
    return result;
  }
}
