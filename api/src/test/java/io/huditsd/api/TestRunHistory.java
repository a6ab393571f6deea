package io.huditsd.api;

import com.fasterxml.jackson.databind.DeserializationFeature;
import io.dropwizard.jackson.Jackson;
import io.huditsd.api.rest.RunView;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

class TestRunHistory {
  @TempDir
  Path directory;

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
}
