package io.huditsd.scheduler;

import io.huditsd.config.ServicedTable;
import io.huditsd.config.ServicedTables;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Re-scans discovery roots on an interval: new tables are registered, discovered tables that vanished are dropped
 * with a log line. Explicitly listed tables are never dropped by discovery.
 */
public final class DiscoveryService implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(DiscoveryService.class);

  private final TableDiscovery discovery;
  private final List<String> roots;
  private final ServicedTables servicedTables;
  private final TableRegistry registry;
  private final Duration interval;
  private final Set<String> discoveredIds = new HashSet<>();
  private final ScheduledExecutorService executor = Executors.newSingleThreadScheduledExecutor(runnable -> {
    Thread thread = new Thread(runnable, "tsd-discovery");
    thread.setDaemon(true);
    return thread;
  });

  public DiscoveryService(TableDiscovery discovery, List<String> roots, ServicedTables servicedTables,
                          TableRegistry registry, Duration interval) {
    this.discovery = discovery;
    this.roots = List.copyOf(roots);
    this.servicedTables = servicedTables;
    this.registry = registry;
    this.interval = interval;
  }

  public void start() {
    if (!roots.isEmpty()) {
      executor.scheduleWithFixedDelay(this::scanSafely, 0, interval.toMillis(), TimeUnit.MILLISECONDS);
    }
  }

  /** One scan; returns the number of tables found. */
  public synchronized int scan() {
    Set<String> seen = new HashSet<>();
    for (String path : discovery.scan(roots)) {
      ServicedTable table = servicedTables.discovered(path);
      seen.add(table.id());
      if (registry.add(table)) {
        discoveredIds.add(table.id());
      }
    }
    for (String id : Set.copyOf(discoveredIds)) {
      if (!seen.contains(id)) {
        registry.remove(id, "no longer found under the discovery roots");
        discoveredIds.remove(id);
      }
    }
    return seen.size();
  }

  /**
   * Registers the table at {@code basePath} now if the next scan would find it (a writer's first commit callback
   * names it before that), as the scan would: with the discovery roots' policies, dropped again once no scan finds
   * it.
   *
   * @return the table, registered now or before; empty when no discovery root holds it
   */
  public synchronized Optional<TableState> admit(String basePath) {
    Optional<String> found = discovery.find(roots, basePath);
    if (found.isEmpty()) {
      return Optional.empty();
    }
    ServicedTable table = servicedTables.discovered(found.get());
    if (registry.add(table)) {
      discoveredIds.add(table.id());
      LOG.info("Table {} ({}) registered on a writer's request: it lies under a discovery root", table.id(),
          table.basePath());
    }
    return registry.byBasePath(table.basePath());
  }

  private void scanSafely() {
    try {
      scan();
    } catch (RuntimeException e) {
      LOG.warn("Table discovery failed; next scan in {}s", interval.toSeconds(), e);
    }
  }

  @Override
  public void close() {
    executor.shutdownNow();
  }
}
