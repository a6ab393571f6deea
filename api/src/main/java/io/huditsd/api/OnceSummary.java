package io.huditsd.api;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.huditsd.executors.RunRecord;
import io.huditsd.scheduler.OncePass;
import io.huditsd.scheduler.ServiceDecision;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Locale;

/**
 * The {@code --json} summary of a {@code once} pass, one object on one line: {@code outcome} (serviced,
 * nothing-to-do, table-failed, bad-input), {@code exitCode}, {@code tables} (how many the pass serviced),
 * {@code runs} (table, service, instant, status, engine, attempts and, when they ran, fileGroups, bytesIn, bytesOut,
 * durationMs; error when one failed), {@code left} (plans held by a live process's heartbeat, left to it: table,
 * service, instant, reason, heartbeatRenewedAt), {@code decisions} (per table and service the pass runs: table,
 * service, decision (a reason code such as scheduled, below-trigger, hot-file-groups, under-pending-plan,
 * no-small-files, pending-plan, nothing-to-plan) and message, which names the figures and the keys that change it)
 * and {@code problems} (one message per table or run that failed).
 */
final class OnceSummary {
  private OnceSummary() {
  }

  static String json(ObjectMapper mapper, OnceOutcome outcome, int exitCode, int tables, List<RunRecord> runs,
                     List<OncePass.LeftPlan> left, List<String> problems,
                     List<OncePass.TableDecision> decisions) {
    ObjectNode summary = mapper.createObjectNode();
    summary.put("outcome", outcome.jsonName());
    summary.put("exitCode", exitCode);
    summary.put("tables", tables);
    ArrayNode runList = summary.putArray("runs");
    synchronized (runs) {
      for (RunRecord run : runs) {
        ObjectNode node = runList.addObject();
        node.put("table", run.item().table().id());
        node.put("basePath", run.item().table().basePath());
        node.put("service", run.item().service().configName());
        run.item().instant().ifPresent(instant -> node.put("instant", instant));
        node.put("status", run.status().name().toLowerCase(Locale.ROOT));
        node.put("engine", run.item().placement().engine().configName());
        node.put("attempts", run.attempt());
        run.result().ifPresent(result -> node.put("fileGroups", result.fileGroups())
            .put("bytesIn", result.bytesIn()).put("bytesOut", result.bytesOut())
            .put("durationMs", result.duration().toMillis()));
        run.error().ifPresent(error -> node.put("error", error));
      }
    }
    ArrayNode leftList = summary.putArray("left");
    for (OncePass.LeftPlan plan : left) {
      ObjectNode node = leftList.addObject();
      node.put("table", plan.item().table().id());
      node.put("service", plan.item().service().configName());
      plan.item().instant().ifPresent(instant -> node.put("instant", instant));
      node.put("reason", plan.reason());
      node.put("heartbeatRenewedAt", plan.heartbeat().renewedAt().toString());
    }
    ArrayNode decisionList = summary.putArray("decisions");
    for (OncePass.TableDecision decision : decisions) {
      // A service the pass was not asked to run (--services) is no decision worth a line.
      if (decision.decision().reason() == ServiceDecision.Reason.DISABLED) {
        continue;
      }
      decisionList.addObject()
          .put("table", decision.table().id())
          .put("service", decision.decision().service().configName())
          .put("decision", decision.decision().reason().code())
          .put("message", decision.decision().message());
    }
    problems.forEach(summary.putArray("problems")::add);
    try {
      return mapper.writeValueAsString(summary);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
