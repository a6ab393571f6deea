package io.huditsd.api.rest;

import io.huditsd.config.ServicedTable;
import io.huditsd.config.ServicedTables;
import io.huditsd.config.TablePaths;
import io.huditsd.lock.LockProviderCheck;
import io.huditsd.scheduler.DiscoveryService;
import io.huditsd.scheduler.TableProbe;
import io.huditsd.scheduler.TableProblem;
import io.huditsd.scheduler.TableRegistry;
import io.huditsd.scheduler.TableState;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The table a writer's request names by base path: a serviced one; one under a discovery root that the next scan
 * would find, registered now; or, when {@code tableServiceManager.registerUnknownTables} allows it, any table,
 * registered now. Shared by the endpoints Hudi
 * writers call (the table service manager's and the commit callback), so that both register tables alike.
 */
final class TableRegistration {
  private final TableRegistry registry;
  private final DiscoveryService discovery;
  private final ServicedTables servicedTables;
  private final TableProbe probe;
  private final boolean registerUnknownTables;

  /**
   * @param discovery a table under a discovery root is registered as its next scan would register it, whatever
   *     {@code registerUnknownTables} says
   */
  TableRegistration(TableRegistry registry, DiscoveryService discovery, ServicedTables servicedTables,
                    TableProbe probe, boolean registerUnknownTables) {
    this.registry = Objects.requireNonNull(registry, "registry is null");
    this.discovery = Objects.requireNonNull(discovery, "discovery is null");
    this.servicedTables = Objects.requireNonNull(servicedTables, "servicedTables is null");
    this.probe = Objects.requireNonNull(probe, "probe is null");
    this.registerUnknownTables = registerUnknownTables;
  }

  /**
   * The serviced table at {@code basePath} (normalized), if any, without registering one; a writer may name an S3
   * table with another of S3's schemes than the daemon's ({@link TablePaths#sameLocation}).
   */
  Optional<TableState> serviced(String basePath) {
    return registry.byBasePath(basePath).or(() -> registry.all().stream()
        .filter(state -> TablePaths.sameLocation(state.table().basePath(), basePath)).findFirst());
  }

  /**
   * The table at {@code basePath} (normalized), registered first when unknown and allowed.
   *
   * @throws ApiException 404 when unknown and registering is off, 400 when the path holds no table the daemon can
   *     service
   */
  TableState servicedOrRegistered(String basePath, String field) {
    return serviced(basePath).or(() -> discovery.admit(basePath)).orElseGet(() -> register(basePath, field));
  }

  private TableState register(String basePath, String field) {
    if (!registerUnknownTables) {
      throw ApiException.notFound("Table at " + basePath + " is not serviced by this daemon: not configured, not"
          + " under a discovery root, and tableServiceManager.registerUnknownTables is off");
    }
    try {
      probe.requireTableLayout(basePath);
    } catch (TableProblem e) {
      throw ApiException.badRequest(field + ": " + e.getMessage());
    }
    ServicedTable table = servicedTables.discovered(basePath);
    // As at start for configured tables: a table whose store has no default lock and that names none is refused.
    List<String> lockErrors = LockProviderCheck.check(field, table.hoodieKeys(), basePath);
    if (!lockErrors.isEmpty()) {
      throw ApiException.badRequest(String.join("; ", lockErrors));
    }
    registry.add(table);
    return registry.byBasePath(basePath)
        .orElseThrow(() -> ApiException.conflict("Table at " + basePath + " could not be registered"));
  }
}
