package io.huditsd.config;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** {@code workers.memoryBudget} as written in tsd.yml, resolved against a maximum heap. */
class TestMemoryBudget {
  private static final long HEAP = 2L << 30;

  @Test
  void aPercentageIsAShareOfTheMaximumHeap() {
    assertThat(MemoryBudget.parse("60%").resolve(HEAP)).isEqualTo((long) (HEAP * 0.6));
    assertThat(MemoryBudget.parse(" 100 % ").resolve(HEAP)).isEqualTo(HEAP);
    assertThat(MemoryBudget.defaults().resolve(1000)).isEqualTo(600);
  }

  @Test
  void aSizeTakesBinaryAndDecimalUnits() {
    assertThat(MemoryBudget.parse("1536MiB").resolve(HEAP)).isEqualTo(1536L << 20);
    assertThat(MemoryBudget.parse("1.5GiB").resolve(HEAP)).isEqualTo(1536L << 20);
    assertThat(MemoryBudget.parse("800mb").resolve(HEAP)).isEqualTo(800_000_000L);
    assertThat(MemoryBudget.parse("4096").resolve(HEAP)).isEqualTo(4096);
  }

  @Test
  void aSizeAboveTheHeapIsRefusedWhenResolved() {
    assertThatThrownBy(() -> MemoryBudget.parse("4GiB").resolve(HEAP))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("workers.memoryBudget 4GiB (4294967296 bytes) is more than the maximum heap of 2147483648 bytes"
            + " (-Xmx): raise -Xmx (TSD_JAVA_OPTS) or lower the budget, e.g. to 60%");
  }

  @Test
  void badValuesNameTheKeyAndTheFormsAccepted() {
    assertThatThrownBy(() -> MemoryBudget.parse("0%"))
        .hasMessage("workers.memoryBudget must be between 1% and 100% of the maximum heap, got 0%");
    assertThatThrownBy(() -> MemoryBudget.parse("1.5 parsecs"))
        .hasMessage("workers.memoryBudget must be a size such as 1536MiB or 2GiB, or a percentage of the maximum"
            + " heap such as 60%, got '1.5 parsecs'");
    assertThatThrownBy(() -> MemoryBudget.parse("0MiB"))
        .hasMessage("workers.memoryBudget must be more than 0 bytes, got '0MiB'");
  }
}
