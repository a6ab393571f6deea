package io.huditsd.scheduler;

import io.huditsd.config.ServicedTable;
import io.huditsd.executors.LocalTables;
import io.huditsd.executors.RunListener;
import org.apache.hudi.common.table.HoodieTableMetaClient;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A planner over real local tables whose pool holds what it enqueued ({@link HoldingPool}), so that a test sees
 * what one poll planned and queued. Registered with {@code @RegisterExtension}, it lets the pool go after each test.
 */
final class PlanningFixture implements AfterEachCallback {
  private final LocalTables localTables = new LocalTables();
  private final HoldingPool holdingPool;
  private final DuePlanner planner;

  PlanningFixture() {
    this(RunListener.NONE);
  }

  /** @param listener told about every run's changes, as a daemon's listeners are */
  PlanningFixture(RunListener listener) {
    this.holdingPool = new HoldingPool(listener);
    this.planner = new DuePlanner(localTables.hudiTables(), holdingPool.pool());
  }

  LocalTables localTables() {
    return localTables;
  }

  DuePlanner planner() {
    return planner;
  }

  /** One poll of {@code table}: its timeline read afresh, what is due planned, the plans queued. */
  DuePlanner.Outcome poll(ServicedTable table) {
    return planner.planAndEnqueue(table,
        HoodieTableMetaClient.reload(localTables.hudiTables().metaClient(table.basePath())));
  }

  @Override
  public void afterEach(ExtensionContext context) throws InterruptedException {
    holdingPool.close();
  }
}
