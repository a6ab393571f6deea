package io.huditsd.api;

import java.util.Locale;

/**
 * How a {@code once} pass ended, and the exit code that says so. Nothing to do exits 0 as serviced does, so that a
 * cron entry or a CronJob whose tables had nothing due does not count as failed; {@code --detailed-exit-code} gives
 * it a code of its own.
 */
enum OnceOutcome {
  /** At least one run finished, and every run and table succeeded. */
  SERVICED(0),
  /** Every table was read and nothing was due or pending on any of them. */
  NOTHING_TO_DO(0),
  /**
   * Nothing failed, but plans were left to the live processes whose heartbeats hold them: the work is in hand, not
   * done by this pass.
   */
  PLANS_LEFT(0),
  /**
   * A table could not be polled, a plan's last run in the pass failed, or the pass timed out; the other tables were
   * still serviced.
   */
  TABLE_FAILED(1),
  /** Bad flags or a bad configuration file: nothing ran. */
  BAD_INPUT(2);

  /** The exit code of nothing to do under {@code --detailed-exit-code}. */
  static final int NOTHING_TO_DO_DETAILED = 3;
  /** The exit code of plans left to live processes under {@code --detailed-exit-code}. */
  static final int PLANS_LEFT_DETAILED = 4;

  private final int exitCode;

  OnceOutcome(int exitCode) {
    this.exitCode = exitCode;
  }

  int exitCode(boolean detailed) {
    if (!detailed) {
      return exitCode;
    }
    return this == NOTHING_TO_DO ? NOTHING_TO_DO_DETAILED : this == PLANS_LEFT ? PLANS_LEFT_DETAILED : exitCode;
  }

  /** The outcome as {@code --json} names it: serviced, nothing-to-do, plans-left, table-failed, bad-input. */
  String jsonName() {
    return name().toLowerCase(Locale.ROOT).replace('_', '-');
  }
}
