package io.huditsd.lock;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import io.huditsd.testing.s3.S3MockServer;
import org.apache.hadoop.conf.Configuration;
import org.apache.hudi.client.transaction.lock.models.LockGetResult;
import org.apache.hudi.client.transaction.lock.models.LockUpsertResult;
import org.apache.hudi.client.transaction.lock.models.StorageLockData;
import org.apache.hudi.client.transaction.lock.models.StorageLockFile;
import org.apache.hudi.common.config.TypedProperties;
import org.apache.hudi.common.util.Option;
import org.apache.hudi.common.util.collection.Pair;
import org.apache.hudi.storage.hadoop.HadoopStorageConfiguration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * The S3 storage lock against a real S3 server (Adobe S3Mock in its own JVM): Hudi's conditional-write protocol, the
 * lock object exactly as Hudi's {@code hudi-aws} client writes it, a lock taken by Hudi's client honoured, two
 * processes excluding each other, and a holder paused past its lease refused at its next timeline write.
 */
class TestS3StorageLocks {
  private static final String BUCKET = "locks";
  private static final Duration CHILD = Duration.ofSeconds(60);
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final LockStorageRequests.Sink NO_COUNTS = new LockStorageRequests.Sink() {
    @Override
    public void requested(String operation) {
    }

    @Override
    public void throttled(String operation) {
    }
  };

  private static S3MockServer server;
  private static Configuration hadoop;

  private final HttpClient http = HttpClient.newHttpClient();
  private String basePath;

  @BeforeAll
  static void startS3() {
    server = S3MockServer.start(Path.of("target", "s3-locks").toAbsolutePath(), BUCKET);
    hadoop = new Configuration();
    server.s3aProperties().forEach(hadoop::set);
  }

  @AfterAll
  static void stopS3() {
    if (server != null) {
      server.close();
    }
  }

  @BeforeEach
  void nameTable(TestInfo test) {
    // A table per test (and per run: S3Mock keeps objects across runs under target/).
    basePath = "s3a://" + BUCKET + "/" + test.getTestMethod().orElseThrow().getName() + "-" + System.nanoTime();
  }

  private String lockFile() {
    return basePath + "/.hoodie/.locks/table_lock.json";
  }

  /** The lock object's URL on the server, path-style: the key is the lock file's path in its bucket. */
  private URI lockObject() {
    return URI.create(server.endpoint() + "/" + lockFile().substring("s3a://".length()));
  }

  private S3StorageLockClient client(String owner) {
    return new S3StorageLockClient(owner, lockFile(), properties("300", "30"), hadoop);
  }

  private static TypedProperties properties(String validitySeconds, String renewSeconds) {
    return TestHadoopStorageLocks.configuration("s3a://unused/table", validitySeconds, renewSeconds).getConfig();
  }

  private S3StorageLockProvider provider(String validitySeconds, String renewSeconds) {
    return new S3StorageLockProvider(TestHadoopStorageLocks.configuration(basePath, validitySeconds, renewSeconds),
        new HadoopStorageConfiguration(hadoop));
  }

