package io.huditsd.executors;

import java.util.Objects;

/**
 * How much of the daemon's heap a plan is expected to hold while it executes in process, worked out from what the
 * plan says before it runs (see {@link HeapEstimator}).
 *
 * @param bytes the estimate
 * @param basis how it was reached, for the run's view and the log lines (e.g. "largest group 128 MiB x 4.0")
 */
public record HeapEstimate(long bytes, String basis) {
  /** For work without a plan to size (archive), or a test that does not care. */
  public static final HeapEstimate NONE = new HeapEstimate(0, "not estimated");

  public HeapEstimate {
    if (bytes < 0) {
      throw new IllegalArgumentException("bytes must not be negative, got " + bytes);
    }
    Objects.requireNonNull(basis, "basis is null");
  }
}
