package io.huditsd.lock;

import java.util.Locale;
import java.util.Objects;

/**
 * Where the storage lock clients report the requests they send to the store (each HTTP attempt, the SDK's retries
 * included) and the throttling answers they get. Lock providers are built by Hudi through reflection, in writers'
 * JVMs as well as the daemon's, so the sink is process-wide: nothing is recorded until the daemon installs one
 * ({@link LockMetrics#register}), and a writer's JVM needs no metrics library for this class.
 */
public final class LockStorageRequests {
  /** Receives the counts; called on the requesting thread, so it must not block. */
  public interface Sink {
    /** One request of {@code operation} (get, put, head, delete, in lower case) was sent. */
    void requested(String operation);

    /** The store answered a request of {@code operation} with a throttling status (503 SlowDown, 429). */
    void throttled(String operation);
  }

  private static final Sink NONE = new Sink() {
    @Override
    public void requested(String operation) {
    }

    @Override
    public void throttled(String operation) {
    }
  };

  private static volatile Sink sink = NONE;

  private LockStorageRequests() {
  }

  /** Sends the counts of every lock client of this process to {@code newSink} from now on. */
  public static void install(Sink newSink) {
    sink = Objects.requireNonNull(newSink, "newSink is null");
  }

  static void requested(String httpMethod) {
    sink.requested(httpMethod.toLowerCase(Locale.ROOT));
  }

  static void throttled(String httpMethod) {
    sink.throttled(httpMethod.toLowerCase(Locale.ROOT));
  }
}
