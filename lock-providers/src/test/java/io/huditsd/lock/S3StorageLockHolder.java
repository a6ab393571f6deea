package io.huditsd.lock;

import org.apache.hadoop.conf.Configuration;
import org.apache.hudi.storage.StoragePath;
import org.apache.hudi.storage.hadoop.HadoopStorageConfiguration;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

/**
 * A writer's side of the S3 storage lock, in its own JVM: {@link S3StorageLockProvider} on an {@code s3a} table, and
 * timeline writes through {@link FencedHadoopStorage} as a commit under the lock makes them. Commands on standard
 * input: {@code lock MILLIS} ({@code ACQUIRED} or {@code NOT_ACQUIRED}), {@code unlock} ({@code RELEASED}),
 * {@code owner} (the owner id of the lock it holds), {@code write FILE} (creates {@code .hoodie/timeline/FILE} on
 * this thread, which took the lock: {@code WRITTEN}, {@code REFUSED} and the fence's message, or {@code FAILED} and
 * another error). Arguments: base path,
 * validity seconds, renewal seconds, then the S3A keys as {@code KEY=VALUE}.
 */
public final class S3StorageLockHolder {
  private S3StorageLockHolder() {
  }

  public static void main(String[] arguments) throws Exception {
    String basePath = arguments[0];
    Configuration hadoop = new Configuration();
    for (int i = 3; i < arguments.length; i++) {
      String[] keyValue = arguments[i].split("=", 2);
      hadoop.set(keyValue[0], keyValue[1]);
    }
    HadoopStorageConfiguration storage = new HadoopStorageConfiguration(hadoop);
    S3StorageLockProvider provider = new S3StorageLockProvider(
        TestHadoopStorageLocks.configuration(basePath, arguments[1], arguments[2]), storage);
    FencedHadoopStorage timeline = new FencedHadoopStorage(new StoragePath(basePath), storage);
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
      } else if (command.startsWith("write ")) {
        StoragePath file = new StoragePath(basePath + "/.hoodie/timeline/" + command.substring(6));
        try (OutputStream out = timeline.create(file, false)) {
          out.write("{}".getBytes(StandardCharsets.UTF_8));
          HudiZookeeperLockHolder.answer("WRITTEN");
        } catch (LockLostException e) {
          HudiZookeeperLockHolder.answer("REFUSED " + e.getMessage());
        } catch (IOException | RuntimeException e) {
          // Not refused by the fence: e.g. the AWS SDK aborting the write of a thread Hudi interrupted.
          HudiZookeeperLockHolder.answer("FAILED " + e);
        }
      }
    }
    provider.close();
  }
}
