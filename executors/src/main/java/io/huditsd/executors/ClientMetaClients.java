package io.huditsd.executors;

import org.apache.hudi.client.HoodieJavaWriteClient;
import org.apache.hudi.common.table.HoodieTableMetaClient;

/** A fresh meta client over the table a write client writes, for reading plans before executing them. */
final class ClientMetaClients {
  private ClientMetaClients() {
  }

  static HoodieTableMetaClient of(HoodieJavaWriteClient<?> client) {
    return HoodieTableMetaClient.builder()
        .setConf(client.getEngineContext().getStorageConf().newInstance())
        .setBasePath(client.getConfig().getBasePath())
        .build();
  }
}
