package io.huditsd.scheduler;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;

/**
 * When each table polls first: the k-th table registered starts at the fraction {@code k * (golden ratio)} (mod 1)
 * of its interval from now. That sequence fills the interval evenly for any number of tables, however many came
 * before (at most three distinct gaps between neighbours, the largest under 2.7 times the mean), so a thousand
 * tables registered at start poll at a steady rate rather than in bursts; uniform random offsets would leave
 * seconds with twice the mean and others empty. Later polls keep each table's phase, so the spread lasts.
 */
public final class FirstPolls {
  /** The fractional part of the golden ratio: the Weyl sequence k * PHI mod 1 with the most even spread. */
  private static final double PHI = 0.6180339887498949;

  private final Clock clock;
  private final AtomicLong registered = new AtomicLong();

  public FirstPolls(Clock clock) {
    this.clock = Objects.requireNonNull(clock, "clock is null");
  }

  /** The first poll of the next table registered, polled every {@code interval}. */
  public Instant next(Duration interval) {
    Objects.requireNonNull(interval, "interval is null");
    double fraction = (registered.getAndIncrement() * PHI) % 1.0;
    return clock.instant().plusMillis((long) (fraction * interval.toMillis()));
  }
}
