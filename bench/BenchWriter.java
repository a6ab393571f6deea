import io.huditsd.api.demo.SampleRow;
import io.huditsd.api.demo.SampleTable;
import org.apache.hudi.common.model.HoodieTableType;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The poll-cost benchmark's writer, run with Java's single-file launcher against the built daemon's class path:
 * {@code java -cp 'api/target/hudi-tsd.jar:api/target/lib/*' bench/BenchWriter.java create|upsert PATH}.
 *
 * <p>{@code create} makes the template: a small partitioned MOR table (table version 9, metadata table on) with an
 * insert and an upsert. {@code upsert} adds one delta commit and prints the wall-clock time it completed, which the
 * script compares with the moment the daemon schedules the compaction the commit made due.
 */
public final class BenchWriter {
  private static final String[] PARTITIONS = {"2026-11-01", "2026-11-02", "2026-11-03"};

  public static void main(String[] args) throws Exception {
    if (args.length != 2 || !List.of("create", "upsert").contains(args[0])) {
      System.err.println("usage: BenchWriter create|upsert PATH");
      System.exit(2);
    }
    String command = args[0];
    try (SampleTable table = SampleTable.open(args[1], "bench", HoodieTableType.MERGE_ON_READ, 9, Map.of())) {
      if (command.equals("create")) {
        table.insert(rows(0, 300, 1));
        table.upsert(rows(0, 100, 2));
      } else {
        String instant = table.upsert(rows(0, 20, System.currentTimeMillis()));
        System.out.println("committed " + instant + " at " + System.currentTimeMillis());
      }
    }
    // Hudi's clients can leave non-daemon threads behind.
    System.exit(0);
  }

  private static List<SampleRow> rows(int first, int count, long ts) {
    List<SampleRow> rows = new ArrayList<>(count);
    for (int i = first; i < first + count; i++) {
      rows.add(SampleRow.of("k" + i, PARTITIONS[i % PARTITIONS.length], ts, "name-" + i, i));
    }
    return rows;
  }
}
