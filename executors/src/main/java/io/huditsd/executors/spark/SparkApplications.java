package io.huditsd.executors.spark;

import org.apache.spark.launcher.SparkAppHandle;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * The Spark applications of this daemon's runs, by run key: what {@code /runs} shows (engine, application id, state,
 * UI address) and the handle that kills one. Each entry's view is a {@link SparkApplication} replaced whole on each
 * change. The entry of a finished application stays (the newest {@value #FINISHED_KEPT}) so that a run's final view,
 * built after its engine returned, still shows the application; a later submission of the same plan replaces it.
 *
 * <p>Thread-safe: the launcher's threads report changes, the workers register and the REST threads read and kill.
 * No method blocks; {@link #kill} only asks the handle, which ends the child process without waiting for it.
 */
public final class SparkApplications {
  static final int FINISHED_KEPT = 512;

  /** Why an application was killed, if the daemon killed it. */
  public enum KillReason {
    /** {@code DELETE /runs/{runId}}: the run ends cancelled. */
    CANCELLED,
    /** {@code spark.timeout} passed: the attempt fails and is retried. */
    TIMEOUT
  }

  private record Entry(SparkApplication view, Optional<SparkAppHandle> handle, Optional<KillReason> killed) {
  }

  // Guarded by this; insertion order is age, for dropping the oldest finished entries.
  private final Map<String, Entry> entries = new LinkedHashMap<>();

  /** Starts tracking {@code application}, replacing what an earlier submission of the same run key left. */
  synchronized void submitted(SparkApplication application, SparkAppHandle handle) {
    entries.remove(application.runKey());
    entries.put(application.runKey(), new Entry(application, Optional.of(Objects.requireNonNull(handle)),
        Optional.empty()));
    dropOldFinished();
  }

  /** Records a change the launcher reported. */
  synchronized void changed(SparkApplication application) {
    Entry entry = entries.get(application.runKey());
    if (entry != null && entry.view().submittedAt().equals(application.submittedAt())) {
      entries.put(application.runKey(), new Entry(application, entry.handle(), entry.killed()));
    }
  }

  /** The run is over: its handle is let go, its view stays for the run's final record. */
  synchronized void ended(String runKey) {
    Entry entry = entries.get(runKey);
    if (entry != null) {
      entries.put(runKey, new Entry(entry.view(), Optional.empty(), entry.killed()));
    }
  }

  /** The application of run {@code runKey}, running or finished, if one was submitted. */
  public synchronized Optional<SparkApplication> find(String runKey) {
    return Optional.ofNullable(entries.get(runKey)).map(Entry::view);
  }

  /** Why the daemon killed the application of {@code runKey}, if it did. */
  synchronized Optional<KillReason> killReason(String runKey) {
    return Optional.ofNullable(entries.get(runKey)).flatMap(Entry::killed);
  }

  /**
   * Kills the running application of {@code runKey} ({@link SparkAppHandle#kill()}: the launcher asks the application
   * to stop and ends the spark-submit process).
   *
   * @return whether there was a running application to kill
   */
  public boolean kill(String runKey, KillReason reason) {
    SparkAppHandle handle;
    synchronized (this) {
      Entry entry = entries.get(runKey);
      if (entry == null || entry.handle().isEmpty() || entry.killed().isPresent()) {
        return false;
      }
      handle = entry.handle().get();
      entries.put(runKey, new Entry(entry.view(), entry.handle(), Optional.of(reason)));
    }
    // Outside the lock: the handle calls the listener, which reports back here.
    handle.kill();
    return true;
  }

  /** Applications still running (with a handle). */
  public synchronized int runningCount() {
    return (int) entries.values().stream().filter(entry -> entry.handle().isPresent()).count();
  }

  private void dropOldFinished() {
    int finished = (int) entries.values().stream().filter(entry -> entry.handle().isEmpty()).count();
    var iterator = entries.values().iterator();
    while (finished > FINISHED_KEPT && iterator.hasNext()) {
      if (iterator.next().handle().isEmpty()) {
        iterator.remove();
        finished--;
      }
    }
  }
}
