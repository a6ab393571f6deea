package io.huditsd.api.rest;

import io.huditsd.config.MetadataIndexes;
import io.huditsd.config.ServiceType;
import io.huditsd.config.ServicedTable;
import io.huditsd.ha.TableOwnership;
import io.huditsd.scheduler.TableRegistry;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The console's table list: worst first, any column either way, paged, filtered; bad parameters answered 400. */
class TestTableList {
  private static final Instant OLD = Instant.parse("2026-12-01T10:00:00Z");
  private static final Instant NEW = Instant.parse("2026-12-01T11:00:00Z");

  @Test
  void worstFirstPutsFailingPollsThenFailedWritesThenLogBytesThenPlansFirst() {
    List<TableSummary> rows = List.of(row("quiet", 0, 0, 0, 0, null), row("bytes", 0, 0, 5_000, 0, null),
        row("failing", 3, 0, 0, 0, null), row("writes", 0, 1, 0, 0, null), row("plans-old", 0, 0, 0, 2, OLD),
        row("plans-new", 0, 0, 0, 2, NEW));

    assertThat(rows.stream().sorted(TableOrder.parse(null)).map(TableSummary::id))
        .containsExactly("failing", "writes", "bytes", "plans-old", "plans-new", "quiet");
  }

  @Test
  void keysSortEitherWayAndTiesFallBackToTheId() {
    List<TableSummary> rows = List.of(row("b", 0, 0, 10, 0, null), row("a", 0, 0, 10, 0, null),
        row("c", 0, 0, 20, 0, null));

    assertThat(rows.stream().sorted(TableOrder.parse("-logFileUnscheduledBytes")).map(TableSummary::id))
        .containsExactly("c", "a", "b");
    assertThat(rows.stream().sorted(TableOrder.parse("logFileUnscheduledBytes,-id")).map(TableSummary::id))
        .containsExactly("b", "a", "c");
  }

  @Test
  void anUnknownSortKeyIsNamedWithTheKeysThatWork() {
    assertThatThrownBy(() -> TableOrder.parse("-backlog")).isInstanceOf(ApiException.class)
        .hasMessageContaining("sort: '-backlog' is not a sort key").hasMessageContaining("logFileUnscheduledBytes")
        .satisfies(e -> assertThat(((ApiException) e).getResponse().getStatus()).isEqualTo(400));
    assertThatThrownBy(() -> TableOrder.parse("id,")).hasMessageContaining("sort: '' is not a sort key");
  }

  @Test
  void aThousandTablesArePagedAndFiltered() {
    TableRegistry registry = new TableRegistry();
    IntStream.range(0, 1000).forEach(i -> registry.add(table(String.format("t%04d", i))));
    TableListResource resource = new TableListResource(registry, TableOwnership.sole("r1"));

    TableListResource.TablePage page = resource.list("990", "50", "id", null);
    assertThat(page.total()).isEqualTo(1000);
    assertThat(page.items()).extracting(TableSummary::id).hasSize(10).startsWith("t0990").endsWith("t0999");
    assertThat(page.items()).allSatisfy(row -> assertThat(row.owner()).isEqualTo("r1"));

    TableListResource.TablePage filtered = resource.list(null, null, null, "T012");
    assertThat(filtered.total()).isEqualTo(10);
    assertThat(filtered.limit()).isEqualTo(TableListResource.DEFAULT_LIMIT);
    assertThat(filtered.sort()).isEqualTo(TableOrder.WORST);
    assertThat(resource.list("2000", null, null, null).items()).isEmpty();
  }

  @Test
  void badPagingIsA400NamingTheParameter() {
    TableListResource resource = new TableListResource(new TableRegistry(), TableOwnership.sole("r1"));

    assertThatThrownBy(() -> resource.list("-1", null, null, null))
        .hasMessage("offset: '-1' is not a whole number from 0 to 2147483647");
    assertThatThrownBy(() -> resource.list(null, "0", null, null))
        .hasMessage("limit: '0' is not a whole number from 1 to 1000");
    assertThatThrownBy(() -> resource.list(null, "ten", null, null))
        .hasMessage("limit: 'ten' is not a whole number from 1 to 1000");
    assertThatThrownBy(() -> resource.list(null, "1001", null, null)).isInstanceOf(ApiException.class);
  }

  private static ServicedTable table(String id) {
    return new ServicedTable(id, "file:/data/" + id, Set.of(ServiceType.COMPACTION), Duration.ofSeconds(30),
        Map.of(), MetadataIndexes.none());
  }

  private static TableSummary row(String id, int failures, int failedWrites, long unscheduled, int plans,
                                  Instant oldest) {
    return new TableSummary(id, "r1", "MERGE_ON_READ", 9, false, NEW, failures, null, unscheduled, 0, plans, plans,
        0, 0, 0, oldest, 0, 0, 0, failedWrites, true);
  }
}
