package io.huditsd.api.rest;

import io.huditsd.config.ServicedTable;
import io.huditsd.executors.HudiTables;
import io.huditsd.scheduler.OperationOutcomes.TableUnreadable;
import io.huditsd.scheduler.TableProbe;
import io.huditsd.scheduler.TableProblem;
import org.apache.hudi.common.table.HoodieTableMetaClient;

/**
 * Opens a table for the endpoints that read it outside {@link io.huditsd.scheduler.TableOperations} (plans, file
 * groups, indexes) with the checks the operations make: a {@code hoodie.properties} or instant file that cannot be
 * read is answered as {@link TableUnreadable}, naming the file, and never as a 500 without a reason.
 */
final class ReadableTable {
  private ReadableTable() {
  }

  static HoodieTableMetaClient open(HudiTables tables, ServicedTable table) {
    try {
      return TableProbe.openReadable(tables, table.basePath());
    } catch (TableProblem e) {
      throw Refusals.toApiException(new TableUnreadable(table.id(), e.getMessage()));
    }
  }
}