  @Test
  void createRenewAndReleaseAreConditionalPuts() throws Exception {
    S3StorageLockClient first = client("first");
    S3StorageLockClient second = client("second");
    try {
      assertThat(first.readCurrentLockFile().getLeft()).isEqualTo(LockGetResult.NOT_EXISTS);

      Pair<LockUpsertResult, Option<StorageLockFile>> created = first.tryUpsertLockFile(
          new StorageLockData(false, 1_000, "first"), Option.empty());
      assertThat(created.getLeft()).isEqualTo(LockUpsertResult.SUCCESS);
      assertThat(second.tryUpsertLockFile(new StorageLockData(false, 1_000, "second"), Option.empty()).getLeft())
          .as("a second create, If-None-Match: *").isEqualTo(LockUpsertResult.ACQUIRED_BY_OTHERS);

      StorageLockFile read = second.readCurrentLockFile().getRight().get();
      assertThat(read.getOwner()).isEqualTo("first");
      assertThat(read.getVersionId()).as("the version id is the ETag")
          .isEqualTo(created.getRight().get().getVersionId())
          .isEqualTo(etagOnServer());

      Pair<LockUpsertResult, Option<StorageLockFile>> renewed = first.tryUpsertLockFile(
          new StorageLockData(false, 2_000, "first"), created.getRight());
      assertThat(renewed.getLeft()).as("a renewal with the current ETag").isEqualTo(LockUpsertResult.SUCCESS);
      assertThat(renewed.getRight().get().getVersionId()).isNotEqualTo(read.getVersionId())
          .isEqualTo(etagOnServer());
      assertThat(second.tryUpsertLockFile(new StorageLockData(false, 3_000, "second"), Option.of(read)).getLeft())
          .as("a write with an ETag that is no longer current").isEqualTo(LockUpsertResult.ACQUIRED_BY_OTHERS);

      assertThat(first.tryUpsertLockFile(new StorageLockData(true, 2_000, "first"), renewed.getRight()).getLeft())
          .as("the release: expired=true with the current ETag").isEqualTo(LockUpsertResult.SUCCESS);
      StorageLockFile released = second.readCurrentLockFile().getRight().get();
      assertThat(released.isExpired()).isTrue();
      assertThat(released.getOwner()).isEqualTo("first");
      assertThat(released.getValidUntilMs()).isEqualTo(2_000);
    } finally {
      first.close();
      second.close();
    }
  }

  /**
   * Field by field what Hudi's S3 client writes: apache/hudi
   * {@code hudi-aws/src/main/java/org/apache/hudi/aws/transaction/lock/S3StorageLockClient.java} puts
   * {@code StorageLockFile.toByteArray(lockData)} (the JSON of {@code StorageLockData}, hudi-client-common
   * {@code org/apache/hudi/client/transaction/lock/models/StorageLockData.java}: {@code expired} boolean,
   * {@code validUntil} epoch milliseconds, {@code owner} the provider's UUID) with {@code RequestBody.fromBytes}
   * ({@code application/octet-stream}) at the key {@code <table path>/.hoodie/.locks/table_lock.json}
   * ({@code StorageBasedLockProvider.DEFAULT_TABLE_LOCK_FILE_NAME} in {@code StorageLockClient.getLockFolderPath}).
   */
  @Test
  void theLockObjectIsWhatHudisS3ClientWrites() throws Exception {
    S3StorageLockProvider provider = provider("300", "30");
    try {
      long before = System.currentTimeMillis();
      assertThat(provider.tryLock()).isTrue();
      long after = System.currentTimeMillis();
      String owner = provider.getLock().getOwner();

      HttpResponse<String> object = http.send(HttpRequest.newBuilder(lockObject()).GET().build(),
          HttpResponse.BodyHandlers.ofString());
      assertThat(object.statusCode()).as("GET %s", lockObject()).isEqualTo(200);
      assertThat(object.headers().firstValue("Content-Type")).hasValue("application/octet-stream");
      JsonNode held = JSON.readTree(object.body());
      assertThat(held.properties()).extracting(Map.Entry::getKey)
          .containsExactly("expired", "validUntil", "owner");
      assertThat(held.get("expired").isBoolean()).isTrue();
      assertThat(held.get("expired").booleanValue()).isFalse();
      assertThat(held.get("validUntil").isIntegralNumber()).isTrue();
      assertThat(held.get("validUntil").longValue()).as("acquisition time + 300 s")
          .isBetween(before + 300_000, after + 300_000);
      assertThat(held.get("owner").textValue()).isEqualTo(owner)
          .matches("[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}");
      assertThat(object.body()).as("byte for byte what Hudi's StorageLockFile.toByteArray makes of the data")
          .isEqualTo(new String(StorageLockFile.toByteArray(new StorageLockData(false,
              held.get("validUntil").longValue(), owner))));

      provider.unlock();
      JsonNode released = JSON.readTree(http.send(HttpRequest.newBuilder(lockObject()).GET().build(),
          HttpResponse.BodyHandlers.ofString()).body());
      assertThat(released.get("expired").booleanValue()).as("released: expired").isTrue();
      assertThat(released.get("validUntil").longValue()).as("released: validUntil kept")
          .isEqualTo(held.get("validUntil").longValue());
      assertThat(released.get("owner").textValue()).isEqualTo(owner);
    } finally {
      provider.close();
    }
  }

