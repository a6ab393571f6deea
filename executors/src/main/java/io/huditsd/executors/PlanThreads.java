package io.huditsd.executors;

import java.util.Objects;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ForkJoinWorkerThread;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Runs one plan's work on a ForkJoin pool of its own, {@link #parallelism()} threads wide.
 *
 * <p>Hudi's Java engine spreads a plan over parallel streams ({@code HoodieJavaEngineContext.map}: a compaction's
 * operations, an index build's partitions). A parallel stream runs on the pool of the thread that evaluates it, the
 * common pool when that is not a ForkJoin worker. The daemon widens the common pool well past the cores (see
 * {@code TsdApplication.widenCommonPool}: a deadlock otherwise), so on the common pool a compaction on 2 cores
 * merged 9 file groups at once: no more CPU, but 9 file groups' records on the heap and every merge slower (measured
 * in docs/benchmarks.md, "Compaction"). On this pool the plan gets as many merges at once as it has threads, and the
 * heap estimate ({@link HeapEstimator}) counts exactly that many.
 *
 * <p>The whole plan runs on one of the pool's threads, so Hudi takes and releases the table lock on one thread as it
 * expects (the fenced locks register with {@code CommitFence} per thread), and a worker that waits for its parallel
 * stream runs that stream's tasks itself rather than waiting for a free worker, which rules out the common pool's
 * deadlock here.
 */
public final class PlanThreads {
  private static final AtomicInteger POOLS = new AtomicInteger();

  private final int parallelism;

  /** @param parallelism the pool's threads, which is also how many parts of one plan run at once */
  public PlanThreads(int parallelism) {
    if (parallelism < 1) {
      throw new IllegalArgumentException("parallelism must be at least 1, got " + parallelism);
    }
    this.parallelism = parallelism;
  }

  /** One thread per core: a plan running alone uses the machine, and plans running together share it. */
  public static PlanThreads perCore() {
    return new PlanThreads(Runtime.getRuntime().availableProcessors());
  }

  public int parallelism() {
    return parallelism;
  }

  /**
   * Runs {@code work} on a new pool and waits for it, even when interrupted (a running plan is never abandoned
   * half-way; the interrupt is kept for the caller). The pool's threads end with it.
   *
   * @param name what the threads are named after (the table), for thread dumps
   * @return what {@code work} returned; what it threw is rethrown as it was, a checked exception wrapped
   */
  public <T> T run(String name, Callable<T> work) {
    Objects.requireNonNull(work, "work is null");
    String prefix = "tsd-plan-" + POOLS.incrementAndGet() + "-" + Objects.requireNonNull(name, "name is null") + "-";
    AtomicInteger threads = new AtomicInteger();
    ForkJoinPool pool = new ForkJoinPool(parallelism, forkJoinPool -> {
      ForkJoinWorkerThread thread = ForkJoinPool.defaultForkJoinWorkerThreadFactory.newThread(forkJoinPool);
      thread.setName(prefix + threads.incrementAndGet());
      return thread;
    }, null, false);
    // Not pool.submit: a ForkJoinTask rethrows a failure of another thread as a reflective copy of it, which would
    // change what callers catch and the messages they match.
    CompletableFuture<T> result = new CompletableFuture<>();
    try {
      pool.execute(() -> {
        try {
          result.complete(work.call());
        } catch (Throwable t) {
          result.completeExceptionally(t);
        }
      });
      return await(result);
    } finally {
      pool.shutdown();
    }
  }

  private static <T> T await(Future<T> future) {
    boolean interrupted = false;
    try {
      while (true) {
        try {
          return future.get();
        } catch (InterruptedException e) {
          interrupted = true;
        } catch (ExecutionException e) {
          Throwable cause = e.getCause();
          if (cause instanceof RuntimeException runtime) {
            throw runtime;
          }
          if (cause instanceof Error error) {
            throw error;
          }
          throw new IllegalStateException(cause);
        }
      }
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
