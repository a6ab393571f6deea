package io.huditsd.scheduler;

import io.huditsd.config.ServicedTable;
import io.huditsd.config.ServicedTables;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import static java.util.Objects.requireNonNull;

/**
 * Re-scans discovery roots on an interval: new tables are registered, discovered tables that vanished are dropped
 * with a log line. Explicitly listed tables are never dropped by discovery.
 *
 * <p>A table is dropped only when {@value #MISSES_TO_DROP} complete scans of its root in a row did not find it. A
 * scan that failed part way (a listing refused, throttled or timed out) says nothing about the tables it did not
 * reach: the root's known tables are kept as they were, and tables it did find are still registered. Without this,
 * one throttled listing on an object store stopped the servicing, metrics and alerts of every table under the root
 * for a scan interval.
 */
public final class DiscoveryService implements AutoCloseable {
  /** Complete scans in a row that must miss a table before it is dropped: one more in case a listing lags. */
  static final int MISSES_TO_DROP = 2;

  private static final Logger LOG = LoggerFactory.getLogger(DiscoveryService.class);

  /**
   * A table discovery registered.
   *
   * @param root the root its last scan found it under; empty for a table a writer's request registered
   * @param misses complete scans of that root in a row that did not find it
   */
  private record Known(Optional<String> root, int misses) {
  }

  private final TableDiscovery discovery;
  private final List<String> roots;
  private final ServicedTables servicedTables;
  private final TableRegistry registry;
  private final Duration interval;
  private final DiscoveryMetrics metrics;
  // Guarded by this: the tables discovery registered, by id.
  private final Map<String, Known> known = new HashMap<>();
  private final ScheduledExecutorService executor = Executors.newSingleThreadScheduledExecutor(runnable -> {
    Thread thread = new Thread(runnable, "tsd-discovery");
    thread.setDaemon(true);
    return thread;
  });

  public DiscoveryService(TableDiscovery discovery, List<String> roots, ServicedTables servicedTables,
                          TableRegistry registry, Duration interval, DiscoveryMetrics metrics) {
    this.discovery = requireNonNull(discovery, "discovery is null");
    this.roots = List.copyOf(roots);
    this.servicedTables = requireNonNull(servicedTables, "servicedTables is null");
    this.registry = requireNonNull(registry, "registry is null");
    this.interval = requireNonNull(interval, "interval is null");
    this.metrics = requireNonNull(metrics, "metrics is null");
  }

  public void start() {
    if (!roots.isEmpty()) {
      executor.scheduleWithFixedDelay(this::scanSafely, 0, interval.toMillis(), TimeUnit.MILLISECONDS);
    }
  }

  /** One scan; returns the number of tables found. */
  public synchronized int scan() {
    Set<String> seen = new HashSet<>();
    Set<String> incompleteRoots = new HashSet<>();
    for (TableDiscovery.RootScan scan : discovery.scan(roots)) {
      metrics.scanned(scan.root());
      if (!scan.complete()) {
        incompleteRoots.add(scan.root());
        metrics.scanFailed(scan.root());
        LOG.warn("Discovery scan of root {} is incomplete ({}): the tables known under it are kept until a "
            + "complete scan; {} table(s) found before the failure", scan.root(), scan.failure().orElseThrow(),
            scan.tables().size());
      }
      for (String path : scan.tables()) {
        ServicedTable table = servicedTables.discovered(path);
        if (!seen.add(table.id())) {
          continue;
        }
        // Added again if it was unregistered by other means in between, as every scan would.
        if (registry.add(table) || known.containsKey(table.id())) {
          known.put(table.id(), new Known(Optional.of(scan.root()), 0));
        }
      }
    }
    for (Map.Entry<String, Known> entry : List.copyOf(known.entrySet())) {
      String id = entry.getKey();
      Known table = entry.getValue();
      // A table a writer's request registered has no root yet: any incomplete root may be the one that holds it.
      boolean undecided = table.root().map(incompleteRoots::contains).orElse(!incompleteRoots.isEmpty());
      if (seen.contains(id) || undecided) {
        continue;
      }
      int misses = table.misses() + 1;
      String root = table.root().orElse(String.join(", ", roots));
      if (misses < MISSES_TO_DROP) {
        known.put(id, new Known(table.root(), misses));
        LOG.info("Table {} not found by a complete scan of discovery root {} (complete scans: {}); unregistered "
            + "after {}", id, root, misses, MISSES_TO_DROP);
      } else {
        LOG.info("Table {} no longer found under discovery root {} (complete scans: {}); unregistering", id, root,
            misses);
        registry.remove(id, "no longer found under discovery root " + root);
        known.remove(id);
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
      known.put(table.id(), new Known(Optional.empty(), 0));
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
