package io.huditsd.executors;

import org.slf4j.LoggerFactory;

import java.util.List;

/**
 * Told about every change of a run's status, in the order of the changes. Called under the worker pool's lock: it must
 * not block and must not call back into the pool.
 */
@FunctionalInterface
public interface RunListener {
  void onChange(RunRecord record);

  RunListener NONE = record -> {
  };

  /** Tells every listener in order; one that throws does not keep the others from hearing. */
  static RunListener all(List<RunListener> listeners) {
    List<RunListener> copy = List.copyOf(listeners);
    return record -> {
      for (RunListener listener : copy) {
        try {
          listener.onChange(record);
        } catch (RuntimeException e) {
          LoggerFactory.getLogger(RunListener.class).warn("Run listener {} failed", listener, e);
        }
      }
    };
  }
}
