package io.huditsd.lock;

import org.apache.hudi.client.transaction.lock.StorageBasedLockProvider;
import org.apache.hudi.client.transaction.lock.models.LockGetResult;
import org.apache.hudi.client.transaction.lock.models.LockUpsertResult;
import org.apache.hudi.client.transaction.lock.models.StorageLockData;
import org.apache.hudi.client.transaction.lock.models.StorageLockFile;
import org.apache.hudi.common.config.LockConfiguration;
import org.apache.hudi.common.config.TypedProperties;
import org.apache.hudi.common.util.Option;
import org.apache.hudi.common.util.collection.Pair;
import org.apache.hudi.storage.hadoop.HadoopStorageConfiguration;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * The storage lock on local tables: the generation files are a conditional write, Hudi's own provider refuses the
 * {@code file} scheme, two providers exclude each other, a holder whose lock moved to another owner refuses to
 * write, a holder killed with SIGKILL in another JVM loses the lock only once its lease expired, and one stopped
 * with SIGTERM keeps it while it stops and gives it up as it exits.
 */
class TestHadoopStorageLocks {
  private static final Duration CHILD = Duration.ofSeconds(60);

  private Path basePath;

  @BeforeEach
  void createTable(TestInfo test) throws IOException {
    basePath = Path.of("target", "storage-locks", test.getTestMethod().orElseThrow().getName()).toAbsolutePath();
    if (Files.exists(basePath)) {
      try (Stream<Path> walk = Files.walk(basePath)) {
        for (Path path : walk.sorted(Comparator.reverseOrder()).toList()) {
          Files.delete(path);
        }
      }
    }
    Files.createDirectories(basePath.resolve(".hoodie"));
  }

  static LockConfiguration configuration(String basePath, String validitySeconds, String renewSeconds) {
    TypedProperties properties = new TypedProperties();
    properties.setProperty("hoodie.base.path", basePath);
    properties.setProperty("hoodie.write.lock.storage.validity.timeout.secs", validitySeconds);
    properties.setProperty("hoodie.write.lock.storage.renew.interval.secs", renewSeconds);
    return new LockConfiguration(properties);
  }

  private String baseUri() {
    return basePath.toUri().toString();
  }

  private HadoopStorageLockProvider provider() {
    return new HadoopStorageLockProvider(configuration(baseUri(), "10", "1"),
        new HadoopStorageConfiguration(new org.apache.hadoop.conf.Configuration()));
  }

  private HadoopStorageLockClient client(String owner) {
    return new HadoopStorageLockClient(owner, baseUri() + ".hoodie/.locks/table_lock.json",
        new org.apache.hadoop.conf.Configuration());
  }

  private List<String> lockFiles() throws IOException {
    try (Stream<Path> files = Files.list(basePath.resolve(".hoodie/.locks"))) {
      return files.map(file -> file.getFileName().toString()).sorted().toList();
    }
  }