  /** A writer's lock taken and released by Hudi's S3 client, reproduced here with its exact requests. */
  @Test
  void aLockTakenWithHudisRequestsIsHonouredUntilReleased() throws Exception {
    S3StorageLockProvider ours = provider("300", "30");
    try {
      byte[] writers = StorageLockFile.toByteArray(
          new StorageLockData(false, System.currentTimeMillis() + 300_000, "spark-writer"));
      assertThat(put("If-None-Match", "*", writers).statusCode()).as("the writer's create").isEqualTo(200);
      assertThat(ours.tryLock()).as("ours while the writer holds").isFalse();

      byte[] released = StorageLockFile.toByteArray(
          new StorageLockData(true, System.currentTimeMillis() + 300_000, "spark-writer"));
      assertThat(put("If-Match", etagOnServer(), released).statusCode()).as("the writer's release")
          .isEqualTo(200);
      assertThat(ours.tryLock()).as("ours after the writer released").isTrue();
      String etag = etagOnServer();
      assertThat(put("If-None-Match", "*", writers).statusCode()).as("the writer's create while ours holds")
          .isEqualTo(412);
      assertThat(put("If-Match", "\"" + "0".repeat(32) + "\"", writers).statusCode())
          .as("the writer's takeover from a version it did not read").isEqualTo(412);
      assertThat(etagOnServer()).isEqualTo(etag);
      ours.checkStillHeld("the commit");
      ours.unlock();
    } finally {
      ours.close();
    }
  }

  @Test
  void anUnrenewedLeaseIsTakenOverOnlyOnceExpiredAndItsHolderIsFenced() throws Exception {
    S3StorageLockClient crashed = client("crashed");
    S3StorageLockProvider ours = provider("300", "30");
    try {
      long validUntil = System.currentTimeMillis() + 3_000;
      assertThat(crashed.tryUpsertLockFile(new StorageLockData(false, validUntil, "crashed"), Option.empty())
          .getLeft()).isEqualTo(LockUpsertResult.SUCCESS);
      assertThat(ours.tryLock()).as("ours within the crashed holder's lease").isFalse();
      await("the crashed holder's lease to expire and ours to take the lock").atMost(Duration.ofSeconds(30))
          .pollInterval(Duration.ofMillis(200))
          .until(ours::tryLock);
      assertThat(System.currentTimeMillis()).as("takeover time vs the lease").isGreaterThan(validUntil);
      ours.checkStillHeld("the commit");

      // Another process writes over ours as if it had found our lease expired.
      StorageLockFile current = crashed.readCurrentLockFile().getRight().get();
      assertThat(crashed.tryUpsertLockFile(new StorageLockData(false, System.currentTimeMillis() + 60_000,
          "intruder"), Option.of(current)).getLeft()).isEqualTo(LockUpsertResult.SUCCESS);
      assertThatThrownBy(() -> ours.checkStillHeld("the commit of 20260101000000000"))
          .isInstanceOf(LockLostException.class)
          .hasMessage("Refusing to write the commit of 20260101000000000: the storage lock s3://" + BUCKET + "/"
              + lockFile().substring(("s3a://" + BUCKET + "/").length())
              + " is no longer held (it is owned by intruder now)");
      ours.unlock();
    } finally {
      crashed.close();
      ours.close();
    }
  }

