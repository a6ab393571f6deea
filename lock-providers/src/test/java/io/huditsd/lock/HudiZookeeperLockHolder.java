package io.huditsd.lock;

import org.apache.hudi.client.transaction.lock.ZookeeperBasedLockProvider;
import org.apache.hudi.common.config.LockConfiguration;
import org.apache.hudi.common.config.TypedProperties;
import org.apache.hudi.storage.hadoop.HadoopStorageConfiguration;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

/**
 * A writer's side of the ZooKeeper lock, in its own JVM: Hudi's own {@link ZookeeperBasedLockProvider}, as a Spark
 * writer configured with it would take it. Commands on standard input: {@code lock MILLIS} (answers
 * {@code ACQUIRED} or {@code NOT_ACQUIRED}), {@code unlock} ({@code RELEASED}). Arguments: connect string, base path,
 * lock key, session timeout in ms.
 */
public final class HudiZookeeperLockHolder {
  private HudiZookeeperLockHolder() {
  }

  public static void main(String[] arguments) throws Exception {
    TypedProperties properties = new TypedProperties();
    properties.setProperty(LockConfiguration.ZK_CONNECT_URL_PROP_KEY, arguments[0]);
    properties.setProperty(LockConfiguration.ZK_BASE_PATH_PROP_KEY, arguments[1]);
    properties.setProperty(LockConfiguration.ZK_LOCK_KEY_PROP_KEY, arguments[2]);
    properties.setProperty(LockConfiguration.ZK_SESSION_TIMEOUT_MS_PROP_KEY, arguments[3]);
    properties.setProperty(LockConfiguration.LOCK_HOLDER_APP_ID_KEY, "spark-writer");
    ZookeeperBasedLockProvider provider = new ZookeeperBasedLockProvider(new LockConfiguration(properties),
        new HadoopStorageConfiguration(new org.apache.hadoop.conf.Configuration()));
    answer("READY");
    BufferedReader commands = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    String command;
    while ((command = commands.readLine()) != null) {
      if (command.startsWith("lock ")) {
        boolean acquired;
        try {
          acquired = provider.tryLock(Long.parseLong(command.substring(5)), TimeUnit.MILLISECONDS);
        } catch (RuntimeException e) {
          // Hudi's provider throws HoodieLockException when the wait timed out.
          acquired = false;
        }
        answer(acquired ? "ACQUIRED" : "NOT_ACQUIRED");
      } else if (command.equals("unlock")) {
        provider.unlock();
        answer("RELEASED");
      }
    }
    provider.close();
  }

  static void answer(String line) {
    System.out.println(ChildJvm.ANSWER + line);
    System.out.flush();
  }
}
