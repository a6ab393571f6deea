package io.huditsd.sparkrunner;

/** The Spark application that executes one pending compaction or clustering plan (being written; see issue 14). */
public final class PlanRunnerApp {
  private PlanRunnerApp() {
  }

  public static void main(String[] args) {
    throw new UnsupportedOperationException("not yet implemented");
  }
}