  @Test
  void generationsAreAConditionalWrite() throws IOException {
    HadoopStorageLockClient first = client("first");
    HadoopStorageLockClient second = client("second");
    assertThat(first.readCurrentLockFile().getLeft()).isEqualTo(LockGetResult.NOT_EXISTS);

    Pair<LockUpsertResult, Option<StorageLockFile>> created = first.tryUpsertLockFile(
        new StorageLockData(false, 1_000, "first"), Option.empty());
    assertThat(created.getLeft()).isEqualTo(LockUpsertResult.SUCCESS);
    assertThat(second.tryUpsertLockFile(new StorageLockData(false, 1_000, "second"), Option.empty()).getLeft())
        .as("a second create-if-absent").isEqualTo(LockUpsertResult.ACQUIRED_BY_OTHERS);

    StorageLockFile read = second.readCurrentLockFile().getRight().get();
    assertThat(read.getOwner()).isEqualTo("first");
    assertThat(read.getVersionId()).isEqualTo("1");
    Pair<LockUpsertResult, Option<StorageLockFile>> taken = second.tryUpsertLockFile(
        new StorageLockData(false, 2_000, "second"), Option.of(read));
    assertThat(taken.getLeft()).isEqualTo(LockUpsertResult.SUCCESS);
    assertThat(first.tryUpsertLockFile(new StorageLockData(false, 3_000, "first"), Option.of(read)).getLeft())
        .as("a write from a version that is no longer current").isEqualTo(LockUpsertResult.ACQUIRED_BY_OTHERS);

    StorageLockFile current = taken.getRight().get();
    // What a writer killed between writing and publishing generation 3 leaves behind.
    Files.writeString(basePath.resolve(".hoodie/.locks/.table_lock.json.0000000000000000003.1234.tmp"), "{}");
    for (int renewal = 0; renewal < 5; renewal++) {
      current = second.tryUpsertLockFile(new StorageLockData(false, 4_000 + renewal, "second"), Option.of(current))
          .getRight().get();
    }
    assertThat(lockFiles()).as("files kept after renewals: the current generation and the one before")
        .containsExactly("table_lock.json.0000000000000000006", "table_lock.json.0000000000000000007");
    assertThat(Files.readString(basePath.resolve(".hoodie/.locks/table_lock.json.0000000000000000007")))
        .as("Hudi's lock file JSON").isEqualTo("{\"expired\":false,\"validUntil\":4004,\"owner\":\"second\"}");

    // A writer still holding generation 1 (cleaned up since) must not win by recreating generation 2.
    assertThat(first.tryUpsertLockFile(new StorageLockData(false, 5_000, "first"), Option.of(read)).getLeft())
        .isEqualTo(LockUpsertResult.ACQUIRED_BY_OTHERS);
    assertThat(lockFiles()).as("the stale generation was withdrawn")
        .containsExactly("table_lock.json.0000000000000000006", "table_lock.json.0000000000000000007");
    assertThat(first.readCurrentLockFile().getRight().get().getOwner()).isEqualTo("second");
  }

  /** Writers often name a local table without a scheme; the lock is the same file as with {@code file:}. */
  @Test
  void aTableNamedWithoutASchemeIsLockedLikeItsFileUri() throws Exception {
    HadoopStorageLockProvider schemeless = new HadoopStorageLockProvider(
        configuration(basePath.toString(), "10", "1"),
        new HadoopStorageConfiguration(new org.apache.hadoop.conf.Configuration()));
    HadoopStorageLockProvider withScheme = provider();
    try {
      assertThat(schemeless.tryLock(2, TimeUnit.SECONDS)).as("lock on %s", basePath).isTrue();
      assertThat(withScheme.tryLock(1_500, TimeUnit.MILLISECONDS)).as("lock on %s while held", baseUri()).isFalse();
      schemeless.unlock();
      assertThat(withScheme.tryLock(2, TimeUnit.SECONDS)).as("lock on %s after release", baseUri()).isTrue();
      withScheme.unlock();
    } finally {
      schemeless.close();
      withScheme.close();
    }
  }

  @Test
  void hudisOwnStorageProviderHasNoClientForLocalTables() {
    assertThatThrownBy(() -> new StorageBasedLockProvider(configuration(baseUri(), "10", "1"),
        new HadoopStorageConfiguration(new org.apache.hadoop.conf.Configuration())))
        .rootCause().hasMessage("No implementation of StorageLock supports this scheme: file");
  }

  @Test
  void twoProvidersExcludeEachOtherAndAHolderRefusesToWriteOnceTheLockMoved() throws Exception {
    HadoopStorageLockProvider first = provider();
    HadoopStorageLockProvider second = provider();
    try {
      assertThat(first.tryLock(2, TimeUnit.SECONDS)).isTrue();
      assertThat(second.tryLock(1_500, TimeUnit.MILLISECONDS)).as("second while first holds").isFalse();
      first.checkStillHeld("the commit");
      first.unlock();
      assertThat(second.tryLock(2, TimeUnit.SECONDS)).as("second after first released").isTrue();
      second.checkStillHeld("the commit");

      // Another process writes the next generation as if it had found the lease expired.
      HadoopStorageLockClient intruder = client("intruder");
      StorageLockFile current = intruder.readCurrentLockFile().getRight().get();
      assertThat(intruder.tryUpsertLockFile(new StorageLockData(false, System.currentTimeMillis() + 60_000,
          "intruder"), Option.of(current)).getLeft()).isEqualTo(LockUpsertResult.SUCCESS);
      assertThatThrownBy(() -> second.checkStillHeld("the commit of 20260101000000000"))
          .isInstanceOf(LockLostException.class)
          .hasMessageStartingWith("Refusing to write the commit of 20260101000000000: the storage lock ")
          .hasMessageContaining("is no longer held (it is owned by intruder now)");
      second.unlock();
    } finally {
      first.close();
      second.close();
    }
  }