  /**
   * Each lock operation is one request: a GET to see the lock, a PUT to take, renew or release it; the first
   * acquisition also asks whether Hudi's lock audit is enabled ({@code .locks/audit_enabled.json}: a HEAD, Hudi's
   * {@code AuditServiceFactory}, again on every acquisition while the audit is off). Whether the store honours
   * conditional writes is probed once per process and store, before its first lock, and left out of these counts.
   */
  @Test
  void lockRequestsAreCountedByOperation() throws Exception {
    S3StorageLockProvider.requireConditionalWrites(basePath, Map.of(), hadoop);
    Map<String, AtomicLong> requested = new ConcurrentHashMap<>();
    LockStorageRequests.install(new LockStorageRequests.Sink() {
      @Override
      public void requested(String operation) {
        requested.computeIfAbsent(operation, op -> new AtomicLong()).incrementAndGet();
      }

      @Override
      public void throttled(String operation) {
      }
    });
    S3StorageLockProvider provider = provider("300", "30");
    try {
      assertThat(provider.tryLock()).isTrue();
      assertThat(counts(requested)).as("acquiring a free lock")
          .isEqualTo(Map.of("get", 1L, "put", 1L, "head", 1L));
      provider.checkStillHeld("the commit");
      assertThat(counts(requested)).as("and the fence before a write")
          .isEqualTo(Map.of("get", 2L, "put", 1L, "head", 1L));
      provider.unlock();
      assertThat(counts(requested)).as("and the release").isEqualTo(Map.of("get", 2L, "put", 2L, "head", 1L));
      assertThat(provider.tryLock()).isTrue();
      assertThat(counts(requested)).as("and acquiring it again").isEqualTo(Map.of("get", 3L, "put", 3L, "head", 2L));
      provider.unlock();
    } finally {
      provider.close();
      LockStorageRequests.install(NO_COUNTS);
    }
  }

  /**
   * A store that throttles (every request answered 503 SlowDown, as S3 does past its request rate): the SDK retries
   * each request ({@code fs.s3a.attempts.maximum} times, with back-off and jitter), every attempt and every throttled
   * answer is counted, and the lock write comes back {@code THROTTLED}, which Hudi's provider retries on release.
   */
  @Test
  void throttledRequestsAreRetriedCountedAndReportedAsThrottled() throws Exception {
    List<String> received = Collections.synchronizedList(new ArrayList<>());
    HttpServer throttling = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    throttling.createContext("/", exchange -> {
      received.add(exchange.getRequestMethod());
      exchange.getRequestBody().readAllBytes();
      byte[] error = ("<?xml version=\"1.0\" encoding=\"UTF-8\"?><Error><Code>SlowDown</Code>"
          + "<Message>Please reduce your request rate.</Message></Error>").getBytes(StandardCharsets.UTF_8);
      exchange.getResponseHeaders().set("Content-Type", "application/xml");
      exchange.sendResponseHeaders(503, error.length);
      exchange.getResponseBody().write(error);
      exchange.close();
    });
    throttling.start();
    Map<String, AtomicLong> requested = new ConcurrentHashMap<>();
    Map<String, AtomicLong> throttled = new ConcurrentHashMap<>();
    LockStorageRequests.install(new LockStorageRequests.Sink() {
      @Override
      public void requested(String operation) {
        requested.computeIfAbsent(operation, op -> new AtomicLong()).incrementAndGet();
      }

      @Override
      public void throttled(String operation) {
        throttled.computeIfAbsent(operation, op -> new AtomicLong()).incrementAndGet();
      }
    });
    Configuration throttled503 = new Configuration(hadoop);
    throttled503.set("fs.s3a.endpoint", "http://127.0.0.1:" + throttling.getAddress().getPort());
    S3StorageLockClient client = new S3StorageLockClient("owner", lockFile(), properties("300", "30"),
        throttled503);
    try {
      assertThat(client.tryUpsertLockFile(new StorageLockData(false, 1_000, "owner"), Option.empty()).getLeft())
          .isEqualTo(LockUpsertResult.THROTTLED);
      // fs.s3a.attempts.maximum=3 (S3MockServer's keys): the first attempt and three retries.
      assertThat(received).containsExactly("PUT", "PUT", "PUT", "PUT");
      assertThat(counts(requested)).isEqualTo(Map.of("put", 4L));
      assertThat(counts(throttled)).isEqualTo(Map.of("put", 4L));
      assertThat(client.readCurrentLockFile().getLeft()).as("a throttled read, as Hudi's client classifies it")
          .isEqualTo(LockGetResult.UNKNOWN_ERROR);
      assertThat(counts(throttled)).isEqualTo(Map.of("put", 4L, "get", 4L));
    } finally {
      client.close();
      throttling.stop(0);
      LockStorageRequests.install(NO_COUNTS);
    }
  }

