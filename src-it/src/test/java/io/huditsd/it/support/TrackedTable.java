package io.huditsd.it.support;

import io.huditsd.api.demo.SampleRow;
import io.huditsd.api.demo.SampleTable;
import org.apache.hudi.common.model.HoodieTableType;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.stream.IntStream;
import java.util.stream.Stream;

/**
 * A sample table written through Hudi's Java writer together with the rows it must hold: every committed batch is
 * applied to an {@link ExpectedRows} model as well. Keys are {@code k00000}-style ids whose partition is a function
 * of the number, so a key never changes partition.
 */
public final class TrackedTable implements AutoCloseable {
  public static final List<String> PARTITIONS = List.of("2026-11-01", "2026-11-02", "2026-11-03");

  /**
   * Writer keys for MERGE_ON_READ tables. Hudi 1.2.0's Java engine packs new keys of an upsert into small base files
   * with the copy-on-write partitioner ({@code JavaUpsertPartitioner}; Spark's MOR partitioner skips file slices
   * that have log files), and {@code BaseJavaDeltaCommitActionExecutor.handleUpdate} then rewrites such a base file
   * from the base file and the incoming records alone: the updates and deletes in the slice's log files are lost.
   * Turning small-file packing off keeps every update in the log files, where compaction has to merge them.
   */
  public static final Map<String, String> MOR_WRITER_KEYS = Map.of("hoodie.parquet.small.file.limit", "0");

  private final SampleTable table;
  private final ExpectedRows expected = new ExpectedRows();
  private final List<String> commits = new ArrayList<>();

  private TrackedTable(SampleTable table) {
    this.table = table;
  }

  /** Creates a fresh table at {@code basePath}, deleting whatever an earlier run left there. */
  public static TrackedTable create(Path basePath, HoodieTableType type, int tableVersion,
                                    Map<String, String> writerKeys) throws IOException {
    deleteRecursively(basePath);
    Files.createDirectories(basePath.getParent());
    return new TrackedTable(SampleTable.open(basePath.toString(), basePath.getFileName().toString(), type,
        tableVersion, writerKeys));
  }

  public static String key(int number) {
    return "k%05d".formatted(number);
  }

  public static String partitionOf(int number) {
    return PARTITIONS.get(number % PARTITIONS.size());
  }

  /** A row of key {@code number}; the amount depends on key and ts so every version of a row differs. */
  public static SampleRow row(int number, long ts, String name) {
    return SampleRow.of(key(number), partitionOf(number), ts, name, number * 1_000_000L + ts);
  }

  /** Rows for keys {@code from} (inclusive) to {@code to} (exclusive). */
  public static List<SampleRow> rows(int from, int to, long ts, String name) {
    return IntStream.range(from, to).mapToObj(number -> row(number, ts, name)).toList();
  }

  /** Deletes of keys {@code from} to {@code to} (exclusive), ordered by {@code ts}. */
  public static List<SampleRow> deletes(int from, int to, long ts) {
    return IntStream.range(from, to).mapToObj(number -> row(number, ts, "deleted").asDelete(ts)).toList();
  }

  @SafeVarargs
  public static List<SampleRow> concat(List<SampleRow>... batches) {
    return Stream.of(batches).flatMap(List::stream).toList();
  }

  public String upsert(List<SampleRow> rows) {
    String instant = table.upsert(rows);
    expected.apply(rows);
    commits.add(instant);
    return instant;
  }

  public String insert(List<SampleRow> rows) {
    String instant = table.insert(rows);
    expected.apply(rows);
    commits.add(instant);
    return instant;
  }

  public ExpectedRows expected() {
    return expected;
  }

  public List<String> commits() {
    return List.copyOf(commits);
  }

  public String basePath() {
    return table.basePath();
  }

  /** {@code .hoodie/hoodie.properties} as it is on disk now. */
  public static Properties hoodieProperties(String basePath) {
    Properties properties = new Properties();
    try (var in = Files.newInputStream(Path.of(basePath, ".hoodie", "hoodie.properties"))) {
      properties.load(in);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return properties;
  }

  public static void deleteRecursively(Path path) throws IOException {
    Objects.requireNonNull(path, "path is null");
    if (!Files.exists(path)) {
      return;
    }
    try (Stream<Path> walk = Files.walk(path)) {
      for (Path file : walk.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(file);
      }
    }
  }

  @Override
  public void close() {
    table.close();
  }
}
