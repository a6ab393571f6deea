package io.huditsd.lock;


import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

/**
 * A writer's side of the storage lock, in its own JVM: {@link HadoopStorageLockProvider} on a local table. Commands
 * on standard input: {@code lock MILLIS} (answers {@code ACQUIRED} or {@code NOT_ACQUIRED}), {@code unlock}
 * ({@code RELEASED}), {@code owner} (the owner id of the lock it holds). Arguments: base path, validity seconds,
 * renewal seconds.
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
      } else if (command.equals("owner")) {
        HudiZookeeperLockHolder.answer(provider.getLock().getOwner());
      }
    }
    provider.close();
  }
}