  @Test
  void twoProcessesExcludeEachOther() throws Exception {
    try (ChildJvm first = ChildJvm.start("s3-lock-first", S3StorageLockHolder.class, holderArguments("10", "1"));
         ChildJvm second = ChildJvm.start("s3-lock-second", S3StorageLockHolder.class, holderArguments("10", "1"))) {
      assertThat(first.next(CHILD)).isEqualTo("READY");
      assertThat(second.next(CHILD)).isEqualTo("READY");
      assertThat(first.ask("lock 5000", CHILD)).isEqualTo("ACQUIRED");
      assertThat(second.ask("lock 3000", CHILD)).as("the second while the first holds").isEqualTo("NOT_ACQUIRED");
      assertThat(first.ask("write 20260101000000000.deltacommit", CHILD)).isEqualTo("WRITTEN");
      assertThat(first.ask("unlock", CHILD)).isEqualTo("RELEASED");
      assertThat(second.ask("lock 5000", CHILD)).as("the second after the first released").isEqualTo("ACQUIRED");
      assertThat(first.ask("lock 3000", CHILD)).as("the first while the second holds").isEqualTo("NOT_ACQUIRED");
      assertThat(second.ask("unlock", CHILD)).isEqualTo("RELEASED");
    }
  }

  /**
   * A holder paused (SIGSTOP: every thread, its lease renewals too) until its lease expired and another process
   * took the lock: resumed, it must not write the timeline.
   */
  @Test
  void aHolderPausedPastItsLeaseIsRefusedAtItsNextTimelineWrite() throws Exception {
    S3StorageLockProvider ours = provider("10", "1");
    try (ChildJvm writer = ChildJvm.start("s3-lock-paused", S3StorageLockHolder.class, holderArguments("10", "1"))) {
      assertThat(writer.next(CHILD)).isEqualTo("READY");
      assertThat(writer.ask("lock 5000", CHILD)).isEqualTo("ACQUIRED");
      String writerOwner = writer.ask("owner", CHILD);
      assertThat(ours.tryLock()).as("ours while the writer holds").isFalse();

      writer.pause();
      try {
        await("the paused writer's lease to expire and ours to take the lock").atMost(Duration.ofSeconds(60))
            .pollInterval(Duration.ofMillis(250))
            .until(ours::tryLock);
      } finally {
        writer.resume();
      }
      String ourOwner = ours.getLock().getOwner();
      assertThat(ourOwner).isNotEqualTo(writerOwner);

      String instant = "20260101000000000.commit";
      String answer = writer.ask("write " + instant, CHILD);
      assertThat(answer).startsWith("REFUSED Refusing to write create " + basePath + "/.hoodie/timeline/" + instant
              + ": the storage lock ")
          .endsWith(" is no longer held (it is owned by " + ourOwner + " now)");
      assertThat(http.send(HttpRequest.newBuilder(URI.create(server.endpoint() + "/" + BUCKET + "/"
              + basePath.substring(("s3a://" + BUCKET + "/").length()) + "/.hoodie/timeline/" + instant))
          .method("HEAD", HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.discarding())
          .statusCode()).as("the refused instant on the store").isEqualTo(404);
      ours.checkStillHeld("the commit");
      ours.unlock();
    } finally {
      ours.close();
    }
  }

  private String[] holderArguments(String validitySeconds, String renewSeconds) {
    List<String> arguments = new ArrayList<>(List.of(basePath, validitySeconds, renewSeconds));
    server.s3aProperties().forEach((key, value) -> arguments.add(key + "=" + value));
    return arguments.toArray(String[]::new);
  }

  private static Map<String, Long> counts(Map<String, AtomicLong> counters) {
    Map<String, Long> counts = new TreeMap<>();
    counters.forEach((operation, count) -> counts.put(operation, count.get()));
    return counts;
  }

  private String etagOnServer() throws Exception {
    return http.send(HttpRequest.newBuilder(lockObject()).method("HEAD", HttpRequest.BodyPublishers.noBody())
        .build(), HttpResponse.BodyHandlers.discarding()).headers().firstValue("ETag").orElseThrow()
        .replace("\"", "");
  }

  private HttpResponse<String> put(String header, String value, byte[] body) throws Exception {
    return http.send(HttpRequest.newBuilder(lockObject()).header(header, value)
        .PUT(HttpRequest.BodyPublishers.ofByteArray(body)).build(), HttpResponse.BodyHandlers.ofString());
  }
}
