package io.huditsd.executors;

/** Told about every change of a run's status; must not block. */
@FunctionalInterface
public interface RunListener {
  void onChange(RunRecord record);

  RunListener NONE = record -> {
  };
}
