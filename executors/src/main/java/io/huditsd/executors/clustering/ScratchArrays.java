package io.huditsd.executors.clustering;

import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;

/**
 * Byte arrays lent for one use and given back after it, shared by the threads of one clustering group's layout. A
 * group of a few hundred small base files otherwise allocates, and the JVM zeroes, each file's footer (about 600 KB
 * at Hudi's default bloom filter) and its decoded bloom filter (about 430 KB) anew: 200 MB for the benchmark's 200
 * files, in arrays too large for a thread's allocation buffer, so the footer readers took the heap's lock and
 * waited on collections (a wall-clock profile: memset, futex waits and the allocation slow path were a third of
 * their samples). Only a few arrays are in use at once (the files read ahead), and a file's arrays have the sizes
 * of the one before: its filter exactly, its footer within a few bytes.
 *
 * <p>An array given back must not be used by the giver afterwards. One that does not fit a later request is
 * dropped; at most {@code capacity} are kept.
 */
final class ScratchArrays {
  /** A new array for a footer is this much larger than asked, so that the next file's, a little longer, fits it. */
  private static final int SLACK_DIVISOR = 16;

  private final BlockingQueue<byte[]> spares;

  ScratchArrays(int capacity) {
    if (capacity <= 0) {
      throw new IllegalArgumentException("capacity must be positive: " + capacity);
    }
    this.spares = new ArrayBlockingQueue<>(capacity);
  }

  /** An array of at least {@code length} bytes, its content undefined. */
  byte[] atLeast(int length) {
    byte[] spare = spares.poll();
    if (spare != null && spare.length >= length) {
      return spare;
    }
    return new byte[(int) Math.min(Integer.MAX_VALUE - 8, length + (long) length / SLACK_DIVISOR)];
  }

  /** An array of exactly {@code length} bytes, its content undefined. */
  byte[] exactly(int length) {
    byte[] spare = spares.poll();
    return spare != null && spare.length == length ? spare : new byte[length];
  }

  /** Takes {@code array} back for a later request; dropped when {@code capacity} arrays are already kept. */
  void giveBack(byte[] array) {
    if (array != null) {
      spares.offer(array);
    }
  }
}
