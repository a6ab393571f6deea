package io.huditsd.it.support;

import io.huditsd.api.demo.SampleRow;
import org.apache.avro.generic.IndexedRecord;
import org.apache.hadoop.conf.Configuration;
import org.apache.hudi.avro.HoodieAvroReaderContext;
import org.apache.hudi.common.config.HoodieMetadataConfig;
import org.apache.hudi.common.config.TypedProperties;
import org.apache.hudi.common.engine.HoodieLocalEngineContext;
import org.apache.hudi.common.fs.FSUtils;
import org.apache.hudi.common.model.FileSlice;
import org.apache.hudi.common.model.HoodieBaseFile;
import org.apache.hudi.common.model.HoodieLogFile;
import org.apache.hudi.common.model.HoodieRecord;
import org.apache.hudi.common.schema.HoodieSchema;
import org.apache.hudi.common.table.HoodieTableMetaClient;
import org.apache.hudi.common.table.TableSchemaResolver;
import org.apache.hudi.common.table.read.HoodieFileGroupReader;
import org.apache.hudi.common.table.timeline.HoodieInstant;
import org.apache.hudi.common.table.view.FileSystemViewManager;
import org.apache.hudi.common.table.view.HoodieTableFileSystemView;
import org.apache.hudi.common.util.Option;
import org.apache.hudi.common.util.collection.ClosableIterator;
import org.apache.hudi.storage.StorageConfiguration;
import org.apache.hudi.storage.hadoop.HadoopStorageConfiguration;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Reads a sample table back the way a query engine would, with Hudi's own engine-neutral reader
 * ({@link HoodieFileGroupReader} over {@link HoodieAvroReaderContext}), so that a test compares what a reader sees
 * rather than what the daemon reports.
 *
 * <ul>
 *   <li>{@link #snapshot}: the latest merged file slice of every file group (base file plus log files, merged with
 *       the table's merge mode), as of the latest completed commit; deletes are absent.</li>
 *   <li>{@link #readOptimized}: only the latest base file of every file group, as a read-optimized query reads.</li>
 * </ul>
 *
 * <p>Every read takes a fresh meta client, so it sees the timeline as it is now. A record key found in two file
 * groups is a failure in itself (a duplicate), reported with both places.
 */
public final class TableReader {
  /** Where the file listing comes from. */
  public enum Listing {
    /** Partitions and files listed on storage, as a reader with the metadata table off sees them. */
    STORAGE,
    /**
     * Partitions and files listed from the table's metadata table, as Spark reads by default. A table service that
     * commits without updating the metadata table leaves this listing stale.
     */
    METADATA_TABLE
  }

  private final String basePath;
  private final StorageConfiguration<Configuration> storageConfiguration;

  public TableReader(String basePath) {
    this(basePath, new Configuration());
  }

  /** A reader with its own Hadoop configuration (the S3A keys of a table on an object store, say). */
  public TableReader(String basePath, Configuration hadoop) {
    this.basePath = Objects.requireNonNull(basePath, "basePath is null");
    this.storageConfiguration = new HadoopStorageConfiguration(Objects.requireNonNull(hadoop, "hadoop is null"));
  }

  /** A freshly loaded meta client of the table. */
  public HoodieTableMetaClient metaClient() {
    return HoodieTableMetaClient.builder()
        .setConf(storageConfiguration.newInstance())
        .setBasePath(basePath)
        .setLoadActiveTimelineOnLoad(true)
        .build();
  }

  /** Live rows by record key, merged from the latest file slices. */
  public Map<String, SampleRow> snapshot(Listing listing) {
    return read(listing, true);
  }

  /** Rows by record key from the latest base files only; log files are ignored. */
  public Map<String, SampleRow> readOptimized(Listing listing) {
    return read(listing, false);
  }

  /** The latest base file of every file group, as {@code partition/fileName}, in name order. */
  public List<String> latestBaseFiles(Listing listing) {
    HoodieTableMetaClient metaClient = metaClient();
    List<String> files = new ArrayList<>();
    Option<HoodieInstant> latest = latestCompletedCommit(metaClient);
    if (latest.isEmpty()) {
      return files;
    }
    HoodieTableFileSystemView view = view(metaClient, listing);
    try {
      for (String partition : partitions(metaClient, listing)) {
        view.getLatestBaseFilesBeforeOrOn(partition, latest.get().requestedTime())
            .forEach(file -> files.add(partition + "/" + file.getFileName()));
      }
    } finally {
      view.close();
    }
    return List.copyOf(new TreeSet<>(files));
  }

  /** Every file slice of every file group, replaced ones included, as {@code partition/fileName} of its files. */
  public Map<String, List<String>> fileGroupsWithSlices(Listing listing) {
    HoodieTableMetaClient metaClient = metaClient();
    Map<String, List<String>> fileGroups = new TreeMap<>();
    HoodieTableFileSystemView view = view(metaClient, listing);
    try {
      for (String partition : partitions(metaClient, listing)) {
        view.getAllFileGroups(partition).forEach(group -> {
          List<String> files = new ArrayList<>();
          group.getAllFileSlices().forEach(slice -> {
            slice.getBaseFile().ifPresent(file -> files.add(partition + "/" + file.getFileName()));
            slice.getLogFiles().forEach(log -> files.add(partition + "/" + log.getFileName()));
          });
          fileGroups.put(partition + "/" + group.getFileGroupId().getFileId(), files);
        });
      }
    } finally {
      view.close();
    }
    return fileGroups;
  }

  private Map<String, SampleRow> read(Listing listing, boolean mergeLogs) {
    HoodieTableMetaClient metaClient = metaClient();
    Option<HoodieInstant> latest = latestCompletedCommit(metaClient);
    Rows rows = new Rows();
    if (latest.isEmpty()) {
      return rows.byKey;
    }
    String latestTime = latest.get().requestedTime();
    HoodieSchema schema = tableSchema(metaClient);
    HoodieTableFileSystemView view = view(metaClient, listing);
    try {
      for (String partition : partitions(metaClient, listing)) {
        if (mergeLogs) {
          for (FileSlice slice : view.getLatestMergedFileSlicesBeforeOrOn(partition, latestTime).toList()) {
            readFileGroup(metaClient, schema, latestTime, partition, slice.getBaseFile(),
                slice.getLogFiles().toList(), rows);
          }
        } else {
          for (HoodieBaseFile file : view.getLatestBaseFilesBeforeOrOn(partition, latestTime).toList()) {
            readFileGroup(metaClient, schema, latestTime, partition, Option.of(file), List.of(), rows);
          }
        }
      }
    } finally {
      view.close();
    }
    return rows.byKey;
  }

  private void readFileGroup(HoodieTableMetaClient metaClient, HoodieSchema schema, String latestTime,
                             String partition, Option<HoodieBaseFile> baseFile, List<HoodieLogFile> logFiles,
                             Rows rows) {
    String where = partition + "/" + baseFile.map(HoodieBaseFile::getFileName).orElse("(no base file)")
        + (logFiles.isEmpty() ? "" : " + " + logFiles.size() + " log file(s)");
    TypedProperties properties = new TypedProperties();
    HoodieAvroReaderContext context = new HoodieAvroReaderContext(metaClient.getStorageConf(),
        metaClient.getTableConfig(), Option.empty(), Option.empty(), properties);
    try (HoodieFileGroupReader<IndexedRecord> reader = HoodieFileGroupReader.<IndexedRecord>newBuilder()
        .withReaderContext(context)
        .withHoodieTableMetaClient(metaClient)
        .withLatestCommitTime(latestTime)
        .withBaseFileOption(baseFile)
        .withLogFiles(logFiles.stream())
        .withPartitionPath(partition)
        .withDataSchema(schema)
        .withRequestedSchema(schema)
        .withProps(properties)
        .build();
         ClosableIterator<IndexedRecord> records = reader.getClosableIterator()) {
      while (records.hasNext()) {
        rows.add(records.next(), where);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read " + where + " of " + basePath, e);
    }
  }

  private HoodieTableFileSystemView view(HoodieTableMetaClient metaClient, Listing listing) {
    if (listing == Listing.METADATA_TABLE && !metaClient.getTableConfig().isMetadataTableAvailable()) {
      // Hudi would silently fall back to listing storage, and the comparison would prove nothing.
      throw new IllegalStateException(basePath + " has no metadata table to list files from");
    }
    return FileSystemViewManager.createInMemoryFileSystemView(new HoodieLocalEngineContext(metaClient.getStorageConf()),
        metaClient, metadataConfig(listing));
  }

  private static List<String> partitions(HoodieTableMetaClient metaClient, Listing listing) {
    return FSUtils.getAllPartitionPaths(new HoodieLocalEngineContext(metaClient.getStorageConf()), metaClient,
        metadataConfig(listing));
  }

  private static HoodieMetadataConfig metadataConfig(Listing listing) {
    return HoodieMetadataConfig.newBuilder().enable(listing == Listing.METADATA_TABLE).build();
  }

  private static Option<HoodieInstant> latestCompletedCommit(HoodieTableMetaClient metaClient) {
    return metaClient.getActiveTimeline().getCommitsTimeline().filterCompletedInstants().lastInstant();
  }

  private static HoodieSchema tableSchema(HoodieTableMetaClient metaClient) {
    try {
      return new TableSchemaResolver(metaClient).getTableSchema();
    } catch (Exception e) {
      throw new IllegalStateException("Cannot resolve the schema of " + metaClient.getBasePath(), e);
    }
  }

  /** Rows read so far, by record key, and where each came from. */
  private static final class Rows {
    private final Map<String, SampleRow> byKey = new TreeMap<>();
    private final Map<String, String> origin = new HashMap<>();

    void add(IndexedRecord record, String where) {
      String key = string(record, HoodieRecord.RECORD_KEY_METADATA_FIELD);
      // A row still flagged _hoodie_is_deleted is kept as such: the expected rows never hold one, so it shows up
      // as a difference instead of being filtered here.
      SampleRow row = new SampleRow(string(record, "id"), string(record, "partition"), (Long) field(record, "ts"),
          string(record, "name"), (Long) field(record, "amount"),
          Boolean.TRUE.equals(field(record, "_hoodie_is_deleted")));
      if (!key.equals(row.id())) {
        throw new AssertionError("record key " + key + " in " + where + " holds a row with id " + row.id());
      }
      String earlier = origin.putIfAbsent(key, where);
      if (earlier != null) {
        throw new AssertionError("record key " + key + " is read twice: " + byKey.get(key) + " from " + earlier
            + " and " + row + " from " + where);
      }
      byKey.put(key, row);
    }

    private static Object field(IndexedRecord record, String name) {
      org.apache.avro.Schema.Field field = record.getSchema().getField(name);
      if (field == null) {
        throw new AssertionError("field " + name + " missing from a record read: " + record);
      }
      return record.get(field.pos());
    }

    private static String string(IndexedRecord record, String name) {
      Object value = field(record, name);
      return value == null ? null : value.toString();
    }
  }
}
