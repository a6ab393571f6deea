package io.huditsd.lock;


import org.apache.hadoop.util.ShutdownHookManager;
import org.apache.hudi.client.transaction.lock.StorageBasedLockProviderBridge;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A writer's side of the storage lock, in its own JVM: {@link HadoopStorageLockProvider} on a local table. Commands
 * on standard input: {@code lock MILLIS} (answers {@code ACQUIRED} or {@code NOT_ACQUIRED}), {@code unlock}
 * ({@code RELEASED}), {@code owner} (the owner id of the lock it holds), {@code stop-slowly} ({@code STOPPING_SLOWLY}:
 * from then on a SIGTERM stops it as the daemon stops, see {@link #stopSlowlyOnExit}). Arguments: base path,
 * validity seconds, renewal seconds.
 */
public final class StorageLockHolder {
  private StorageLockHolder() {
  }

  public static void main(String[] arguments) throws Exception {
    HadoopStorageLockProvider provider = new HadoopStorageLockProvider(
        TestHadoopStorageLocks.configuration(arguments[0], arguments[1], arguments[2]), null);
    HudiZookeeperLockHolder.answer("READY");
    BufferedReader commands = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    String command;
    while ((command = commands.readLine()) != null) {
      if (command.startsWith("lock ")) {
        boolean acquired = provider.tryLock(Long.parseLong(command.substring(5)), TimeUnit.MILLISECONDS);
        HudiZookeeperLockHolder.answer(acquired ? "ACQUIRED" : "NOT_ACQUIRED");
      } else if (command.equals("unlock")) {
        provider.unlock();
        HudiZookeeperLockHolder.answer("RELEASED");
      } else if (command.equals("stop-slowly")) {
        stopSlowlyOnExit(provider);
        HudiZookeeperLockHolder.answer("STOPPING_SLOWLY");
      } else if (command.equals("owner")) {
        HudiZookeeperLockHolder.answer(provider.getLock().getOwner());
      }
    }
    provider.close();
  }

  /**
   * At exit, stands for the daemon's stop: a JVM hook (Jetty's, in the daemon) that takes a while and then answers
   * whether the lock is still held ({@code HELD_WHILE_STOPPING} or {@code LOST_WHILE_STOPPING: why}); it does not
   * release it, as a plan still committing when the stop gives up would not. Meanwhile Hadoop's hook thread waits in
   * a hook above the locks' release, as the daemon's {@code FileSystemsOutliveStop} does.
   */
  private static void stopSlowlyOnExit(HadoopStorageLockProvider provider) {
    CountDownLatch stopped = new CountDownLatch(1);
    ShutdownHookManager.get().addShutdownHook(() -> {
      try {
        stopped.await(30, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }, StorageBasedLockProviderBridge.RELEASE_PRIORITY + 1);
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      try {
        // Long enough for any other hook that gives the lock up at exit to have done it.
        Thread.sleep(1500);
        if (provider.getLock() == null) {
          HudiZookeeperLockHolder.answer("LOST_WHILE_STOPPING: the provider holds no lock");
        } else {
          provider.checkStillHeld("the commit");
          HudiZookeeperLockHolder.answer("HELD_WHILE_STOPPING");
        }
      } catch (InterruptedException | RuntimeException e) {
        HudiZookeeperLockHolder.answer("LOST_WHILE_STOPPING: " + e);
      } finally {
        stopped.countDown();
      }
    }, "daemon-stop"));
  }
}
