package io.huditsd.it.support;

import io.huditsd.api.demo.SampleRow;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * A table written by the Spark peer with the Hudi datasource, together with the rows it must hold: every batch is
 * applied to an {@link ExpectedRows} model as well, so Spark's reads can be compared key by key.
 *
 * <p>The table is the sample table's shape: record key {@code id}, partition {@code partition} (not hive-style),
 * ordering field {@code ts} with EVENT_TIME_ORDERING, deletes as {@code _hoodie_is_deleted}. The writer runs no
 * table service of its own (no inline compaction or clustering, no automatic clean or archive) unless a test says
 * otherwise: servicing the table is the daemon's job.
 */
public final class SparkTable {
  private static final String SCHEMA =
      "id STRING, partition STRING, ts BIGINT, name STRING, amount BIGINT, _hoodie_is_deleted BOOLEAN";
  private static final String SCHEMA_WITH_NOTE = SCHEMA + ", note STRING";

  private final SparkPeer spark;
  private final String basePath;
  private final Map<String, String> options;
  private final ExpectedRows expected;
  /** The note of every version written after the column was added, by {@code id@ts}. */
  private final Map<String, String> notes = new HashMap<>();
  private boolean withNote;

  private SparkTable(SparkPeer spark, String basePath, Map<String, String> options) {
    this(spark, basePath, options, new ExpectedRows());
  }

  private SparkTable(SparkPeer spark, String basePath, Map<String, String> options, ExpectedRows expected) {
    this.spark = spark;
    this.basePath = basePath;
    this.options = options;
    this.expected = expected;
  }

  /**
   * This table written and read by {@code peer} from now on (one started after this table's peer died), with the
   * rows written so far as its model. The two share the model: write through one of them only.
   */
  public SparkTable withPeer(SparkPeer peer) {
    if (withNote) {
      throw new IllegalStateException("withPeer does not carry the note column over; add it to this method first");
    }
    return new SparkTable(peer, basePath, options, expected);
  }

  /**
   * A new table at {@code basePath} (whatever an earlier run left there is deleted); it is created by the first
   * write.
   *
   * @param tableType MERGE_ON_READ or COPY_ON_WRITE
   * @param writerOptions options for every write, over the defaults above (table version, locks, sizing)
   */
  public static SparkTable create(SparkPeer spark, Path basePath, String tableType, Map<String, String> writerOptions)
      throws IOException {
    deleteRecursively(basePath);
    Files.createDirectories(basePath.getParent());
    return create(spark, basePath.toString(), tableType, writerOptions);
  }

  /**
   * A new table at a Hadoop URI ({@code s3a://bucket/name}), named after its last path segment; nothing is
   * deleted there, so the location must be new (a bucket of the test's own).
   */
  public static SparkTable create(SparkPeer spark, String basePath, String tableType,
                                  Map<String, String> writerOptions) {
    Map<String, String> options = new LinkedHashMap<>();
    options.put("hoodie.table.name", basePath.substring(basePath.lastIndexOf('/') + 1));
    options.put("hoodie.datasource.write.table.type", tableType);
    options.put("hoodie.datasource.write.recordkey.field", "id");
    options.put("hoodie.datasource.write.partitionpath.field", "partition");
    options.put("hoodie.datasource.write.precombine.field", "ts");
    options.put("hoodie.write.record.merge.mode", "EVENT_TIME_ORDERING");
    options.put("hoodie.datasource.write.payload.class", "org.apache.hudi.common.model.DefaultHoodieRecordPayload");
    options.put("hoodie.compact.inline", "false");
    options.put("hoodie.clustering.inline", "false");
    options.put("hoodie.clean.automatic", "false");
    options.put("hoodie.archive.automatic", "false");
    options.put("hoodie.insert.shuffle.parallelism", "2");
    options.put("hoodie.upsert.shuffle.parallelism", "2");
    options.put("hoodie.delete.shuffle.parallelism", "2");
    options.putAll(writerOptions);
    return new SparkTable(spark, basePath, options);
  }

  public String basePath() {
    return basePath;
  }

  /** The options every write of this table uses. */
  public Map<String, String> options() {
    return Map.copyOf(options);
  }

  /** From now on every row written carries the new column {@code note}: schema evolution on write. */
  public void addNoteColumn() {
    withNote = true;
  }

