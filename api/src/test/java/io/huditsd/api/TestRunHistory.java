package io.huditsd.api;

import com.fasterxml.jackson.databind.DeserializationFeature;
import io.dropwizard.jackson.Jackson;
import io.huditsd.api.rest.RunView;
import io.huditsd.config.MetadataIndexes;
import io.huditsd.config.ServiceType;
import io.huditsd.config.ServicedTable;
import io.huditsd.executors.ActionResult;
import io.huditsd.executors.HeapEstimate;
import io.huditsd.executors.Placement;
import io.huditsd.executors.RunRecord;
import io.huditsd.executors.RunStatus;
import io.huditsd.executors.WorkItem;
import io.huditsd.executors.WorkerPool;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

class TestRunHistory {
  /** A bound against hanging on a blocked lock, not a claim about speed. */
  private static final Duration HANG_GUARD = Duration.ofSeconds(60);

  @TempDir
  Path directory;

  private WorkerPool pool;
  private RunHistory history;
  private Path fifo;
  private boolean drained;

  @AfterEach
  void stop() throws Exception {
    if (fifo != null && !drained) {
      // Frees a writer still blocked on the pipe, so that nothing of this test stays hung.
      Thread drain = new Thread(() -> readLines(fifo, Integer.MAX_VALUE), "drain-history-pipe");
      drain.setDaemon(true);
      drain.start();
    }
    if (pool != null) {
      pool.shutdown(Duration.ofSeconds(10));
    }
  }

  /** The daemon's mapper refuses unknown fields in REST bodies; its own history file, written by any version, not. */
  @Test
  void runsWrittenWithAFieldThisVersionDoesNotKnowAreRead() throws Exception {
    Path file = Files.writeString(directory.resolve("history.jsonl"), """
        {"runId":7,"table":"orders","service":"compaction","instant":"20261201105114020","status":"succeeded",\
        "attempt":1,"startedAt":"2026-12-01T10:51:15.874Z","finishedAt":"2026-12-01T10:51:16.483Z","fileGroups":3,\
        "bytesIn":19359,"bytesOut":1309726,"durationMillis":590,"error":null,"fieldOfALaterVersion":true}
        """);

    RunHistory history = new RunHistory(10, Optional.of(file),
        Jackson.newObjectMapper().enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES));

    assertThat(history.recent()).extracting(RunView::instant).containsExactly("20261201105114020");
  }

  /**
   * The history file is a named pipe nobody reads yet: each write blocks as on a stalled disk. The pool tells the
   * history of every run under its lock, so submitting, finishing runs and the REST snapshots must go on while the
   * file write waits; the lines reach the file once it can be written.
   */
  @Test
  void aBlockedHistoryWriteDoesNotStallThePool() throws Exception {
    Path file = directory.resolve("history.jsonl");
    history = new RunHistory(10, Optional.of(file), Jackson.newObjectMapper());
    fifo = makeFifo(file);
    pool = new WorkerPool(1, 1, Duration.ZERO,
        item -> new ActionResult(item.service(), item.instant(), 1, 10, 20, Duration.ofMillis(1)), history);

    pool.submit(compaction("001"));
    await("the first run in the history").atMost(HANG_GUARD).until(() -> history.recent().size() == 1);

    assertTimeoutPreemptively(HANG_GUARD, () -> {
      assertThat(pool.submit(compaction("002"))).isPresent();
      assertThat(pool.awaitIdle(HANG_GUARD)).as("both runs finished").isTrue();
      assertThat(pool.snapshot()).isEmpty();
      assertThat(history.recent()).extracting(RunView::instant).containsExactly("002", "001");
    }, "the pool stalled behind a blocked history write");

    List<String> lines = readLines(fifo, 2);
    drained = true;
    history.close();
    assertThat(lines).hasSize(2);
    assertThat(lines.get(0)).contains("\"instant\":\"001\"");
    assertThat(lines.get(1)).contains("\"instant\":\"002\"");
  }

  /** Closing writes what waits; the file is rewritten to the newest runs once it holds twice the capacity. */
  @Test
  void closedHistoriesAreReadBackNewestFirstAndTheFileStaysBounded() throws Exception {
    Path file = directory.resolve("runs").resolve("history.jsonl");
    RunHistory first = new RunHistory(2, Optional.of(file), Jackson.newObjectMapper());
    for (int run = 1; run <= 5; run++) {
      first.onChange(succeeded(run));
    }
    first.close();

    assertThat(Files.readAllLines(file)).as("lines after a rewrite at the fifth run").hasSize(2);
    RunHistory second = new RunHistory(2, Optional.of(file), Jackson.newObjectMapper());
    assertThat(second.recent()).extracting(RunView::runId).containsExactly(5L, 4L);
    second.onChange(succeeded(6));
    second.close();
    assertThat(new RunHistory(3, Optional.of(file), Jackson.newObjectMapper()).recent())
        .extracting(RunView::runId).containsExactly(6L, 5L, 4L);
  }

  private static RunRecord succeeded(long runId) {
    WorkItem item = compaction(String.format("%03d", runId));
    Instant now = Instant.now();
    return new RunRecord(runId, item, RunStatus.SUCCEEDED, 1, Optional.of(now), Optional.of(now),
        Optional.of(new ActionResult(item.service(), item.instant(), 1, 10, 20, Duration.ofMillis(1))),
        Optional.empty());
  }

  private static WorkItem compaction(String instant) {
    ServicedTable table = new ServicedTable("orders", "file:/data/orders", Set.of(ServiceType.COMPACTION),
        Duration.ofSeconds(30), Map.of(), MetadataIndexes.none());
    return new WorkItem(table, ServiceType.COMPACTION, Optional.of(instant), 0, Set.of(), Instant.now(),
        Placement.inProcess(HeapEstimate.NONE));
  }

  private static Path makeFifo(Path path) throws Exception {
    Process mkfifo = new ProcessBuilder("mkfifo", path.toString()).inheritIO().start();
    assertThat(mkfifo.waitFor()).as("mkfifo exit code").isZero();
    return path;
  }

  /** Reads lines from the pipe until {@code wanted} came; each append opens and closes the pipe once. */
  private static List<String> readLines(Path pipe, int wanted) {
    List<String> lines = new ArrayList<>();
    try {
      while (lines.size() < wanted) {
        try (BufferedReader reader = Files.newBufferedReader(pipe, StandardCharsets.UTF_8)) {
          reader.lines().forEach(lines::add);
        }
      }
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
    return lines;
  }
}
