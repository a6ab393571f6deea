package io.huditsd.scheduler;

import io.huditsd.config.ServicedTable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The tables being serviced, by id; one base path is registered at most once. Listeners hear of tables added and
 * removed, in the order of the changes.
 */
public final class TableRegistry {
  private static final Logger LOG = LoggerFactory.getLogger(TableRegistry.class);

  /** Hears of registry changes. */
  public interface Listener {
    void added(TableState state);

    void removed(TableState state);
  }

  private final Map<String, TableState> byId = new ConcurrentHashMap<>();
  // Guarded by this: byId and basePaths change, and listeners are called, in add and remove only.
  private final Set<String> basePaths = new HashSet<>();
  private final List<Listener> listeners = new CopyOnWriteArrayList<>();

  public void addListener(Listener listener) {
    listeners.add(listener);
  }

  /**
   * Adds the table unless one with the same id or the same base path is registered; returns whether it was added.
   * The path check keeps a table that is listed with its own id and also lies under a discovery root from being
   * serviced twice (two ids would let the pool run the same plan twice at once). Explicit tables are registered
   * before discovery starts, so their settings win.
   */
  public synchronized boolean add(ServicedTable table) {
    if (byId.containsKey(table.id()) || basePaths.contains(table.basePath())) {
      return false;
    }
    TableState state = new TableState(table);
    byId.put(table.id(), state);
    basePaths.add(table.basePath());
    LOG.info("Servicing table {} at {} (services {}, poll every {}s)", table.id(), table.basePath(),
        table.services(), table.pollInterval().toSeconds());
    listeners.forEach(listener -> listener.added(state));
    return true;
  }

  public synchronized boolean remove(String id, String reason) {
    TableState state = byId.remove(id);
    if (state == null) {
      return false;
    }
    basePaths.remove(state.table().basePath());
    LOG.info("No longer servicing table {} at {}: {}", id, state.table().basePath(), reason);
    listeners.forEach(listener -> listener.removed(state));
    return true;
  }

  public Optional<TableState> get(String id) {
    return Optional.ofNullable(byId.get(id));
  }

  /** The table with this normalized base path, if registered. */
  public Optional<TableState> byBasePath(String basePath) {
    return byId.values().stream().filter(state -> state.table().basePath().equals(basePath)).findFirst();
  }

  public Collection<TableState> all() {
    return new ArrayList<>(byId.values());
  }

  public int size() {
    return byId.size();
  }
}
