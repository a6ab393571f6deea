package io.huditsd.api.rest;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * The order of the table list, parsed from a {@code sort} parameter: keys separated by commas, each ascending or,
 * prefixed with {@code -}, descending; ties are broken by id. {@code worst} orders the tables that most need an
 * operator first: failing polls, failed writes, unscheduled log bytes, pending plans, the oldest pending plan.
 */
public final class TableOrder {
  /** What the console asks for by default. */
  public static final String WORST = "worst";

  private static final Map<String, Comparator<TableSummary>> KEYS = keys();

  private TableOrder() {
  }

  private static Map<String, Comparator<TableSummary>> keys() {
    Map<String, Comparator<TableSummary>> keys = new LinkedHashMap<>();
    keys.put("id", Comparator.comparing(TableSummary::id));
    keys.put("owner", nullsLast(TableSummary::owner));
    keys.put("tableType", nullsLast(TableSummary::tableType));
    keys.put("tableVersion", nullsLast(TableSummary::tableVersion));
    keys.put("paused", Comparator.comparing(TableSummary::paused));
    keys.put("lastPoll", nullsLast(TableSummary::lastPoll));
    keys.put("consecutiveFailures", Comparator.comparingInt(TableSummary::consecutiveFailures));
    keys.put("logFileUnscheduledBytes", Comparator.comparingLong(TableSummary::logFileUnscheduledBytes));
    keys.put("logFileScheduledBytes", Comparator.comparingLong(TableSummary::logFileScheduledBytes));
    keys.put("pendingPlans", Comparator.comparingInt(TableSummary::pendingPlans));
    keys.put("pendingCompactions", Comparator.comparingInt(TableSummary::pendingCompactions));
    keys.put("pendingClusterings", Comparator.comparingInt(TableSummary::pendingClusterings));
    keys.put("pendingCleans", Comparator.comparingInt(TableSummary::pendingCleans));
    keys.put("pendingIndexes", Comparator.comparingInt(TableSummary::pendingIndexes));
    keys.put("oldestPendingPlan", nullsLast(TableSummary::oldestPendingPlan));
    keys.put("smallBaseFiles", Comparator.comparingLong(TableSummary::smallBaseFiles));
    keys.put("deltaCommitsSinceCompaction", Comparator.comparingInt(TableSummary::deltaCommitsSinceCompaction));
    keys.put("missingIndexes", Comparator.comparingInt(TableSummary::missingIndexes));
    keys.put("failedWritesPending", Comparator.comparingInt(TableSummary::failedWritesPending));
    Comparator<Instant> oldestFirst = Comparator.nullsLast(Comparator.naturalOrder());
    keys.put(WORST, Comparator.comparingInt(TableSummary::consecutiveFailures).reversed()
        .thenComparing(Comparator.comparingInt(TableSummary::failedWritesPending).reversed())
        .thenComparing(Comparator.comparingLong(TableSummary::logFileUnscheduledBytes).reversed())
        .thenComparing(Comparator.comparingInt(TableSummary::pendingPlans).reversed())
        .thenComparing(TableSummary::oldestPendingPlan, oldestFirst));
    return Map.copyOf(keys);
  }

  private static <T extends Comparable<? super T>> Comparator<TableSummary> nullsLast(
      Function<TableSummary, T> key) {
    return Comparator.comparing(key, Comparator.nullsLast(Comparator.naturalOrder()));
  }

  /** The comparator {@code sort} names; a bad key is a 400 naming it and the keys that work. */
  public static Comparator<TableSummary> parse(String sort) {
    String text = sort == null || sort.isBlank() ? WORST : sort;
    List<Comparator<TableSummary>> parts = new ArrayList<>();
    for (String part : text.split(",", -1)) {
      String key = part.strip();
      boolean descending = key.startsWith("-");
      if (descending) {
        key = key.substring(1);
      }
      Comparator<TableSummary> comparator = KEYS.get(key);
      if (comparator == null) {
        throw ApiException.badRequest("sort: '" + part.strip() + "' is not a sort key; use one or more of "
            + String.join(", ", KEYS.keySet().stream().sorted().toList())
            + " separated by commas, each prefixed with - for descending");
      }
      parts.add(descending ? comparator.reversed() : comparator);
    }
    Comparator<TableSummary> order = parts.get(0);
    for (Comparator<TableSummary> next : parts.subList(1, parts.size())) {
      order = order.thenComparing(next);
    }
    return order.thenComparing(TableSummary::id);
  }
}
