package io.huditsd.api.rest;

import io.huditsd.ha.TableOwnership;
import io.huditsd.scheduler.TableRegistry;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;

import java.util.Comparator;
import java.util.List;
import java.util.Locale;

import static java.util.Objects.requireNonNull;

/**
 * The table list a console pages through: flat rows ({@link TableSummary}), filtered, sorted (worst first unless
 * told otherwise) and cut to one page, so that a browser shows a thousand tables without fetching them all.
 */
@Path("/api/v1/table-list")
@Produces(MediaType.APPLICATION_JSON)
public final class TableListResource {
  public static final int DEFAULT_LIMIT = 50;
  public static final int MAX_LIMIT = 1000;

  private final TableRegistry registry;
  private final TableOwnership ownership;

  public TableListResource(TableRegistry registry, TableOwnership ownership) {
    this.registry = requireNonNull(registry, "registry is null");
    this.ownership = requireNonNull(ownership, "ownership is null");
  }

  /**
   * One page of tables.
   *
   * @param q keeps the tables whose id, owner or type contains it, ignoring case
   */
  @GET
  public TablePage list(@QueryParam("offset") String offsetText, @QueryParam("limit") String limitText,
                        @QueryParam("sort") String sort, @QueryParam("q") String q) {
    int offset = number("offset", offsetText, 0, 0, Integer.MAX_VALUE);
    int limit = number("limit", limitText, DEFAULT_LIMIT, 1, MAX_LIMIT);
    Comparator<TableSummary> order = TableOrder.parse(sort);
    String needle = q == null ? "" : q.strip().toLowerCase(Locale.ROOT);
    List<TableSummary> matching = registry.all().stream()
        .map(state -> TableSummary.of(state.snapshot(), ownership.owner(state.table().id()).orElse(null)))
        .filter(row -> needle.isEmpty() || contains(row.id(), needle) || contains(row.owner(), needle)
            || contains(row.tableType(), needle))
        .sorted(order).toList();
    List<TableSummary> items = offset >= matching.size() ? List.of()
        : matching.subList(offset, Math.min(matching.size(), offset + limit));
    return new TablePage(matching.size(), offset, limit, sort == null || sort.isBlank() ? TableOrder.WORST : sort,
        items);
  }

  private static boolean contains(String value, String needle) {
    return value != null && value.toLowerCase(Locale.ROOT).contains(needle);
  }

  private static int number(String name, String text, int otherwise, int min, int max) {
    if (text == null || text.isBlank()) {
      return otherwise;
    }
    try {
      int value = Integer.parseInt(text.strip());
      if (value >= min && value <= max) {
        return value;
      }
    } catch (NumberFormatException e) {
      // answered below, as for a number out of range
    }
    throw ApiException.badRequest(name + ": '" + text + "' is not a whole number from " + min + " to " + max);
  }

  /**
   * A page of the table list.
   *
   * @param total tables matching the filter, over all pages
   */
  public record TablePage(int total, int offset, int limit, String sort, List<TableSummary> items) {
  }
}