  /**
   * {@code commits} inserts of {@code rowsPerCommit} new keys each (keys 0, 1, ... in order, ts 1000, name v1): with
   * {@code hoodie.parquet.small.file.limit=0} one new small base file per partition and commit, for clustering.
   */
  public void insertInCommits(int commits, int rowsPerCommit) {
    for (int commit = 0; commit < commits; commit++) {
      insert(TrackedTable.rows(commit * rowsPerCommit, (commit + 1) * rowsPerCommit, 1_000, "v1"));
    }
  }

  /** Inserts new keys ({@code insert} operation, no index lookup). */
  public void insert(List<SampleRow> rows) {
    write(rows, "insert", Map.of());
  }

  /** Inserts with options over the table's own for this write only. */
  public void insert(List<SampleRow> rows, Map<String, String> extraOptions) {
    write(rows, "insert", extraOptions);
  }

  /** Upserts; rows with {@code deleted} set are deletes through {@code _hoodie_is_deleted}. */
  public void upsert(List<SampleRow> rows) {
    write(rows, "upsert", Map.of());
  }

  /** Upserts with options over the table's own for this write only. */
  public void upsert(List<SampleRow> rows, Map<String, String> extraOptions) {
    write(rows, "upsert", extraOptions);
  }

  /**
   * An upsert that is not to commit (its writer is killed while it runs): the model is left as it was, and
   * whatever the write throws is the caller's.
   */
  public void upsertNeverCommitted(List<SampleRow> rows) {
    new ExpectedRows().apply(rows);
    send(rows, "upsert", Map.of());
  }

  /** Spark's {@code delete} operation on the keys of {@code deletes} (each made with {@link SampleRow#asDelete}). */
  public void delete(List<SampleRow> deletes) {
    for (SampleRow row : deletes) {
      if (!row.deleted()) {
        throw new IllegalArgumentException("delete() takes deletes, got " + row);
      }
    }
    write(deletes, "delete", Map.of());
  }

  /** The live rows the writes imply. */
  public Map<String, PeerRow> expected() {
    Map<String, PeerRow> rows = new TreeMap<>();
    expected.rows().forEach((key, row) -> rows.put(key, PeerRow.of(row, notes.get(versionKey(row)))));
    return rows;
  }

  /** Spark's snapshot query of the table, by record key. */
  public Map<String, PeerRow> snapshot() {
    return PeerRow.byKey("Spark snapshot of " + basePath,
        spark.read(basePath, Map.of("hoodie.datasource.query.type", "snapshot")));
  }

  /** Spark's read-optimized query of the table (base files only), by record key. */
  public Map<String, PeerRow> readOptimized() {
    return PeerRow.byKey("Spark read_optimized of " + basePath,
        spark.read(basePath, Map.of("hoodie.datasource.query.type", "read_optimized")));
  }

  private void write(List<SampleRow> rows, String operation, Map<String, String> extraOptions) {
    // First, so that a batch the model refuses (its outcome undefined) is never written.
    expected.apply(rows);
    send(rows, operation, extraOptions);
  }

  private void send(List<SampleRow> rows, String operation, Map<String, String> extraOptions) {
    List<Map<String, Object>> json = new ArrayList<>(rows.size());
    Map<String, String> batchNotes = new HashMap<>();
    for (SampleRow row : rows) {
      Map<String, Object> values = new LinkedHashMap<>();
      values.put("id", row.id());
      values.put("partition", row.partition());
      values.put("ts", row.ts());
      values.put("name", row.name());
      values.put("amount", row.amount());
      values.put("_hoodie_is_deleted", row.deleted());
      if (withNote) {
        String note = "note of " + row.name() + "@" + row.ts();
        values.put("note", note);
        batchNotes.put(versionKey(row), note);
      }
      json.add(values);
    }
    Map<String, String> writeOptions = new LinkedHashMap<>(options);
    writeOptions.put("hoodie.datasource.write.operation", operation);
    writeOptions.putAll(extraOptions);
    notes.putAll(batchNotes);
    spark.write(basePath, json, withNote ? SCHEMA_WITH_NOTE : SCHEMA, writeOptions);
  }

  private static String versionKey(SampleRow row) {
    return row.id() + "@" + row.ts();
  }

  private static void deleteRecursively(Path path) throws IOException {
    if (!Files.exists(path)) {
      return;
    }
    try (Stream<Path> files = Files.walk(path)) {
      for (Path file : files.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(file);
      }
    }
  }
}
