package io.huditsd.lock;

import org.apache.hudi.common.config.LockConfiguration;
import org.apache.hudi.storage.hadoop.HadoopStorageConfiguration;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * The daemon's own holders of one table's lock take turns in process: a second holder waits for the first's release
 * in {@link LockTurns} before it asks the table lock (Hudi's storage lock here, which would otherwise have it poll
 * once a second), a turn is reentrant on its thread, and other tables are not held back.
 */
class TestLockTurns {
  private static final Duration WAIT = Duration.ofSeconds(10);

  private final ExecutorService threads = Executors.newCachedThreadPool();
  private Path basePath;
  private String tableId;

  @BeforeEach
  void createTable(TestInfo test) throws IOException {
    String name = test.getTestMethod().orElseThrow().getName();
    basePath = Path.of("target", "lock-turns", name).toAbsolutePath();
    if (Files.exists(basePath)) {
      try (Stream<Path> walk = Files.walk(basePath)) {
        for (Path path : walk.sorted(Comparator.reverseOrder()).toList()) {
          Files.delete(path);
        }
      }
    }
    Files.createDirectories(basePath.resolve(".hoodie"));
    tableId = "turns-" + name + "-" + System.nanoTime();
  }

  private MeteredLockProvider<?> provider(String table) {
    LockConfiguration configuration = TestHadoopStorageLocks.configuration(basePath.toUri().toString(), "10", "1");
    configuration.getConfig().setProperty(MeteredLockProvider.DELEGATE_KEY, HadoopStorageLockProvider.class.getName());
    configuration.getConfig().setProperty(MeteredLockProvider.TABLE_KEY, table);
    return new MeteredLockProvider<>(configuration,
        new HadoopStorageConfiguration(new org.apache.hadoop.conf.Configuration()));
  }

  @Test
  void aSecondHolderWaitsForTheFirstsReleaseBeforeItAsksTheTableLock() throws Exception {
    MeteredLockProvider<?> first = provider(tableId);
    MeteredLockProvider<?> second = provider(tableId);
    try {
      assertThat(first.tryLock(5, TimeUnit.SECONDS)).isTrue();
      Future<Boolean> secondLocked = threads.submit(() -> second.tryLock(30, TimeUnit.SECONDS));
      await().atMost(WAIT).until(() -> LockTurns.of(tableId).waiting() == 1);
      assertThat(secondLocked).as("second while first holds").isNotDone();

      first.unlock();
      assertThat(secondLocked.get(WAIT.toSeconds(), TimeUnit.SECONDS)).as("second after first released").isTrue();
      assertThat(LockTurns.of(tableId).waiting()).isZero();
      // The second holds the table lock itself, not only the turn: a holder in another process is refused.
      assertThat(second.getLock()).isNotNull();
      second.unlock();
    } finally {
      first.close();
      second.close();
    }
  }

  @Test
  void aHolderThatGaveUpWaitingLeavesNoTurnBehind() throws Exception {
    MeteredLockProvider<?> first = provider(tableId);
    MeteredLockProvider<?> second = provider(tableId);
    MeteredLockProvider<?> third = provider(tableId);
    try {
      assertThat(first.tryLock(5, TimeUnit.SECONDS)).isTrue();
      assertThat(threads.submit(() -> second.tryLock(50, TimeUnit.MILLISECONDS)).get()).isFalse();
      assertThat(threads.submit(() -> second.tryLock()).get()).as("untimed, while first holds").isFalse();
      first.unlock();
      assertThat(threads.submit(() -> third.tryLock(5, TimeUnit.SECONDS)).get()).isTrue();
      third.unlock();
      assertThat(first.tryLock(5, TimeUnit.SECONDS)).as("after everyone released").isTrue();
      first.unlock();
    } finally {
      first.close();
      second.close();
      third.close();
    }
  }

  @Test
  void closingAHolderGivesBackItsTurn() throws Exception {
    MeteredLockProvider<?> first = provider(tableId);
    MeteredLockProvider<?> second = provider(tableId);
    try {
      assertThat(first.tryLock(5, TimeUnit.SECONDS)).isTrue();
      first.close();
      assertThat(threads.submit(() -> second.tryLock(5, TimeUnit.SECONDS)).get()).isTrue();
      second.unlock();
    } finally {
      second.close();
    }
  }

  @Test
  void anotherTablesHoldersAreNotHeldBack() throws Exception {
    MeteredLockProvider<?> first = provider(tableId);
    try {
      assertThat(first.tryLock(5, TimeUnit.SECONDS)).isTrue();
      LockTurns other = LockTurns.of(tableId + "-other");
      assertThat(CompletableFuture.supplyAsync(other::tryAcquire, threads).get()).isTrue();
      other.release();
      first.unlock();
    } finally {
      first.close();
    }
  }

  @Test
  void aTurnIsReentrantOnItsThreadAndReleasedByItsLastHold() throws Exception {
    LockTurns turns = new LockTurns();
    assertThat(turns.tryAcquire()).isTrue();
    assertThat(turns.tryAcquire(1, TimeUnit.MILLISECONDS)).as("nested on the holding thread").isTrue();
    turns.release();
    assertThat(threads.submit(() -> turns.tryAcquire()).get()).as("another thread, one hold left").isFalse();
    Future<Boolean> waiter = threads.submit(() -> turns.tryAcquire(30, TimeUnit.SECONDS));
    await().atMost(WAIT).until(() -> turns.waiting() == 1);
    turns.release();
    assertThat(waiter.get(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
    assertThat(turns.tryAcquire()).as("held by the waiter now").isFalse();
    turns.release();
    assertThatThrownBy(turns::release).isInstanceOf(IllegalStateException.class)
        .hasMessage("the lock turn is not held");
  }
}