  @Test
  void aKilledHoldersLockIsTakenOverOnlyOnceItsLeaseExpired() throws Exception {
    HadoopStorageLockProvider ours = provider();
    try (ChildJvm writer = ChildJvm.start("storage-writer", StorageLockHolder.class, baseUri(), "10", "1")) {
      assertThat(writer.next(CHILD)).isEqualTo("READY");
      assertThat(writer.ask("lock 5000", CHILD)).isEqualTo("ACQUIRED");
      String writerOwner = writer.ask("owner", CHILD);
      assertThat(ours.tryLock(1_500, TimeUnit.MILLISECONDS)).as("ours while the writer holds").isFalse();
      assertThat(writer.ask("unlock", CHILD)).isEqualTo("RELEASED");
      assertThat(ours.tryLock(2, TimeUnit.SECONDS)).as("ours after the writer released").isTrue();
      assertThat(writer.ask("lock 1500", CHILD)).as("the writer while ours holds").isEqualTo("NOT_ACQUIRED");
      ours.unlock();
      assertThat(writer.ask("lock 5000", CHILD)).isEqualTo("ACQUIRED");
      writerOwner = writer.ask("owner", CHILD);

      writer.kill();
      StorageLockFile left = client("observer").readCurrentLockFile().getRight().get();
      assertThat(left.getOwner()).as("the killed writer's lease").isEqualTo(writerOwner);
      assertThat(left.isExpired()).isFalse();
      assertThat(ours.tryLock()).as("ours right after the kill, within the lease").isFalse();

      await("the killed writer's lease to expire and ours to take the lock").atMost(Duration.ofSeconds(60))
          .pollInterval(Duration.ofMillis(200))
          .until(ours::tryLock);
      long acquiredAt = System.currentTimeMillis();
      StorageLockFile leaseAtKill = left;
      StorageLockFile now = client("observer").readCurrentLockFile().getRight().get();
      assertThat(now.getOwner()).isNotEqualTo(writerOwner);
      assertThat(Long.parseLong(now.getVersionId())).as("ours built on the killed writer's last generation")
          .isGreaterThan(Long.parseLong(leaseAtKill.getVersionId()));
      // The last renewal may have landed after the read above; the takeover came after the lease in any case.
      assertThat(acquiredAt).as("takeover time vs the killed writer's lease").isGreaterThan(left.getValidUntilMs());
      ours.checkStillHeld("the commit");
      ours.unlock();
    } finally {
      ours.close();
    }
  }

  /**
   * Hudi's provider gave the lock up from a JVM shutdown hook of its own, at the same time as the process stopped:
   * the check below then answered LOST_WHILE_STOPPING. The lock goes only once the stop is done, and then at once,
   * not a lease later.
   */
  @Test
  void aHolderStoppedBySigtermKeepsTheLockWhileItStopsAndGivesItUpAsItExits() throws Exception {
    HadoopStorageLockProvider ours = provider();
    try (ChildJvm writer = ChildJvm.start("storage-writer-sigterm", StorageLockHolder.class, baseUri(), "10", "1")) {
      assertThat(writer.next(CHILD)).isEqualTo("READY");
      assertThat(writer.ask("lock 5000", CHILD)).isEqualTo("ACQUIRED");
      assertThat(writer.ask("stop-slowly", CHILD)).isEqualTo("STOPPING_SLOWLY");
      writer.terminate(CHILD);
      assertThat(writer.next(CHILD)).isEqualTo("HELD_WHILE_STOPPING");
      assertThat(ours.tryLock()).as("ours right after the writer exited, well within its 10 s lease").isTrue();
      ours.unlock();
    } finally {
      ours.close();
    }
  }
}
