package io.huditsd.executors;

import org.apache.avro.generic.IndexedRecord;
import org.apache.hudi.avro.HoodieAvroReaderContext;
import org.apache.hudi.client.common.HoodieJavaEngineContext;
import org.apache.hudi.common.config.TypedProperties;
import org.apache.hudi.common.engine.HoodieReaderContext;
import org.apache.hudi.common.engine.ReaderContextFactory;
import org.apache.hudi.common.model.HoodieRecord;
import org.apache.hudi.common.table.HoodieTableConfig;
import org.apache.hudi.common.table.HoodieTableMetaClient;
import org.apache.hudi.common.util.ConfigUtils;
import org.apache.hudi.storage.StorageConfiguration;

/**
 * Hudi's Java engine context, whose Avro reader contexts (the file-group reader behind compaction, clustering and
 * metadata-table reads) use {@link FieldIndexedAvroRecordContext} for record keys and ordering values. It makes the
 * same reader contexts as {@link HoodieJavaEngineContext} and Hudi's {@code AvroReaderContextFactory} otherwise:
 * same storage, table config, payload class and properties.
 */
public final class FieldIndexedJavaEngineContext extends HoodieJavaEngineContext {
  public FieldIndexedJavaEngineContext(StorageConfiguration<?> storageConfiguration) {
    super(storageConfiguration);
  }

  @Override
  public ReaderContextFactory<IndexedRecord> getEngineReaderContextFactory(HoodieTableMetaClient metaClient) {
    // As Hudi's engine context: the table's payload class, no properties.
    return new Factory(metaClient, metaClient.getTableConfig().getPayloadClass(), new TypedProperties());
  }

  @Override
  public ReaderContextFactory<?> getReaderContextFactoryForWrite(HoodieTableMetaClient metaClient,
                                                                HoodieRecord.HoodieRecordType recordType,
                                                                TypedProperties properties) {
    // As Hudi's engine context: Avro records take the writer's payload class and properties.
    return recordType == HoodieRecord.HoodieRecordType.AVRO
        ? new Factory(metaClient, ConfigUtils.getPayloadClass(properties), properties)
        : getEngineReaderContextFactory(metaClient);
  }

  /** Hudi's {@code AvroReaderContextFactory}, making {@link ReaderContext}s. */
  private record Factory(HoodieTableMetaClient metaClient, String payloadClass, TypedProperties properties)
      implements ReaderContextFactory<IndexedRecord> {
    @Override
    public HoodieReaderContext<IndexedRecord> getContext() {
      return new ReaderContext(metaClient.getStorageConf(), metaClient.getTableConfig(), payloadClass, properties);
    }
  }

  /** Hudi's Avro reader context with its record context replaced; Hudi reads it only through the field. */
  static final class ReaderContext extends HoodieAvroReaderContext {
    ReaderContext(StorageConfiguration<?> storageConfiguration, HoodieTableConfig tableConfig, String payloadClass,
                  TypedProperties properties) {
      super(storageConfiguration, tableConfig, payloadClass, properties);
      this.recordContext = new FieldIndexedAvroRecordContext(tableConfig, payloadClass);
    }
  }
}
