package io.huditsd.api;

import com.codahale.metrics.health.HealthCheck;
import io.huditsd.config.HealthThresholds;
import io.huditsd.scheduler.TableRegistry;
import io.huditsd.scheduler.TableSnapshot;
import io.huditsd.scheduler.TableState;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;

/**
 * Unhealthy while any table has a plan pending past {@code tableHealth.stuckPlanAfter}, has failed
 * {@code tableHealth.failedPolls} polls in a row, or has had its cleaning held back by one pending instant for longer
 * than {@code tableHealth.cleanBlockedAfter} (see {@link io.huditsd.scheduler.view.CleanBlocker}). The message names each such table and why. Only tables this replica
 * owns are judged: the others are their owners' to poll and report.
 */
final class TablesHealthCheck extends HealthCheck {
  private final TableRegistry registry;
  private final Duration stuckAfter;
  private final int failedPolls;
  private final Duration cleanBlockedAfter;
  private final Predicate<String> owned;

  TablesHealthCheck(TableRegistry registry, HealthThresholds thresholds, Predicate<String> owned) {
    this.registry = registry;
    this.owned = owned;
    this.stuckAfter = Duration.ofMillis(thresholds.stuckPlanAfter().toMilliseconds());
    this.failedPolls = thresholds.failedPolls();
    this.cleanBlockedAfter = Duration.ofMillis(thresholds.cleanBlockedAfter().toMilliseconds());
  }

  @Override
  protected Result check() {
    List<String> problems = new ArrayList<>();
    Instant now = Instant.now();
    for (TableState state : registry.all()) {
      TableSnapshot snapshot = state.snapshot();
      String id = snapshot.table().id();
      if (!owned.test(id)) {
        continue;
      }
      if (snapshot.consecutiveFailures() >= failedPolls) {
        problems.add(id + ": " + snapshot.consecutiveFailures() + " failed polls in a row ("
            + snapshot.lastError().orElse("no message") + ")");
      }
      snapshot.backlog().flatMap(backlog -> backlog.oldestPendingPlan()).ifPresent(oldest -> {
        Duration age = Duration.between(oldest, now);
        if (age.compareTo(stuckAfter) > 0) {
          problems.add(id + ": a plan has been pending for " + age.toMinutes() + " minutes");
        }
      });
      snapshot.backlog().flatMap(backlog -> backlog.cleanBlocker()).ifPresent(blocker -> {
        Duration age = Duration.between(blocker.requestedAt(), now);
        if (age.compareTo(cleanBlockedAfter) > 0) {
          String failedWrite = snapshot.failedWrites().pending().contains(blocker.instant())
              ? ", a failed write not rolled back" + snapshot.failedWrites().rollbackError().map(e -> " (" + e + ")")
                  .orElse("")
              : "";
          problems.add(id + ": cleaning blocked for " + age.toMinutes() + " minutes by pending " + blocker.action()
              + " " + blocker.instant() + failedWrite + "; " + blocker.commitsAfter() + " commits completed after it");
        }
      });
    }
    return problems.isEmpty()
        ? Result.healthy(registry.size() + " tables")
        : Result.unhealthy(String.join("; ", problems));
  }
}
