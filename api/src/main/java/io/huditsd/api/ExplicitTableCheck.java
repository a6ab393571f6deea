package io.huditsd.api;

import io.huditsd.config.ServicedTable;
import io.huditsd.config.ServicedTables;
import io.huditsd.config.TableSpec;
import io.huditsd.config.TsdConfiguration;
import io.huditsd.executors.HudiTables;
import io.huditsd.scheduler.TableProbe;
import io.huditsd.scheduler.TableProblem;
import org.apache.hudi.common.table.HoodieTableMetaClient;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * What {@code server} checks of the tables listed under {@code tables} before it starts, as {@code once} does of its
 * {@code --table}s: each is an existing Hudi table of a serviced version, and Hudi builds its write config. Without
 * this a mistyped path started a daemon whose every poll of that table failed. Tables that do not exist yet are
 * picked up by discovery, which these checks leave alone.
 */
final class ExplicitTableCheck {
  static final String CREATED_LATER = "tables lists existing tables only; to pick up tables created later, "
      + "list a directory above them under discovery.roots";

  private final TableProbe probe;
  private final HudiTables tables;

  ExplicitTableCheck(TableProbe probe, HudiTables tables) {
    this.probe = Objects.requireNonNull(probe, "probe is null");
    this.tables = Objects.requireNonNull(tables, "tables is null");
  }

  /** One error per table that cannot be serviced, naming its entry ({@code tables[N]}), its path and the problem. */
  List<String> check(TsdConfiguration configuration) {
    ServicedTables serviced = new ServicedTables(configuration);
    List<String> errors = new ArrayList<>();
    List<TableSpec> specs = configuration.getTables();
    for (int i = 0; i < specs.size(); i++) {
      ServicedTable table = serviced.explicit(specs.get(i));
      String where = "tables[" + i + "]";
      try {
        probe.requireTableLayout(table.basePath());
      } catch (TableProblem e) {
        errors.add(where + ".path: " + e.getMessage() + "; " + CREATED_LATER);
        continue;
      }
      try {
        HoodieTableMetaClient metaClient = tables.metaClient(table.basePath());
        TableProbe.requireSupportedVersion(metaClient);
        // Built once here so that what Hudi itself refuses in the keys is an error at start, not at every poll.
        tables.writeConfig(table, metaClient);
      } catch (TableProblem e) {
        errors.add(where + ".path: " + e.getMessage());
      } catch (RuntimeException e) {
        errors.add(where + ".hoodie: Hudi refuses the write config of " + table.basePath() + ": " + rootMessage(e));
      }
    }
    return errors;
  }

  private static String rootMessage(Throwable error) {
    Throwable cause = error;
    while (cause.getCause() != null && cause.getCause() != cause) {
      cause = cause.getCause();
    }
    String message = cause.getMessage();
    return message == null ? cause.getClass().getSimpleName() : message;
  }
}
