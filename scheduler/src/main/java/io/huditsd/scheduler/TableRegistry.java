package io.huditsd.scheduler;

import io.huditsd.config.ServicedTable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/** The tables being serviced, by id. Listeners hear of tables added and removed. */
public final class TableRegistry {
  private static final Logger LOG = LoggerFactory.getLogger(TableRegistry.class);

  /** Hears of registry changes. */
  public interface Listener {
    void added(TableState state);

    void removed(TableState state);
  }

  private final Map<String, TableState> byId = new ConcurrentHashMap<>();
  private final List<Listener> listeners = new CopyOnWriteArrayList<>();

  public void addListener(Listener listener) {
    listeners.add(listener);
  }

  /** Adds the table unless one with the same id is registered; returns whether it was added. */
  public boolean add(ServicedTable table) {
    TableState state = new TableState(table);
    if (byId.putIfAbsent(table.id(), state) != null) {
      return false;
    }
    LOG.info("Servicing table {} at {} (services {}, poll every {}s)", table.id(), table.basePath(),
        table.services(), table.pollInterval().toSeconds());
    listeners.forEach(listener -> listener.added(state));
    return true;
  }

  public boolean remove(String id, String reason) {
    TableState state = byId.remove(id);
    if (state == null) {
      return false;
    }
    LOG.info("No longer servicing table {} at {}: {}", id, state.table.basePath(), reason);
    listeners.forEach(listener -> listener.removed(state));
    return true;
  }

  public Optional<TableState> get(String id) {
    return Optional.ofNullable(byId.get(id));
  }

  /** The table with this normalized base path, if registered. */
  public Optional<TableState> byBasePath(String basePath) {
    return byId.values().stream().filter(state -> state.table.basePath().equals(basePath)).findFirst();
  }

  public Collection<TableState> all() {
    return new ArrayList<>(byId.values());
  }

  public int size() {
    return byId.size();
  }
}
