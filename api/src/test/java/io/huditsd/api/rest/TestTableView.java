package io.huditsd.api.rest;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.dropwizard.jackson.Jackson;
import io.huditsd.config.MetadataIndexes;
import io.huditsd.config.ServiceType;
import io.huditsd.config.ServicedTable;
import io.huditsd.executors.FailedWrites;
import io.huditsd.scheduler.ServiceDecision;
import io.huditsd.scheduler.TableSnapshot;
import io.huditsd.scheduler.view.CleanBlocker;
import io.huditsd.scheduler.view.CleanableFiles;
import io.huditsd.scheduler.view.TableBacklog;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/** What an operator reads in {@code GET /api/v1/tables} about a table whose cleaning is held back. */
class TestTableView {
  /** As {@code TsdApplication} configures the REST mapper. */
  private static final ObjectMapper JSON = Jackson.newObjectMapper()
      .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS);
  private static final ServicedTable TABLE = new ServicedTable("orders", "file:/data/orders",
      Set.of(ServiceType.CLEAN), Duration.ofSeconds(30), Map.of(), MetadataIndexes.none());
  private static final Instant NOW = Instant.parse("2026-12-01T12:00:00Z");

  @Test
  void aDeadWritersCommitAndTheCleanItHoldsBackAreShown() throws Exception {
    FailedWrites failed = new FailedWrites(List.of(), List.of("20261201100000000"), Optional.empty(),
        Optional.of("HoodieLockException: Unable to acquire lock"), List.of());
    CleanBlocker blocker = new CleanBlocker("20261201100000000", "commit", Instant.parse("2026-12-01T10:00:00Z"), 14);

    JsonNode view = asJson(TableView.of(snapshot(failed, Optional.of(blocker)), Map.of(), null, "r1"));

    assertThat(view.at("/failedWrites/pending").toString()).isEqualTo("[\"20261201100000000\"]");
    assertThat(view.at("/failedWrites/oldestPending").asText()).isEqualTo("2026-12-01T10:00:00Z");
    assertThat(view.at("/failedWrites/rollbackError").asText()).contains("Unable to acquire lock");
    assertThat(view.at("/backlog/cleanBlockedBy/instant").asText()).isEqualTo("20261201100000000");
    assertThat(view.at("/backlog/cleanBlockedBy/action").asText()).isEqualTo("commit");
    assertThat(view.at("/backlog/cleanBlockedBy/commitsAfter").asInt()).isEqualTo(14);
    assertThat(view.at("/backlog/cleanableFiles").asLong()).isEqualTo(4);
    assertThat(view.at("/backlog/cleanableBytes").asLong()).isEqualTo(4096);
  }

  @Test
  void aHealthyTableShowsNeither() throws Exception {
    JsonNode view = asJson(TableView.of(snapshot(FailedWrites.NONE, Optional.empty()), Map.of(), null, "r1"));

    assertThat(view.has("failedWrites")).isFalse();
    assertThat(view.at("/backlog").isObject()).isTrue();
    assertThat(view.at("/backlog").has("cleanBlockedBy")).isFalse();
  }

  @Test
  void eachServiceShowsItsLastDecisionAndWhy() throws Exception {
    ServiceDecision belowTrigger = new ServiceDecision(ServiceType.CLEAN, ServiceDecision.Reason.BELOW_TRIGGER,
        "nothing committed since the last clean");
    TableSnapshot snapshot = snapshot(FailedWrites.NONE, Optional.empty());
    TableSnapshot decided = new TableSnapshot(snapshot.table(), snapshot.metaClient(), snapshot.lastPoll(),
        snapshot.lastChange(), 0, Optional.empty(), false, snapshot.backlog(), snapshot.failedWrites(),
        Map.of(ServiceType.CLEAN, belowTrigger));

    JsonNode view = asJson(TableView.of(decided, Map.of(), null, "r1"));
    JsonNode undecided = asJson(TableView.of(snapshot, Map.of(), null, "r1"));

    assertThat(view.at("/services/clean/lastDecision/decision").asText()).isEqualTo("below-trigger");
    assertThat(view.at("/services/clean/lastDecision/message").asText())
        .isEqualTo("nothing committed since the last clean");
    assertThat(undecided.at("/services/clean").has("lastDecision")).isFalse();
  }

  /** Through the text a client receives. */
  private static JsonNode asJson(TableView view) throws Exception {
    return JSON.readTree(JSON.writeValueAsString(view));
  }

  private static TableSnapshot snapshot(FailedWrites failed, Optional<CleanBlocker> blocker) {
    TableBacklog backlog = new TableBacklog(NOW, 3, 0, 0, 0, 0, Map.of(), Optional.empty(), 0, List.of(), blocker,
        Optional.empty(), Optional.of(new CleanableFiles(4, 4096)));
    return new TableSnapshot(TABLE, Optional.empty(), Optional.of(NOW), Optional.of(NOW), 0, Optional.empty(), false,
        Optional.of(backlog), failed, Map.of());
  }
}
