package io.huditsd.scheduler;

import io.huditsd.config.ServiceType;

import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * The daemon's table services, one object each, in {@link ServiceType} order. One set per planner: the archive and
 * index services remember, per table, when they last ran or failed. A new service is a new {@link TableService}
 * added here (and its action to {@code PlanRunner.defaultActions()}).
 */
public final class TableServices {
  private final List<PlannedService> planned;
  private final ArchiveService archive;
  private final ClusteringService clustering;
  private final IndexService index;
  private final Map<ServiceType, TableService> byType = new EnumMap<>(ServiceType.class);
  private final List<TableService> all;

  public TableServices(IndexTrigger indexTrigger) {
    this(indexTrigger, Long.MAX_VALUE);
  }

  /** @param memoryBudgetBytes {@code workers.memoryBudget}, which clustering groups planned in process must fit */
  public TableServices(IndexTrigger indexTrigger, long memoryBudgetBytes) {
    this.index = new IndexService(Objects.requireNonNull(indexTrigger, "indexTrigger is null"));
    this.archive = new ArchiveService();
    this.clustering = new ClusteringService(memoryBudgetBytes);
    this.planned = List.of(new CompactionService(), clustering, new CleanService(), index);
    for (PlannedService service : planned) {
      byType.put(service.type(), service);
    }
    byType.put(archive.type(), archive);
    if (byType.size() != ServiceType.values().length) {
      throw new IllegalStateException("not one service per ServiceType: " + byType.keySet());
    }
    this.all = List.copyOf(byType.values());
  }

  /** The services that write plans, in the order a poll schedules them. */
  public List<PlannedService> planned() {
    return planned;
  }

  /** Forgets what the services remember of a table no longer serviced. */
  void forget(String tableId) {
    archive.forget(tableId);
    clustering.forget(tableId);
    index.forget(tableId);
  }

  /** The tables the services remember something about. */
  Set<String> rememberedTables() {
    Set<String> remembered = new TreeSet<>(archive.tables());
    remembered.addAll(clustering.tables());
    remembered.addAll(index.tables());
    return remembered;
  }

  public ArchiveService archive() {
    return archive;
  }

  public IndexService index() {
    return index;
  }

  /** Every service, in {@link ServiceType} order. */
  public List<TableService> all() {
    return all;
  }

  public TableService of(ServiceType type) {
    return byType.get(Objects.requireNonNull(type, "type is null"));
  }

  /** The service of {@code type} if it writes plans. */
  public Optional<PlannedService> planned(ServiceType type) {
    return of(type) instanceof PlannedService service ? Optional.of(service) : Optional.empty();
  }
}
