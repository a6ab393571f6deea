package io.huditsd.executors;

import org.apache.hudi.client.transaction.TransactionManager;
import org.apache.hudi.common.table.HoodieTableMetaClient;
import org.apache.hudi.common.util.Option;
import org.apache.hudi.config.HoodieWriteConfig;

import java.util.function.Function;

/** Timeline changes the daemon makes itself (not through a Hudi action), under the table lock the writers use. */
public final class TableLock {
  private TableLock() {
  }

  /** Runs {@code change} on a freshly loaded meta client while holding the table lock of {@code config}. */
  public static <T> T underTableLock(HoodieWriteConfig config, HoodieTableMetaClient metaClient,
                                     Function<HoodieTableMetaClient, T> change) {
    TransactionManager transactions = new TransactionManager(config, metaClient.getStorage());
    transactions.beginStateChange(Option.empty(), Option.empty());
    try {
      return change.apply(HoodieTableMetaClient.reload(metaClient));
    } finally {
      transactions.endStateChange(Option.empty());
      transactions.close();
    }
  }
}
