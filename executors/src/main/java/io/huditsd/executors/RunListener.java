package io.huditsd.executors;

/** Told about every change of a run's status; must not block. */
@FunctionalInterface
public interface RunListener {
  void onChange(RunRecord record);

  RunListener NONE = record -> {
  };

  /** Tells every listener in order; one that throws does not keep the others from hearing. */
  static RunListener all(java.util.List<RunListener> listeners) {
    java.util.List<RunListener> copy = java.util.List.copyOf(listeners);
    return record -> {
      for (RunListener listener : copy) {
        try {
          listener.onChange(record);
        } catch (RuntimeException e) {
          org.slf4j.LoggerFactory.getLogger(RunListener.class).warn("Run listener {} failed", listener, e);
        }
      }
    };
  }
}
