package io.huditsd.api;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import sun.misc.Signal;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.IntConsumer;

/**
 * Turns SIGTERM and SIGINT into an orderly stop that runs before the JVM's shutdown rather than inside it.
 *
 * <p>Left to the JVM, a signal starts its shutdown: all shutdown hooks at once (Jetty's, which stops the daemon;
 * Hadoop's, which closes the file systems), and from then on nothing may register a hook. Hudi builds a lock provider
 * for every transaction, and its storage lock provider registers a hook in its constructor, so a plan committing
 * during the stop failed with "Shutdown in progress" and stayed inflight; and a signal during start-up reached no
 * stop at all (Jetty stops only a server that finished starting), so polls and runs went on failing until the file
 * systems' hook gave up. Here the signal only starts the steps, in the order they were added, on a thread of their
 * own while the JVM runs as usual; the JVM's exit, with its hooks, comes after them, with the status the signal
 * would have given (128 + its number).
 *
 * <p>One per process, as signals are: each command adds the steps that stop what it creates, when it creates them.
 */
final class OrderlyStop {
  /** One step of the stop: the daemon's, the demo writer's, a {@code once} pass's. */
  @FunctionalInterface
  interface Step {
    void stop() throws Exception;
  }

  private record NamedStep(String name, Step step) {
  }

  private static final Logger LOG = LoggerFactory.getLogger(OrderlyStop.class);
  private static final OrderlyStop PROCESS = new OrderlyStop(ExitStatus::exit);

  private final IntConsumer exit;
  private final Object lock = new Object();
  // Guarded by lock: the steps not run yet, the signal once one came, and whether the stop ran its last step.
  private final List<NamedStep> steps = new ArrayList<>();
  private String signal;
  private boolean done;

  /** @param exit ends the process with the given status once every step has run */
  OrderlyStop(IntConsumer exit) {
    this.exit = Objects.requireNonNull(exit, "exit is null");
  }

  /** The process's: the one that {@link #handleSignals()} installed in {@code main}. */
  static OrderlyStop process() {
    return PROCESS;
  }

  /** From now on SIGTERM and SIGINT stop in order; where the JVM refuses (java -Xrs) its own handling stays. */
  void handleSignals() {
    for (String name : List.of("TERM", "INT")) {
      try {
        Signal.handle(new Signal(name), received -> signalled("SIG" + received.getName(), 128 + received.getNumber()));
      } catch (IllegalArgumentException e) {
        LOG.debug("SIG{} is left to the JVM: {}", name, e.getMessage());
      }
    }
  }

  /**
   * Adds {@code step}, to run after the steps added before it. Added once the stop has begun, it runs all the same:
   * in the stop when that is still running (a daemon created during start-up is stopped before it starts), or at
   * once on the caller's thread when the stop is over and the JVM exits.
   */
  void add(String name, Step step) {
    NamedStep named = new NamedStep(Objects.requireNonNull(name, "name is null"),
        Objects.requireNonNull(step, "step is null"));
    synchronized (lock) {
      if (!done) {
        steps.add(named);
        return;
      }
    }
    run(named);
  }

  /** Whether a signal has begun the stop. */
  boolean isStopping() {
    synchronized (lock) {
      return signal != null;
    }
  }

  /** Begins the stop on its own thread; a second signal changes nothing (SIGKILL is the way to hurry it). */
  void signalled(String name, int exitStatus) {
    synchronized (lock) {
      if (signal != null) {
        LOG.info("{} received: already stopping after {}", name, signal);
        return;
      }
      signal = name;
    }
    LOG.info("{} received: stopping (no new work; running plans may finish, see workers.shutdownGracePeriod)", name);
    Thread thread = new Thread(() -> stop(exitStatus), "tsd-stop");
    thread.start();
  }

  private void stop(int exitStatus) {
    long start = System.nanoTime();
    while (true) {
      NamedStep next;
      synchronized (lock) {
        if (steps.isEmpty()) {
          done = true;
          break;
        }
        next = steps.remove(0);
      }
      run(next);
    }
    LOG.info("Stopped in {} ms", (System.nanoTime() - start) / 1_000_000);
    exit.accept(exitStatus);
  }

  private static void run(NamedStep step) {
    try {
      step.step().stop();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      LOG.warn("Stopping {} was interrupted", step.name());
    } catch (Exception | Error e) {
      // The steps after it still run: the locks and files they release matter more than this failure.
      LOG.error("Stopping {} failed", step.name(), e);
    }
  }
}
