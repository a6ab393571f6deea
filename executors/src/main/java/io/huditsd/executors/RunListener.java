package io.huditsd.executors;

/**
 * Told about every change of a run's status, in the order of the changes. Called under the worker pool's lock: it must
 * not block and must not call back into the pool.
 */
@FunctionalInterface
public interface RunListener {
  void onChange(RunRecord record);

  RunListener NONE = record -> {
  };
}
